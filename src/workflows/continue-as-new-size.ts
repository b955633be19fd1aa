import { log, patched } from '@temporalio/workflow';
import { utf8ByteLength } from '../core/limits.js';

/**
 * Temporal refuses a payload over 2 MiB by default (its blob size limit), and a workflow task
 * whose continue-as-new input passes it fails on every retry: the job would hang for good. An
 * input this large (the limit less a margin for the payload's metadata and an encrypting codec)
 * is not sent: the run goes on instead (and tries again once fewer messages are queued).
 */
export const CONTINUE_AS_NEW_INPUT_BYTES = 2 * 1024 * 1024 - 64 * 1024;

/**
 * Marks histories of runs that went on instead of continuing as new with an input over the
 * limit. Asked only then, so every other history keeps its commands; a history recorded before
 * has no marker, so a run of it that continued as new with an input in the margin replays so.
 */
export const CONTINUE_AS_NEW_TOO_LARGE_PATCH = 'dar-continue-as-new-too-large';

/**
 * Whether the next run's input is too large to send. A system prompt near the limit, or queued
 * messages beyond what `carried-messages.ts` thins, can make it so; the run then goes on.
 */
export function tooLargeToContinueAsNew(input: unknown): boolean {
  const text = JSON.stringify(input);
  // Three bytes a character at most: a shorter text cannot pass the limit.
  if (text.length * 3 <= CONTINUE_AS_NEW_INPUT_BYTES) return false;
  const bytes = utf8ByteLength(text);
  if (bytes <= CONTINUE_AS_NEW_INPUT_BYTES) return false;
  if (!patched(CONTINUE_AS_NEW_TOO_LARGE_PATCH)) return false;
  log.warn('The job goes on in this run: its next run would start from a payload too large', {
    bytes,
    limit: CONTINUE_AS_NEW_INPUT_BYTES,
  });
  return true;
}
