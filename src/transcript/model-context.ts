import type { Message } from '../core/index.js';
import type { ObjectRef } from '../store/references.js';
import type { CompactedContext, TranscriptPointer } from '../workflows/job-types.js';
import { hydrateMessage, loadTranscript, type ReadObject } from './transcript-nodes.js';

/** The transcript as the workflow knows it: what is stored, and the messages not stored yet. */
export interface TranscriptInput {
  pointer: TranscriptPointer;
  /** Thin messages after the stored ones, in order. */
  unstored: Message[];
}

/** The transcript's messages from position `start` to its end, stored or not, whole. */
export async function loadTranscriptFrom(
  read: ReadObject,
  transcript: TranscriptInput,
  start: number,
): Promise<Message[]> {
  const { pointer, unstored } = transcript;
  const stored = start < pointer.count ? await loadTranscript(read, pointer, start) : [];
  const newer = unstored.filter((_, index) => pointer.count + index >= start);
  return [...stored, ...(await Promise.all(newer.map((message) => hydrateMessage(read, message))))];
}

/**
 * What the model is sent: the whole transcript, or after compaction the summary message and the
 * transcript from the first kept message on.
 */
export async function loadModelContext(
  read: ReadObject,
  transcript: TranscriptInput,
  context: CompactedContext | undefined,
): Promise<Message[]> {
  if (!context) return loadTranscriptFrom(read, transcript, 0);
  const summary = (await read(context.summaryRef as ObjectRef)) as unknown as Message;
  return [summary, ...(await loadTranscriptFrom(read, transcript, context.keptFrom))];
}
