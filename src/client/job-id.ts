/**
 * The most bytes (UTF-8) a job id chosen by its starter may have. Temporal refuses workflow ids
 * over its `limit.maxIDLength` (1,000 by default) only with "Failed to start Workflow"; an id
 * is also printed on every line of `dar list` and typed into every later command, so it is kept
 * well under that.
 */
export const MAXIMUM_JOB_ID_BYTES = 255;

/** Spaces, control characters and other invisible ones: an id is typed and printed whole. */
const UNPRINTABLE = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Characters of a refused id quoted in its error: the id itself may be of any size. */
const QUOTED_CHARACTERS = 60;

/** A job id its starter chose that no job may have: refused before anything is started. */
export class JobIdError extends RangeError {
  override readonly name = 'JobIdError';

  constructor(
    /** The refused id. */
    readonly jobId: string,
    /** What is wrong with it, as a clause: `is empty`, `has 300 bytes ...`. */
    readonly problem: string,
  ) {
    super(`The job id ${quoted(jobId)} ${problem}`);
  }
}

/**
 * Why `jobId` cannot name a new job, or undefined when it can: it must be 1 to
 * {@link MAXIMUM_JOB_ID_BYTES} bytes of printable characters, without spaces.
 */
export function jobIdProblem(jobId: string): string | undefined {
  if (typeof jobId !== 'string') return 'is not a string';
  if (jobId.length === 0) return 'is empty';
  const bytes = Buffer.byteLength(jobId, 'utf8');
  if (bytes > MAXIMUM_JOB_ID_BYTES) {
    return `has ${bytes} bytes, over the limit of ${MAXIMUM_JOB_ID_BYTES}`;
  }
  const unprintable = UNPRINTABLE.exec(jobId);
  if (unprintable) {
    const code = (unprintable[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    // Counted in characters (code points), as a reader counts them.
    const position = [...jobId.slice(0, unprintable.index)].length + 1;
    return `holds a space or unprintable character (U+${code}) at character ${position}`;
  }
  return undefined;
}

/** Throws a {@link JobIdError} when `jobId` cannot name a new job (see {@link jobIdProblem}). */
export function checkNewJobId(jobId: string): void {
  const problem = jobIdProblem(jobId);
  if (problem !== undefined) throw new JobIdError(jobId, problem);
}

function quoted(jobId: unknown): string {
  const text = String(jobId);
  const shown = [...text].slice(0, QUOTED_CHARACTERS).join('');
  return JSON.stringify(shown.length < text.length ? `${shown}...` : shown);
}
