import pg from 'pg';
import { canonicalJson } from '../canonical-json.js';
import { pollEvents, type FollowOptions } from '../follow-events.js';
import type { JobStore } from '../job-store.js';
import { OBJECT_TOUCH_INTERVAL_MS, type StoreMaintenance } from '../store-maintenance.js';
import { encodeObject, sha256Hex, textMatchesRef } from '../object-ref.js';
import {
  checkJobId,
  checkRecordName,
  checkRef,
  eventPageBounds,
  prepareEvents,
  sameEvent,
  type PreparedEvent,
} from '../store-arguments.js';
import {
  EventConflict,
  JobStoreError,
  ObjectNotFound,
  StoreCorruptionError,
} from '../store-errors.js';
import type {
  AppendEventsOptions,
  EventToAppend,
  JsonValue,
  ObjectRef,
  PreparedObject,
  PutRecordOptions,
  ReadEventsOptions,
  StoredEvent,
} from '../references.js';
import { postgresFailure } from './postgres-errors.js';
import { EVENTS_CHANNEL, EventNotices } from './postgres-event-notices.js';
import { PostgresMaintenance } from './postgres-maintenance.js';
import { createSchema } from './postgres-schema.js';
import { settleWithin, StoreSockets } from './store-sockets.js';
import { preparePlainObject, putPreparedPlainObjects } from '../prepared-objects.js';
import { consecutiveSlices } from '../consecutive-slices.js';

export interface PostgresJobStoreOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). */
  connectionString: string;
  /** Connections in the pool (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection before failing with a retryable error (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * How long to wait for a statement's answer before failing with a retryable error (default
   * 60 s): a database that stops answering without closing the connection (a network
   * partition) must not hang an activity until its own timeout.
   */
  queryTimeoutMs?: number;
  /** How `followEvents` polls. */
  follow?: FollowOptions;
  /**
   * How long `close()` waits for the database to end the connections before closing them
   * without it (default 5 s).
   */
  closeTimeoutMs?: number;
}

/**
 * Rows and bytes per INSERT of a batch, to stay far below PostgreSQL's limits of 65,535
 * parameters and 1 GB per message. Rows go as parameters of a VALUES list rather than as
 * arrays: an array literal of megabytes of text is slow to escape and to parse.
 */
const ROWS_PER_STATEMENT = 500;
const BYTES_PER_STATEMENT = 64 * 1024 * 1024;

/**
 * Objects whose bodies add up to at most this are inserted without asking first which are
 * stored: sending a few kilobytes again costs less than a round trip.
 */
const SEND_WITHOUT_LOOKUP_BYTES = 16 * 1024;

/**
 * The job store on PostgreSQL: three tables (`dar_store_objects`, `dar_store_events`,
 * `dar_store_records`), created on first use. Objects and events are inserted with
 * `ON CONFLICT`, so retries and concurrent writers of the same data store nothing new (an
 * object's put refreshes only its `touched_at`, for the pruner, see `StoreMaintenance`);
 * bodies are kept as their own JSON text (not jsonb, which would reorder and re-encode them)
 * and checked against their hash when read. Followers are woken by LISTEN/NOTIFY (see
 * `EventNotices`) and poll as well. A lost database makes calls fail with
 * `StoreUnavailableError`; the pool opens new connections once it is back.
 */
export class PostgresJobStore implements JobStore {
  private readonly pool: pg.Pool;
  private readonly follow: FollowOptions;
  private readonly notices: EventNotices;
  private schemaReady: Promise<void> | undefined;
  private closed = false;
  private readonly sockets = new StoreSockets();
  private readonly closeLimitMs: number;
  private operations: PostgresMaintenance | undefined;

