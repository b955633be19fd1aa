import { checkFlagDuration, parseDuration } from '../../job-input/duration.js';
import {
  DEFAULT_GRACE_MS,
  MINIMUM_GRACE_MS,
  pruneStore,
  type PruneReport,
} from '../../retention/prune-store.js';
import { temporalJobDirectory } from '../../retention/temporal-job-directory.js';
import { openConnection } from '../connection.js';
import { parseFlags } from '../parse-flags.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

export async function pruneCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    'prune',
    argv,
    {
      'older-than': { type: 'string' },
      grace: { type: 'string' },
      apply: { type: 'boolean' },
      'forget-unfinished': { type: 'boolean' },
      json: { type: 'boolean' },
      'state-dir': { type: 'string' },
    },
    { min: 0, max: 0, names: 'no argument' },
  );
  if (values['older-than'] === undefined) {
    throw new UsageError('--older-than is required: how long ago a job must have ended, e.g. 30d');
  }
  const olderThanMs = durationFlag('--older-than', values['older-than']);
  const graceMs =
    values.grace === undefined ? DEFAULT_GRACE_MS : durationFlag('--grace', values.grace);
  if (graceMs < MINIMUM_GRACE_MS) {
    throw new UsageError(
      `--grace must be at least ${MINIMUM_GRACE_MS / 60_000}m, not ${values.grace}`,
    );
  }
  const connection = await openConnection(values['state-dir']);
  try {
    const report = await pruneStore({
      store: connection.store,
      directory: temporalJobDirectory(connection.client),
      olderThanMs,
      graceMs,
      apply: values.apply ?? false,
      forgetUnfinished: values['forget-unfinished'] ?? false,
      onProgress: (line) => process.stderr.write(`${line}\n`),
    });
    if (values.json) console.log(JSON.stringify(report));
    else for (const line of reportLines(report, olderThanMs)) console.log(line);
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}

/**
 * A duration flag: `30d` (days, which the other flags do not take), or `12h`, `90m` ... Zero
 * (`0d`, `0s`) is a duration too: `--older-than 0d` prunes every job that has ended. At most
 * 100 years.
 */
function durationFlag(flag: string, text: string): number {
  if (/^0+(?:\.0+)?(?:ms|s|m|h|d)$/.test(text.trim())) return 0;
  const days = /^(\d+(?:\.\d+)?)d$/.exec(text.trim())?.[1];
  const milliseconds = days === undefined ? parseDuration(text) : Number(days) * 86_400_000;
  if (milliseconds === undefined || !(milliseconds >= 1)) {
    throw new UsageError(`${flag} must be a duration such as 30d, 12h or 90m, not "${text}"`);
  }
  checkFlagDuration(flag, text, milliseconds);
  return milliseconds;
}

function reportLines(report: PruneReport, olderThanMs: number): string[] {
  const verb = report.applied ? 'Deleted' : 'Would delete';
  const objects = report.removedObjects;
  const lines = [
    report.applied
      ? 'Pruned the job store.'
      : 'Dry run: nothing was deleted (add --apply to delete).',
    `${verb} ${report.deletedJobs.length} jobs that ${endedWhen(olderThanMs)} ` +
      `(events, live events, records); ${report.keptJobs} kept.`,
    `${verb} ${report.deletedToolCallRecords} records of tool calls of runs that ended.`,
  ];
  if (report.objectCutoffMs === undefined) {
    lines.push(`Removed no object: ${report.objectsKeptBecause ?? 'no cutoff'}.`);
  } else {
    lines.push(
      `${report.applied ? 'Removed' : 'Would remove'} ${objects.count} objects (${megabytes(objects.bytes)}) ` +
        `that no kept job reaches, put before ${new Date(report.objectCutoffMs).toISOString()}; ` +
        `${report.reachableObjects} kept as in use.`,
    );
    if (report.cutoffHeldBy !== undefined) {
      lines.push(
        `Objects put since running workflow ${report.cutoffHeldBy} started (less the grace) are ` +
          'kept while it runs; a job stops holding them back once it waits for a message or ' +
          'an approval.',
      );
    }
  }
  const leftovers = report.abandonedWrites;
  if (leftovers.count > 0) {
    lines.push(
      `${report.applied ? 'Removed' : 'Would remove'} ${leftovers.count} temporary files ` +
        `(${megabytes(leftovers.bytes)}) that writers stopped mid-write left in the store.`,
    );
  }
  if (report.unfinishedUnknownJobs.length > 0) {
    lines.push(
      `Kept ${report.unfinishedUnknownJobs.length} jobs that Temporal no longer knows and that never ` +
        'stored an ending (terminated, or past the namespace retention); --forget-unfinished deletes them.',
    );
  }
  return lines;
}

function endedWhen(olderThanMs: number): string {
  return olderThanMs === 0 ? 'have ended' : `ended over ${describeDays(olderThanMs)} ago`;
}

function describeDays(milliseconds: number): string {
  const days = milliseconds / 86_400_000;
  if (days >= 1) return `${Number(days.toFixed(1))} days`;
  return `${Number((milliseconds / 3_600_000).toFixed(2))} hours`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}
