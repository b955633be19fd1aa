/**
 * The batch's work under way (task jobs being started, waited on, read back), and a way to wait
 * for the next change. Why not `Promise.race` over the set: each race adds a reaction to every
 * promise still pending, kept until it settles, so a loop that races N promises after each of
 * N settles holds N² reactions; a re-run of a finished batch of 20,000 tasks, whose outcomes are
 * all read at once, ran out of memory that way. Here each work has one reaction, for good.
 */
export class InFlight {
  private readonly works = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private failure: Error | undefined;

  /** How many works are under way. */
  get size(): number {
    return this.works.size;
  }

  /** Tracks `work` until it settles; returns it. */
  add(work: Promise<void>): Promise<void> {
    this.works.add(work);
    const settled = () => {
      this.works.delete(work);
      this.changed();
    };
    void work.then(settled, (error: unknown) => {
      this.failure ??= error instanceof Error ? error : new Error(String(error));
      settled();
    });
    return work;
  }

  /** Wakes the waiter of {@link next} (for a change from outside: an interruption). */
  changed(): void {
    this.wake?.();
  }

  /**
   * Resolves at the next change: a work settled, or {@link changed} was called. Rejects with
   * the first failure of a work, then and on every later call, as `Promise.race` over the works
   * would. One waiter at a time (the batch loop); a change that came before this call is not
   * waited for, so the loop reads its state before each call.
   */
  next(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.wake = () => {
        this.wake = undefined;
        if (this.failure) reject(this.failure);
        else resolve();
      };
    });
  }
}
