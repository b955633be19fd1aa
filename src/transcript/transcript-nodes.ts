import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from '../core/index.js';
import { estimateMessageTokens } from '../compaction/token-estimate.js';
import type { JsonValue, ObjectRef } from '../store/references.js';
import type { JobStore } from '../store/job-store.js';
import type { TranscriptPointer } from '../workflows/job-types.js';

/**
 * A transcript in the job store is a chain of nodes, newest first: each node holds the
 * messages appended at one point (a turn, usually) and the reference of the node before it.
 * Nodes are content-addressed like every object, so storing one again is a no-op and a pointer
 * always reads back the same messages. An assistant message that is stored whole appears in a
 * node by its reference only.
 */
export interface TranscriptNode {
  prev: string | null;
  /** Transcript position of `entries[0]`. */
  start: number;
  entries: TranscriptEntry[];
}

/** A message as a node holds it: by reference, or itself (in its thin form, for tool results). */
export type TranscriptEntry = { ref: string } | Message;

function entryOf(message: Message): TranscriptEntry {
  return message.role !== 'toolResult' && message.ref !== undefined
    ? { ref: message.ref }
    : message;
}

/**
 * The node that appends `messages` (at least one) to the transcript at `pointer`, and the
 * count after it; `appendToTranscript` stores it, or a caller stores it with other objects.
 */
export function transcriptNode(
  pointer: TranscriptPointer,
  messages: readonly Message[],
): TranscriptNode {
  return { prev: pointer.head, start: pointer.count, entries: messages.map(entryOf) };
}

/** Appends messages to a stored transcript and returns the new pointer. */
export async function appendToTranscript(
  store: Pick<JobStore, 'putObject'>,
  pointer: TranscriptPointer,
  messages: readonly Message[],
): Promise<TranscriptPointer> {
  if (messages.length === 0) return pointer;
  const node = transcriptNode(pointer, messages);
  return { head: await store.putObject(node), count: pointer.count + messages.length };
}

/** The thin form of an assistant message stored under `ref`: its tool calls and facts. */
export function thinAssistantMessage(message: AssistantMessage, ref: string): AssistantMessage {
  const thin: AssistantMessage = {
    role: 'assistant',
    content: message.content.filter((block) => block.type === 'toolCall'),
    usage: message.usage,
    stopReason: message.stopReason,
    timestamp: message.timestamp,
    ref,
  };
  if (message.errorMessage !== undefined) thin.errorMessage = message.errorMessage;
  if (message.api !== undefined) thin.api = message.api;
  if (message.provider !== undefined) thin.provider = message.provider;
  if (message.model !== undefined) thin.model = message.model;
  return thin;
}

/**
 * The thin form of a user message stored under `ref`: no content, its timestamp and its
 * estimated tokens. Readers and the model activity read the whole message back.
 */
export function thinUserMessage(message: UserMessage, ref: string): UserMessage {
  return {
    role: 'user',
    content: '',
    timestamp: message.timestamp,
    ref,
    estimatedTokens: estimateMessageTokens(message),
  };
}

export type ReadObject = (ref: ObjectRef) => Promise<JsonValue>;

/**
 * A tool result (message or body result) with its stored content and details read back. Set
 * inline values win: they are an `afterToolCall` override. Without `contentRef`, as it is.
 */
export async function withStoredContent<
  Result extends { content: ToolResultMessage['content']; details?: unknown; contentRef?: string },
>(read: ReadObject, result: Result): Promise<Result> {
  if (result.contentRef === undefined) return result;
  const { contentRef, ...rest } = result;
  const stored = (await read(contentRef as ObjectRef)) as unknown as {
    content: ToolResultMessage['content'];
    details?: unknown;
  };
  const details = rest.details ?? stored.details ?? undefined;
  return {
    ...rest,
    content: rest.content.length > 0 ? rest.content : stored.content,
    ...(details === undefined || details === null ? {} : { details }),
  } as unknown as Result;
}

/** A message as a reader wants it: whole, with its stored content. */
export async function hydrateMessage(read: ReadObject, message: TranscriptEntry): Promise<Message> {
  if (!('role' in message)) return (await read(message.ref as ObjectRef)) as unknown as Message;
  if (message.role !== 'toolResult' && message.ref !== undefined) {
    return (await read(message.ref as ObjectRef)) as unknown as Message;
  }
  if (message.role === 'toolResult') return withStoredContent(read, message);
  return message;
}

/**
 * The messages at positions `[start, end)` of a stored transcript, whole. Walks the chain from
 * the head back to the first node it needs; `read` should cache (objects never change).
 */
export async function loadTranscript(
  read: ReadObject,
  pointer: TranscriptPointer,
  start = 0,
  end = pointer.count,
): Promise<Message[]> {
  const nodes: TranscriptNode[] = [];
  let ref = pointer.head;
  while (ref !== null) {
    const node = (await read(ref as ObjectRef)) as unknown as TranscriptNode;
    if (node.start < end) nodes.push(node);
    if (node.start <= start) break;
    ref = node.prev;
  }
  const entries: TranscriptEntry[] = [];
  for (const node of nodes.reverse()) {
    node.entries.forEach((entry, index) => {
      const position = node.start + index;
      if (position >= start && position < end) entries.push(entry);
    });
  }
  return Promise.all(entries.map((entry) => hydrateMessage(read, entry)));
}
