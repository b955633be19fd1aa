import type { Pool } from 'pg';

/**
 * An arbitrary constant: the advisory lock that serialises schema creation, because two
 * concurrent `CREATE TABLE IF NOT EXISTS` of one table can still fail on PostgreSQL's catalog.
 */
const SCHEMA_LOCK = 4_637_021_958;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS dar_store_objects (
     ref text PRIMARY KEY,
     body text NOT NULL,
     size_bytes integer NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS dar_store_events (
     job_id text NOT NULL,
     seq bigint NOT NULL,
     body text NOT NULL,
     size_bytes integer NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (job_id, seq)
   )`,
  `CREATE TABLE IF NOT EXISTS dar_store_records (
     namespace text NOT NULL,
     key text NOT NULL,
     value text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (namespace, key)
   )`,
  // The live stream (token deltas, command output): rows come and go; the head keeps counting.
  `CREATE TABLE IF NOT EXISTS dar_store_live (
     job_id text NOT NULL,
     seq bigint NOT NULL,
     body text NOT NULL,
     size_bytes integer NOT NULL,
     PRIMARY KEY (job_id, seq)
   )`,
  `CREATE TABLE IF NOT EXISTS dar_store_live_heads (
     job_id text PRIMARY KEY,
     last_seq bigint NOT NULL
   )`,
];

/** Creates the store's tables where missing, in one transaction under an advisory lock. */
export async function createSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    for (const statement of SCHEMA) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // A client that failed is dropped rather than returned to the pool.
    client.release(failure instanceof Error ? failure : undefined);
  }
}
