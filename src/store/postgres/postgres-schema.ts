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
     created_at timestamptz NOT NULL DEFAULT now(),
     touched_at timestamptz NOT NULL DEFAULT now()
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
  // An object's last put or refresh (a re-put refreshes it, see OBJECT_TOUCH_INTERVAL_MS): the
  // pruner removes only objects touched before its cutoff. Rows of an older schema read as
  // touched now, the safe direction. Each change is made only when missing: ALTER TABLE and
  // CREATE INDEX lock the table even when IF NOT EXISTS finds nothing to do, and that lock
  // would queue every store's statements behind any long transaction on the table.
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT FROM pg_attribute
                    WHERE attrelid = 'dar_store_objects'::regclass
                      AND attname = 'touched_at' AND NOT attisdropped) THEN
       ALTER TABLE dar_store_objects
         ADD COLUMN IF NOT EXISTS touched_at timestamptz NOT NULL DEFAULT now();
     END IF;
     IF to_regclass('dar_store_objects_touched_at') IS NULL THEN
       CREATE INDEX IF NOT EXISTS dar_store_objects_touched_at ON dar_store_objects (touched_at);
     END IF;
   END $$`,
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