  constructor(options: PostgresJobStoreOptions) {
    this.closeLimitMs = options.closeTimeoutMs ?? 5_000;
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      stream: this.sockets.create,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      query_timeout: options.queryTimeoutMs ?? 60_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      allowExitOnIdle: true,
    });
    // An idle connection that the server closes (a restart, a failover) is reported here and
    // dropped by the pool; without a listener the error would crash the process.
    this.pool.on('error', () => undefined);
    this.follow = options.follow ?? {};
    this.notices = new EventNotices(options.connectionString, this.sockets.create);
  }

  async putObject(value: unknown): Promise<ObjectRef> {
    const [ref] = await this.putObjects([value]);
    return ref as ObjectRef;
  }

  async putObjects(values: readonly unknown[]): Promise<ObjectRef[]> {
    const texts = new Map<ObjectRef, string>();
    const refs = values.map((value) => {
      const { ref, text } = encodeObject(value);
      if (!texts.has(ref)) texts.set(ref, text);
      return ref;
    });
    if (texts.size === 0) return refs;
    // In ref order, so that concurrent puts of overlapping batches lock rows in one order.
    let candidates = [...texts.entries()]
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([ref, text]) => ({ ref, text, bytes: Buffer.byteLength(text, 'utf8') }));
    // Large objects already stored are not sent again (a transcript written every turn costs
    // only its new messages); small ones go straight to the INSERT, which skips those stored:
    // one statement and one commit instead of two round trips, for a turn's answer, node or
    // tool result.
    if (candidates.reduce((total, object) => total + object.bytes, 0) > SEND_WITHOUT_LOOKUP_BYTES) {
      const stored = await this.touchStoredObjects(candidates.map((object) => object.ref));
      candidates = candidates.filter((object) => !stored.has(object.ref));
    }
    for (const slice of statementSlices(candidates)) {
      const interval = slice.length * 3 + 1;
      // A stored object is refreshed (or was, within the interval) rather than skipped: the
      // pruner's DELETE re-checks touched_at after this row lock, so it keeps the object.
      await this.query(
        'store objects',
        `INSERT INTO dar_store_objects (ref, body, size_bytes) VALUES ${valuesList(slice.length, 3)}
         ON CONFLICT (ref) DO UPDATE SET touched_at = now()
         WHERE dar_store_objects.touched_at < now() - $${interval}::double precision * interval '1 millisecond'`,
        [
          ...slice.flatMap((object) => [object.ref, object.text, object.bytes]),
          OBJECT_TOUCH_INTERVAL_MS,
        ],
      );
    }
    return refs;
  }

  /**
   * Which of `refs` are stored and will stay so: those touched longer ago than the interval are
   * touched now, in the same statement. Never reports an object that a concurrent pruner is
   * deleting: the UPDATE waits for the DELETE's row lock and then skips the deleted row, so the
   * object is not returned and is inserted again; a row touched within the interval cannot be
   * deleted (the pruner's cutoff is older than the interval). The SELECT sees the statement's
   * snapshot, which the UPDATE's changes are not in, so no ref is returned twice.
   */
  private async touchStoredObjects(refs: readonly ObjectRef[]): Promise<Set<ObjectRef>> {
    const { rows } = await this.query<{ ref: ObjectRef }>(
      'look up objects',
      `WITH touched AS (
         UPDATE dar_store_objects SET touched_at = now()
         WHERE ref = ANY($1::text[])
           AND touched_at < now() - $2::double precision * interval '1 millisecond'
         RETURNING ref
       )
       SELECT ref FROM touched
       UNION ALL
       SELECT ref FROM dar_store_objects
       WHERE ref = ANY($1::text[])
         AND touched_at >= now() - $2::double precision * interval '1 millisecond'`,
      [refs, OBJECT_TOUCH_INTERVAL_MS],
    );
    return new Set(rows.map((row) => row.ref));
  }

  prepareObject(value: unknown): PreparedObject {
    this.checkOpen();
    return preparePlainObject(value);
  }

  async putPreparedObjects(objects: readonly PreparedObject[]): Promise<void> {
    await putPreparedPlainObjects(this, objects);
  }

  async getObject(ref: ObjectRef): Promise<JsonValue> {
    const [value] = await this.getObjects([ref]);
    return value as JsonValue;
  }

  async getObjects(refs: readonly ObjectRef[]): Promise<JsonValue[]> {
    refs.forEach(checkRef);
    const unique = [...new Set(refs)];
    const { rows } = await this.query<{ ref: ObjectRef; body: string }>(
      'read objects',
      'SELECT ref, body FROM dar_store_objects WHERE ref = ANY($1::text[])',
      [unique],
    );
    const bodies = new Map(rows.map((row) => [row.ref, row.body]));
    for (const ref of unique) {
      const body = bodies.get(ref);
      if (body === undefined) throw new ObjectNotFound(ref);
      if (!textMatchesRef(ref, body)) {
        throw new StoreCorruptionError(`Object ${ref} in the database does not match its hash`);
      }
    }
    // Parsed per position: a caller changing one value must not change another.
    return refs.map((ref) => JSON.parse(bodies.get(ref) as string) as JsonValue);
  }

  async appendEvents(
    jobId: string,
    events: readonly EventToAppend[],
    options: AppendEventsOptions = {},
  ): Promise<void> {
    const prepared = prepareEvents(jobId, events);
    for (const slice of statementSlices(prepared)) {
      // Followers listening on the channel hear of the new rows (sent at commit, once per job).
      const notice = slice.length * 4 + 1;
      const { rows } = await this.query<{ seq: string }>(
        'append events',
        `WITH inserted AS (
           INSERT INTO dar_store_events (job_id, seq, body, size_bytes)
           VALUES ${valuesList(slice.length, 4)}
           ON CONFLICT (job_id, seq) DO NOTHING
           RETURNING seq
         )
         SELECT seq, pg_notify('${EVENTS_CHANNEL}', $${notice}) FROM inserted`,
        [
          ...slice.flatMap((event) => [jobId, event.seq, event.text, event.bytes]),
          sha256Hex(jobId),
        ],
      );
      if (rows.length === slice.length) continue;
      // Some seqs were there already: a retry (same content, fine) or a bug (different content).
      const inserted = new Set(rows.map((row) => Number(row.seq)));
      const existing = slice.filter((event) => !inserted.has(event.seq));
      const stored = await this.query<{ seq: string; body: string }>(
        'compare appended events',
        'SELECT seq, body FROM dar_store_events WHERE job_id = $1 AND seq = ANY($2::bigint[])',
        [jobId, existing.map((event) => event.seq)],
      );
      const bodies = new Map(stored.rows.map((row) => [Number(row.seq), row.body]));
      const differing: PreparedEvent[] = [];
      for (const event of existing) {
        const body = bodies.get(event.seq);
        if (body !== undefined && sameEvent(body, event)) continue;
        if (!options.replace) throw new EventConflict(jobId, event.seq);
        differing.push(event);
      }
      if (differing.length > 0) await this.replaceEvents(jobId, differing);
    }
  }

  /** Overwrites stored events (the progress writer's `replace`); followers are told. */
  private async replaceEvents(jobId: string, events: readonly PreparedEvent[]): Promise<void> {
    for (const event of events) {
      await this.query(
        'replace event',
        `INSERT INTO dar_store_events (job_id, seq, body, size_bytes) VALUES ($1, $2, $3, $4)
         ON CONFLICT (job_id, seq) DO UPDATE SET body = excluded.body, size_bytes = excluded.size_bytes`,
        [jobId, event.seq, event.text, event.bytes],
      );
    }
    await this.query('notify followers', `SELECT pg_notify('${EVENTS_CHANNEL}', $1)`, [
      sha256Hex(jobId),
    ]);
  }

  async readEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    checkJobId(jobId);
    const { afterSeq, limit, maxBytes } = eventPageBounds(options);
    // The running byte total cuts the page; the first event is always kept.
    const { rows } = await this.query<{ seq: string; body: string }>(
      'read events',
      `SELECT seq, body FROM (
         SELECT seq, body,
                row_number() OVER (ORDER BY seq) AS position,
                sum(size_bytes) OVER (ORDER BY seq) AS running_bytes
         FROM (SELECT seq, body, size_bytes FROM dar_store_events
               WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3) AS candidates
       ) AS counted
       WHERE position = 1 OR running_bytes <= $4
       ORDER BY seq`,
      [jobId, afterSeq, limit, maxBytes],
    );
    return rows.map((row) => {
      const seq = Number(row.seq);
      try {
        return { seq, event: JSON.parse(row.body) as JsonValue };
      } catch (error) {
        throw new StoreCorruptionError(`Event ${seq} of job ${jobId} is not JSON`, {
          cause: error,
        });
      }
    });
  }

  async lastSeq(jobId: string): Promise<number> {
    checkJobId(jobId);
    const { rows } = await this.query<{ last: string | null }>(
      'read the last event',
      'SELECT max(seq) AS last FROM dar_store_events WHERE job_id = $1',
      [jobId],
    );
    return Number(rows[0]?.last ?? 0);
  }

  followEvents(jobId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    this.checkOpen();
    checkJobId(jobId);
    const jobKey = sha256Hex(jobId);
    return pollEvents(
      (cursor) => this.readEvents(jobId, { afterSeq: cursor }),
      afterSeq,
      signal,
      this.follow,
      (milliseconds, waitSignal) => this.notices.wait(jobKey, milliseconds, waitSignal),
    );
  }

  async appendLiveEvents(jobId: string, events: readonly unknown[]): Promise<number[]> {
    checkJobId(jobId);
    const texts = events.map((event) => {
      canonicalJson(event); // rejects what JSON cannot carry, like the event stream does
      return JSON.stringify(event);
    });
    if (texts.length === 0) return [];
    // One statement, so one transaction: the head row stays locked until the rows are
    // committed, so a second writer's seqs become visible only after these (no gap to pass).
    const { rows } = await this.query<{ seq: string }>(
      'append live events',
      `WITH head AS (
         INSERT INTO dar_store_live_heads (job_id, last_seq) VALUES ($1, $3)
         ON CONFLICT (job_id) DO UPDATE SET last_seq = dar_store_live_heads.last_seq + $3
         RETURNING last_seq
       ), inserted AS (
         INSERT INTO dar_store_live (job_id, seq, body, size_bytes)
         SELECT $1, head.last_seq - $3 + item.position, item.body, octet_length(item.body)
         FROM head, unnest($2::text[]) WITH ORDINALITY AS item(body, position)
         RETURNING seq
       )
       SELECT seq, pg_notify('${EVENTS_CHANNEL}', $4) FROM inserted ORDER BY seq`,
      [jobId, texts, texts.length, sha256Hex(jobId)],
    );
    return rows.map((row) => Number(row.seq));
  }

  async readLiveEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    checkJobId(jobId);
    const { afterSeq, limit, maxBytes } = eventPageBounds(options);
    const { rows } = await this.query<{ seq: string; body: string }>(
      'read live events',
      `SELECT seq, body FROM (
         SELECT seq, body,
                row_number() OVER (ORDER BY seq) AS position,
                sum(size_bytes) OVER (ORDER BY seq) AS running_bytes
         FROM (SELECT seq, body, size_bytes FROM dar_store_live
               WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3) AS candidates
       ) AS counted
       WHERE position = 1 OR running_bytes <= $4
       ORDER BY seq`,
      [jobId, afterSeq, limit, maxBytes],
    );
    return rows.map((row) => ({ seq: Number(row.seq), event: JSON.parse(row.body) as JsonValue }));
  }

  async dropLiveEvents(jobId: string, upToSeq: number): Promise<void> {
    checkJobId(jobId);
    if (!Number.isSafeInteger(upToSeq) || upToSeq < 0) {
      throw new JobStoreError(`upToSeq must be a non-negative integer, not ${String(upToSeq)}`);
    }
    await this.query(
      'drop live events',
      'DELETE FROM dar_store_live WHERE job_id = $1 AND seq <= $2',
      [jobId, upToSeq],
    );
  }

  /**
   * A record with `durable: false` is committed without waiting for the write-ahead log's
   * flush (`synchronous_commit` off for its transaction alone): other sessions see it at once,
   * and a power loss can lose only the last such commits, never reorder or tear them, since the
   * log is flushed in order (the next durable commit flushes them too).
   */
  async putRecord(
    namespace: string,
    key: string,
    value: unknown,
    options: PutRecordOptions = {},
  ): Promise<void> {
    checkRecordName(namespace, key);
    const values = [namespace, key, canonicalJson(value)];
    if (options.durable ?? true) {
      await this.query(
        'store a record',
        `INSERT INTO dar_store_records (namespace, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        values,
      );
      return;
    }
    // set_config(..., true) lasts to the end of this statement's own transaction, whose commit
    // reads it.
    await this.query(
      'store a record',
      `INSERT INTO dar_store_records (namespace, key, value)
       SELECT $1, $2, $3 FROM (SELECT set_config('synchronous_commit', 'off', true)) AS setting
       ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      values,
    );
  }

  async getRecord(namespace: string, key: string): Promise<JsonValue | undefined> {
    checkRecordName(namespace, key);
    const { rows } = await this.query<{ value: string }>(
      'read a record',
      'SELECT value FROM dar_store_records WHERE namespace = $1 AND key = $2',
      [namespace, key],
    );
    const row = rows[0];
    return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
  }

  maintenance(): StoreMaintenance {
    this.operations ??= new PostgresMaintenance(this.query.bind(this));
    return this.operations;
  }

  /**
   * Ends every connection. A database that stopped answering cannot hold it up: past
   * `closeTimeoutMs` the connections are closed without waiting for it, and a statement still
   * waiting for its answer fails. Never waits longer than that, plus a moment.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await settleWithin(
      Promise.all([this.notices.close(), this.pool.end()]),
      this.closeLimitMs,
      () => this.sockets.destroyAll(),
    );
  }

  /** Runs one statement once the schema exists; `pg` failures become store errors. */
  private async query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    action: string,
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<Row>> {
    this.checkOpen();
    try {
      await this.ensureSchema();
      return await this.pool.query<Row>(text, values);
    } catch (error) {
      throw postgresFailure(error, action);
    }
  }

  /** Creates the tables once per store; a failed attempt (database down) is tried again. */
  private ensureSchema(): Promise<void> {
    this.schemaReady ??= createSchema(this.pool).catch((error: unknown) => {
      this.schemaReady = undefined;
      throw error;
    });
    return this.schemaReady;
  }

  private checkOpen(): void {
    if (this.closed) throw new JobStoreError('The job store is closed');
  }
}

/** `($1, $2), ($3, $4)` for `rows` rows of `columns` parameters. */
function valuesList(rows: number, columns: number): string {
  return Array.from(
    { length: rows },
    (_, row) =>
      `(${Array.from({ length: columns }, (_, column) => `$${row * columns + column + 1}`).join(', ')})`,
  ).join(', ');
}

/** Consecutive slices of `rows` within the rows and bytes of one statement (never empty). */
function statementSlices<Row extends { bytes: number }>(rows: readonly Row[]): Row[][] {
  return consecutiveSlices(
    rows,
    (row, slice, bytes) =>
      slice.length < ROWS_PER_STATEMENT && bytes + row.bytes <= BYTES_PER_STATEMENT,
  );
}
