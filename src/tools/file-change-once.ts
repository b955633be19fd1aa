import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ToolExecutionResult } from '../core/index.js';
import { throwIfAborted } from './abort.js';
import { isTemporaryPathBeside, temporaryPathBeside, writeFileAtomically } from './atomic-write.js';
import { errorCode } from './error-code.js';
import { describeFileError } from './file-errors.js';
import { hashRegularFile, readRegularFile } from './regular-file.js';
import { PAUSE_AFTER_FILE_CHANGE, PAUSE_BEFORE_FILE_CHANGE, pauseForTest } from './test-pause.js';
import { ABSENT, type ToolJournalEntry } from './tool-journal.js';
import type { ToolExecutionContext } from './tool-implementation.js';
import { realLocation } from './workspace-path.js';

/** A change a file tool wants: the new content and what to tell the model once it is made. */
export interface PlannedChange {
  content: string;
  result: ToolExecutionResult;
}

export interface FileChangeRequest {
  /** Absolute path, already checked to be inside the workspace. */
  path: string;
  /** The path as the model wrote it, for messages. */
  displayPath: string;
  /**
   * Works out the change from the file's current text (undefined: no such file, or a change
   * that does not read it, see `maximumCurrentBytes`). Throws to
   * refuse (the message is the call's error). Not called when the journal shows the change
   * already happened.
   */
  plan(current: string | undefined): PlannedChange;
  /**
   * Set when `plan` works on the current text: the bytes of the current file it may load;
   * larger, the call is refused. Unset: `plan` is given no text (undefined), and the current
   * file, of any size, is read in chunks for its hash only.
   */
  maximumCurrentBytes?: number;
}

function contentHash(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The current file's hash, and its text when the plan reads it; undefined: no such file. */
async function readCurrent(
  path: string,
  request: FileChangeRequest,
  signal: AbortSignal,
): Promise<{ hash: string; text?: string } | undefined> {
  try {
    if (request.maximumCurrentBytes === undefined) {
      return { hash: await hashRegularFile(path, request.displayPath, signal) };
    }
    const content = await readRegularFile(
      path,
      request.displayPath,
      signal,
      request.maximumCurrentBytes,
    );
    return { hash: contentHash(content), text: content.toString('utf8') };
  } catch (error) {
    throwIfAborted(signal);
    if (errorCode(error) === 'ENOENT') return undefined;
    throw describeFileError(error, request.displayPath);
  }
}

/**
 * Applies a file change exactly once per idempotency key, atomically (R24).
 *
 * Contract with the journal (`context.journal`, keyed by `context.idempotencyKey`):
 * 1. Before the rename that makes the change visible, the entry
 *    `{ key, path, before: hash of the content before (or "absent"), after: hash after, result }`
 *    is recorded; then the new content is renamed over the file.
 * 2. An attempt that finds an entry for its key compares the file's current content hash:
 *    equal to `after`: the change is already there, the recorded result is returned, nothing is
 *    written; equal to `before`: the earlier attempt stopped before the rename, the change is
 *    planned and applied again; anything else: the file changed since the interrupted attempt,
 *    and the call fails with a message that asks the model to check the file.
 */
export async function changeFileOnce(
  request: FileChangeRequest,
  context: ToolExecutionContext,
): Promise<ToolExecutionResult> {
  // The real file: a symlink inside the workspace is written through, not replaced.
  const target = await realLocation(request.path);
  const current = await readCurrent(target, request, context.signal);
  const currentHash = current === undefined ? ABSENT : current.hash;
  const key = context.idempotencyKey;
  const recorded = await context.journal.get(key);
  if (recorded) await removeLeftover(recorded, target);
  if (recorded && currentHash === recorded.after) return recorded.result;
  if (recorded && currentHash !== recorded.before) {
    throw new Error(
      `${request.displayPath} changed since an interrupted earlier attempt of this call, so it ` +
        'was not changed again: read the file to check its content before retrying',
    );
  }

  const planned = request.plan(current?.text);
  // Checked once before writing, not during: the journal and the file must agree.
  throwIfAborted(context.signal);
  const temporary = temporaryPathBeside(target);
  await context.journal.put(key, {
    key,
    path: target,
    before: currentHash,
    after: contentHash(planned.content),
    result: planned.result,
    recordedAt: new Date().toISOString(),
    temporary,
  });
  try {
    await writeFileAtomically(target, planned.content, {
      beforeRename: () => pauseForTest(PAUSE_BEFORE_FILE_CHANGE),
      temporary,
    });
  } catch (error) {
    throw describeFileError(error, request.displayPath);
  }
  await pauseForTest(PAUSE_AFTER_FILE_CHANGE);
  return planned.result;
}

/**
 * Removes the temporary file an earlier attempt of the call recorded: if it died before its
 * rename, the file is still there, beside the user's file. Only a name the write gives for this
 * very file is removed, whatever the journal says. Were the earlier attempt alive after all, its
 * rename now fails and the change is this attempt's alone.
 */
async function removeLeftover(recorded: ToolJournalEntry, target: string): Promise<void> {
  const { temporary } = recorded;
  if (typeof temporary !== 'string' || !isTemporaryPathBeside(target, temporary)) return;
  try {
    await unlink(temporary);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw describeFileError(error, basename(temporary));
  }
}
