import {
  resolveConnectionSettings,
  ConnectionSettingsError,
} from '../../server/connection-settings.js';
import type { AgentJob } from '../../client/job-client.js';
import type { JobStore } from '../../store/job-store.js';
import type { SequencedEvent } from '../../workflows/job-types.js';
import { stdoutClosed } from '../closed-output.js';
import { createFollowPrinter } from '../follow-printer.js';
import { passEventPages } from '../event-pages.js';
import { passFinishedJobEvents } from '../finished-job-events.js';
import { openCliJobStore } from '../job-store-connection.js';
import { parseFlags } from '../parse-flags.js';
import { jobIdArgument } from '../job-id-argument.js';
import { storeHoldsNothingOfEndedJob } from '../../client/deleted-job-data.js';
import { prunedJobNote } from '../pruned-job.js';
import { UsageError, EXIT_FAILED, EXIT_OK } from '../usage-error.js';

/**
 * Prints a finished job's events from the job store alone (see {@link passFinishedJobEvents});
 * false when the store does not say the job ended.
 */
async function printEventsOfFinishedJob(
  stateDir: string | undefined,
  jobId: string,
  afterSeq: number,
  print: (event: SequencedEvent) => void,
  stopAtEnd: boolean,
): Promise<boolean> {
  let settings;
  try {
    settings = resolveConnectionSettings(process.env, stateDir ? { stateDir } : {});
  } catch (error) {
    if (error instanceof ConnectionSettingsError) throw new UsageError(error.message);
    throw error;
  }
  const store = await openCliJobStore(settings, stateDir);
  try {
    return await passFinishedJobEvents(store, jobId, afterSeq, print, {
      stopAtEnd,
      signal: stdoutClosed,
    });
  } finally {
    await store.close();
  }
}

/**
 * What `dar events --follow` says of a job that closed with no `agent_end` after `--after`: its
 * data was deleted (as plain `dar events` says, exit 1); it ended through its own end, its
 * `agent_end` at or before `--after` (nothing to say, exit 0); or it closed without one
 * (terminated, timed out: exit 1).
 */
async function endedWithoutFollowedEnd(
  store: JobStore,
  job: AgentJob,
  printedNothing: boolean,
): Promise<number> {
  const description = await job.handle.describe().catch(() => undefined);
  if (printedNothing && description && (await storeHoldsNothingOfEndedJob(store, description))) {
    process.stderr.write(prunedJobNote(job.workflowId));
    return EXIT_FAILED;
  }
  // The job writes phase `done` after its last event: its run ended as runs do.
  if ((await job.storedStatus())?.phase === 'done') return EXIT_OK;
  const status = description?.status.name.toLowerCase().replace(/_/g, ' ') ?? 'closed';
  process.stderr.write(`Job ${job.workflowId} ended (${status}) without an agent_end event.\n`);
  return EXIT_FAILED;
}

export async function eventsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'events',
    argv,
    {
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
      live: { type: 'boolean' },
      after: { type: 'string' },
      'state-dir': { type: 'string' },
    },
    { min: 1, max: 1, names: 'a job id' },
  );
  const cursor = /^(\d+)(?::(\d+))?$/.exec(values.after ?? '0');
  const afterSeq = Number(cursor?.[1]);
  const afterLiveSeq = Number(cursor?.[2] ?? '0');
  // Past the safe integers a number cannot name one event: the store refuses it.
  if (!Number.isSafeInteger(afterSeq) || !Number.isSafeInteger(afterLiveSeq)) {
    throw new UsageError(
      `--after must be a sequence number (SEQ) or a live cursor (SEQ:LIVESEQ), each at most ` +
        `${Number.MAX_SAFE_INTEGER}, not "${values.after}"`,
    );
  }
  const jobId = jobIdArgument(positionals);
  const printer = createFollowPrinter({ json: values.json ?? false, out: process.stdout });
  const print = (event: SequencedEvent) => printer.event(event);

  // A finished job is read from the store at once, without connecting to Temporal.
  const stopAtEnd = values.follow ?? false;
  if (await printEventsOfFinishedJob(values['state-dir'], jobId, afterSeq, print, stopAtEnd)) {
    return EXIT_OK;
  }

  const { openConnection } = await import('../connection.js');
  const { describedJob, readJob } = await import('../job-reader.js');
  const connection = await openConnection(values['state-dir'], { jobId });
  try {
    const { job, description } = await describedJob(connection, jobId);
    if (values.follow) {
      // The live stream too (tokens and tool output as they come, between the job's events);
      // JSON lines hold the job's events alone unless --live asks for live lines as well.
      const live = values.json && !values.live ? undefined : { afterLiveSeq, onLive: printer.live };
      // A kept-open job waiting for a message: its last run has ended, the next one is followed.
      const stored = description.status.name === 'RUNNING' ? await job.storedStatus() : undefined;
      const endAfterSeq = stored?.phase === 'waiting' ? { endAfterSeq: stored.lastSeq } : {};
      let printed = 0;
      let end;
      try {
        end = await readJob(connection, job, (reader) =>
          reader.follow(
            (event) => {
              printed += 1;
              print(event);
            },
            { afterSeq, signal: stdoutClosed, ...endAfterSeq, ...(live ? { live } : {}) },
          ),
        );
      } catch (error) {
        // The reader of the output went away (`| head`): nothing more to show, no failure.
        if (!stdoutClosed.aborted) throw error;
        return EXIT_OK;
      }
      if (end !== undefined) return EXIT_OK;
      return await endedWithoutFollowedEnd(connection.store, job, printed === 0);
    }
    // Pages are bounded in size too, so a short page is not the last one: read until an empty
    // page, each printed as it comes. The read may be tried again on a workflow-only worker of
    // this command's own; the cursor keeps what was printed from being printed twice.
    const printed = { seq: afterSeq };
    await readJob(connection, job, (reader) =>
      passEventPages((seq) => reader.events(seq), printed, print, { signal: stdoutClosed }),
    );
    if (printed.seq === 0 && (await storeHoldsNothingOfEndedJob(connection.store, description))) {
      process.stderr.write(prunedJobNote(jobId));
      return EXIT_FAILED;
    }
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}
