import { patched } from '@temporalio/workflow';
import type { Message } from '../core/index.js';

/**
 * Messages not stored yet ride in the next model call's input, and history holds that input:
 * the prompt, steering and follow-up messages (each under the server's payload limit, or the
 * server would have refused it). Several large ones taken by one turn (a queue mode of `all`)
 * could together pass the limit, and a workflow task whose command does fails for good. Past
 * this many characters (up to three bytes each in UTF-8, so well under the 2 MB limit), they
 * are stored first, through the progress recorder's local activity, whose input never enters
 * history.
 */
export const UNSTORED_IN_CALL_CHARACTERS = 256 * 1024;

/**
 * Marks histories of runs that stored large messages before a model call. Asked only when a
 * turn's unstored messages pass the threshold, so other jobs (and every history recorded
 * before) keep the commands they had.
 */
export const STORE_LARGE_MESSAGES_PATCH = 'dar-store-large-messages';

/** Whether these unstored messages must be stored before they go into a model call's input. */
export function storeBeforeModelCall(unstored: readonly Message[]): boolean {
  if (unstored.length === 0) return false;
  let characters = 0;
  for (const message of unstored) {
    characters += JSON.stringify(message).length;
    if (characters > UNSTORED_IN_CALL_CHARACTERS) return patched(STORE_LARGE_MESSAGES_PATCH);
  }
  return false;
}
