import { MAXIMUM_MODEL_REQUEST_BYTES, utf8ByteLength, type Message } from '../core/index.js';

/** Bytes (UTF-8) of JSON the result's messages may take: the result is one Temporal payload. */
export const MAXIMUM_RESULT_MESSAGES_BYTES = MAXIMUM_MODEL_REQUEST_BYTES;

export interface ResultMessages {
  messages: Message[];
  /** Set when the oldest messages were left out; the transcript query still has them all. */
  omittedMessages?: number;
}

/**
 * The newest messages of the transcript that fit in the result payload (always the last one).
 * A transcript can pass Temporal's 2 MiB payload limit with its final answer; a result that
 * large would fail the workflow task at completion, for ever, leaving the job running.
 */
export function resultMessages(messages: Message[]): ResultMessages {
  let bytes = 0;
  let first = messages.length;
  while (first > 0) {
    const size = utf8ByteLength(JSON.stringify(messages[first - 1]) ?? '');
    if (first < messages.length && bytes + size > MAXIMUM_RESULT_MESSAGES_BYTES) break;
    bytes += size;
    first -= 1;
  }
  return first === 0 ? { messages } : { messages: messages.slice(first), omittedMessages: first };
}
