import { mapWithConcurrency } from '../store/concurrency.js';
import type { JobStore } from '../store/job-store.js';
import type { JsonValue, ObjectRef } from '../store/references.js';
import { ObjectNotFound } from '../store/store-errors.js';
import { ObjectRefSet } from './object-ref-set.js';
import { refuseSealed } from './sealed-values.js';
import { referencesIn } from './reference-scan.js';

/** Objects read at once while following references. */
const READ_CONCURRENCY = 16;
/** Past this many objects marked and not read yet, `settleWhenMany` reads them. */
const WAITING_LIMIT = 10_000;

/**
 * The objects reachable from some roots (events, records): every reference a root holds, every
 * reference those objects hold, and so on (a transcript's nodes, its messages, their stored
 * tool output). Objects are read through `store`, so an encrypting store opens them: the
 * references inside a sealed object are found too. A reference to an object that is not
 * stored is passed over (a string that only looks like one, or an object already gone).
 * Memory: the objects reached are held outside the heap (`ObjectRefSet`), and a caller that
 * marks many roots keeps those waiting to be read few with `settleWhenMany`.
 */
export class ReachableObjects {
  private readonly reached = new ObjectRefSet();
  private waiting: ObjectRef[] = [];

  constructor(private readonly store: Pick<JobStore, 'getObject'>) {}

  /** Marks what `root` refers to; `settle` then follows it all. */
  addRoot(root: JsonValue): void {
    refuseSealed(root);
    referencesIn(root, (ref) => this.reach(ref));
  }

  /** Marks an object itself (one that is kept whatever refers to it); `settle` follows it. */
  addObject(ref: ObjectRef): void {
    this.reach(ref);
  }

  /** Reads every marked object not read yet, and what they refer to, until none is left. */
  async settle(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      await mapWithConcurrency(batch, READ_CONCURRENCY, async (ref) => {
        const value = await this.read(ref);
        if (value === undefined) return;
        refuseSealed(value);
        referencesIn(value, (inner) => this.reach(inner));
      });
    }
  }

  /** `settle`, once over 10,000 objects wait to be read: for callers that mark many roots. */
  async settleWhenMany(): Promise<void> {
    if (this.waiting.length > WAITING_LIMIT) await this.settle();
  }

  has(ref: ObjectRef): boolean {
    return this.reached.has(ref);
  }

  get size(): number {
    return this.reached.size;
  }

  private reach(ref: ObjectRef): void {
    if (this.reached.add(ref)) this.waiting.push(ref);
  }

  private async read(ref: ObjectRef): Promise<JsonValue | undefined> {
    try {
      return await this.store.getObject(ref);
    } catch (error) {
      if (error instanceof ObjectNotFound) return undefined;
      throw error;
    }
  }
}
