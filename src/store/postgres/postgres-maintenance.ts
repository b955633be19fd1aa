import type pg from 'pg';
import { checkJobId, checkRecordName, checkRef } from '../store-arguments.js';
import { JobStoreError } from '../store-errors.js';
import type {
  AbandonedWrites,
  RecordKey,
  RemovedObjects,
  StaleObject,
  StoreMaintenance,
} from '../store-maintenance.js';
import type { ObjectRef } from '../references.js';

/** Runs one statement once the schema exists; `pg` failures become store errors. */
export type PostgresQuery = <Row extends pg.QueryResultRow = pg.QueryResultRow>(
  action: string,
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<Row>>;

/** Rows per page of a listing, and refs per DELETE. */
const PAGE_ROWS = 1000;

/**
 * The PostgreSQL store's clean-up operations. Listings page by primary key, so rows deleted
 * between pages move no cursor. Objects are removed by `touched_at`, which every put refreshes
 * (see `PostgresJobStore.putObjects`): the DELETE runs in READ COMMITTED, so a row that a
 * concurrent put refreshed is checked again after its lock and kept.
 */
export class PostgresMaintenance implements StoreMaintenance {
  constructor(private readonly query: PostgresQuery) {}

  async currentTimeMs(): Promise<number> {
    const { rows } = await this.query<{ now_ms: number | string }>(
      'read the database clock',
      'SELECT (extract(epoch FROM now()) * 1000)::double precision AS now_ms',
      [],
    );
    return Number(rows[0]?.now_ms);
  }

  async *listRecordKeys(namespace: string): AsyncIterable<RecordKey> {
    if (typeof namespace !== 'string' || namespace.length === 0) {
      throw new JobStoreError('A record namespace must be a non-empty string');
    }
    let after = '';
    for (;;) {
      // Read as epoch milliseconds in SQL: no time zone to parse.
      const { rows } = await this.query<{ key: string; written_at_ms: number | string }>(
        'list record keys',
        `SELECT key, (extract(epoch FROM updated_at) * 1000)::double precision AS written_at_ms
         FROM dar_store_records WHERE namespace = $1 AND key > $2 ORDER BY key LIMIT $3`,
        [namespace, after, PAGE_ROWS],
      );
      for (const row of rows) yield { key: row.key, writtenAtMs: Number(row.written_at_ms) };
      const last = rows.at(-1);
      if (last === undefined || rows.length < PAGE_ROWS) return;
      after = last.key;
    }
  }

  async deleteRecord(namespace: string, key: string): Promise<void> {
    checkRecordName(namespace, key);
    await this.query(
      'delete a record',
      'DELETE FROM dar_store_records WHERE namespace = $1 AND key = $2',
      [namespace, key],
    );
  }

  async deleteJobStreams(jobId: string): Promise<void> {
    checkJobId(jobId);
    // One statement, so one transaction: the three tables lose the job together.
    await this.query(
      "delete a job's streams",
      `WITH events AS (DELETE FROM dar_store_events WHERE job_id = $1),
            live AS (DELETE FROM dar_store_live WHERE job_id = $1)
       DELETE FROM dar_store_live_heads WHERE job_id = $1`,
      [jobId],
    );
  }

  listObjectsPutBefore(cutoffMs: number): AsyncIterable<readonly StaleObject[]> {
    return this.listObjects('<', cutoffMs);
  }

  listObjectsPutSince(cutoffMs: number): AsyncIterable<readonly StaleObject[]> {
    return this.listObjects('>=', cutoffMs);
  }

  /** The objects whose `touched_at` compares so with the cutoff, in pages by ref. */
  private async *listObjects(
    comparison: '<' | '>=',
    cutoffMs: number,
  ): AsyncIterable<readonly StaleObject[]> {
    checkCutoff(cutoffMs);
    let after = '';
    for (;;) {
      const { rows } = await this.query<{ ref: ObjectRef; size_bytes: number }>(
        'list objects by put time',
        `SELECT ref, size_bytes FROM dar_store_objects
         WHERE touched_at ${comparison} to_timestamp($1::double precision / 1000) AND ref > $2
         ORDER BY ref LIMIT $3`,
        [cutoffMs, after, PAGE_ROWS],
      );
      const last = rows.at(-1);
      if (last === undefined) return;
      yield rows.map((row) => ({ ref: row.ref, bytes: row.size_bytes }));
      if (rows.length < PAGE_ROWS) return;
      after = last.ref;
    }
  }

  async removeObjectsPutBefore(
    refs: readonly ObjectRef[],
    cutoffMs: number,
  ): Promise<RemovedObjects> {
    refs.forEach(checkRef);
    checkCutoff(cutoffMs);
    const sorted = [...new Set(refs)].sort();
    const removed: RemovedObjects = { count: 0, bytes: 0 };
    for (let start = 0; start < sorted.length; start += PAGE_ROWS) {
      const { rows } = await this.query<{ size_bytes: number }>(
        'remove objects put before a time',
        `DELETE FROM dar_store_objects
         WHERE ref = ANY($1::text[]) AND touched_at < to_timestamp($2::double precision / 1000)
         RETURNING size_bytes`,
        [sorted.slice(start, start + PAGE_ROWS), cutoffMs],
      );
      removed.count += rows.length;
      removed.bytes += rows.reduce((total, row) => total + row.size_bytes, 0);
    }
    return removed;
  }

  /** None: every write is one statement, whose transaction a dying client's connection rolls back. */
  removeAbandonedWrites(cutoffMs: number): Promise<AbandonedWrites> {
    checkCutoff(cutoffMs);
    return Promise.resolve({ count: 0, bytes: 0 });
  }
}

function checkCutoff(cutoffMs: number): void {
  if (typeof cutoffMs !== 'number' || !Number.isFinite(cutoffMs)) {
    throw new JobStoreError(`cutoffMs must be a finite number, not ${String(cutoffMs)}`);
  }
}
