import type { Duplex } from 'node:stream';
import pg from 'pg';

/** The channel `appendEvents` notifies with the sha256 of the job id as payload. */
export const EVENTS_CHANNEL = 'dar_store_events';

/**
 * Wakes followers as soon as events of their job are appended, through PostgreSQL's
 * LISTEN/NOTIFY, on one dedicated connection per store opened by the first follower. Polling
 * stays the fallback: a follower waits at most its poll interval even when a notice is lost
 * (the connection dropped, a notice sent between its read and its wait).
 */
export class EventNotices {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  /** `stream`: makes the connection's socket (see `StoreSockets`). */
  constructor(
    private readonly connectionString: string,
    private readonly stream?: () => Duplex,
  ) {}

  /**
   * Resolves true on a notice for the job or after `milliseconds`, false when `signal` aborts.
   * Contract: never rejects.
   */
  wait(jobKey: string, milliseconds: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    this.listen();
    return new Promise((resolve) => {
      const waiters = this.waiters.get(jobKey) ?? new Set<() => void>();
      this.waiters.set(jobKey, waiters);
      const finish = (result: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        waiters.delete(wake);
        if (waiters.size === 0) this.waiters.delete(jobKey);
        resolve(result);
      };
      const wake = () => finish(true);
      const onAbort = () => finish(false);
      const timer = setTimeout(wake, milliseconds);
      waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Opens the listening connection when there is none; failures leave polling alone. */
  private listen(): void {
    if (this.closed || this.client || this.connecting) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      ...(this.stream ? { stream: this.stream } : {}),
    });
    // A lost connection (database restarted) is dropped; the next wait opens another.
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    client.on('notification', (notice) => {
      if (notice.channel === EVENTS_CHANNEL && notice.payload) this.wake(notice.payload);
    });
    this.connecting = client
      .connect()
      .then(() => client.query(`LISTEN ${EVENTS_CHANNEL}`))
      .then(
        () => {
          if (this.closed) return client.end();
          this.client = client;
        },
        () => this.drop(client),
      )
      .catch(() => undefined)
      .finally(() => {
        this.connecting = undefined;
      });
  }

  private drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
  }

  private wake(jobKey: string): void {
    for (const wake of [...(this.waiters.get(jobKey) ?? [])]) wake();
  }
}
