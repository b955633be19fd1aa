import { appendFile } from 'node:fs/promises';

/** The points at which a file tool can be held for a crash test. */
export const PAUSE_BEFORE_FILE_CHANGE = 'DAR_TEST_PAUSE_BEFORE_FILE_CHANGE';
export const PAUSE_AFTER_FILE_CHANGE = 'DAR_TEST_PAUSE_AFTER_FILE_CHANGE';
/** The model activity, held once the paid answer is stored and before it completes. */
export const PAUSE_AFTER_MODEL_ANSWER = 'DAR_TEST_PAUSE_AFTER_MODEL_ANSWER';
/** A call of a tool that is not replay-safe, held once its ending is remembered. */
export const PAUSE_AFTER_TOOL_RESULT = 'DAR_TEST_PAUSE_AFTER_TOOL_RESULT';
/** `dar prune --apply`, held once it deleted a job's streams, before the job's records. */
export const PAUSE_PRUNE_AFTER_JOB_STREAMS = 'DAR_TEST_PAUSE_PRUNE_AFTER_JOB_STREAMS';
/** `dar prune --apply` on the embedded store, held once it moved an object aside to remove it. */
export const PAUSE_PRUNE_OBJECT_ASIDE = 'DAR_TEST_PAUSE_PRUNE_OBJECT_ASIDE';

/**
 * Test hook, for crash tests only: when the environment variable `variable` names a file, appends
 * a line (the worker's pid) to that marker file and then never returns, so that a test can SIGKILL
 * the worker at exactly this point (one line per held call, when several calls run at once).
 * Does nothing (resolves at once) when the variable is unset or empty.
 */
export async function pauseForTest(variable: string): Promise<void> {
  const marker = process.env[variable];
  if (!marker) return;
  await appendFile(marker, `${process.pid}\n`);
  await new Promise<never>(() => {
    // Held until the process is killed; the timer keeps a process with nothing else to do
    // (a CLI command) from exiting meanwhile.
    setInterval(() => undefined, 60_000);
  });
}
