import { dar, describeResult, linesOf, type DarOptions } from './dar.js';
import { waitFor } from './wait.js';

/** One line of `--json` event output. */
export interface EventLine {
  seq: number;
  type: string;
  [field: string]: unknown;
}

/** Parses JSON-lines output; throws naming the first line that is not a JSON object. */
export function parseJsonLines(stdout: string): Array<Record<string, unknown>> {
  return linesOf(stdout).map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`Output line ${index + 1} is not JSON: ${line}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`Output line ${index + 1} is not a JSON object: ${line}`);
    }
    return value as Record<string, unknown>;
  });
}

/** What `dar status ID --json` prints. */
export interface StatusLine {
  workflowStatus: string;
  phase: string;
  turns: number;
  lastSeq: number;
  cancelled: boolean;
  stopReason?: string;
}

/** `dar status ID --json`, parsed; throws with the output when it fails. */
export async function jobStatus(id: string, options: DarOptions): Promise<StatusLine> {
  const result = await dar(['status', id, '--json'], { timeoutMs: 60_000, ...options });
  if (result.code !== 0) throw new Error(`dar status failed: ${describeResult(result)}`);
  return JSON.parse(result.stdout) as StatusLine;
}

/** Polls `dar status ID --json` until the job is done and its workflow completed. */
export function waitForCompletedJob(
  id: string,
  options: DarOptions,
  timeoutMs: number,
): Promise<StatusLine> {
  return waitFor(
    `job ${id} to complete`,
    async () => {
      const status = await jobStatus(id, options);
      return status.phase === 'done' && status.workflowStatus === 'COMPLETED' && status;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

/** `dar events ID --json`, parsed and checked to be event lines. */
export async function jobEvents(id: string, options: DarOptions): Promise<EventLine[]> {
  const result = await dar(['events', id, '--json'], { timeoutMs: 60_000, ...options });
  if (result.code !== 0) throw new Error(`dar events failed: ${describeResult(result)}`);
  return parseJsonLines(result.stdout).map((event) => {
    if (typeof event.seq !== 'number' || typeof event.type !== 'string') {
      throw new Error(`Not an event line: ${JSON.stringify(event)}`);
    }
    return event as EventLine;
  });
}
