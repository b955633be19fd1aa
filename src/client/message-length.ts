import { MAXIMUM_USER_MESSAGE_LENGTH } from '../core/limits.js';

/**
 * A steering or follow-up message longer than {@link MAXIMUM_USER_MESSAGE_LENGTH}: refused
 * before it is sent, naming its length and what to do instead.
 */
export class MessageTooLongError extends Error {
  override readonly name = 'MessageTooLongError';

  constructor(
    /** What was sent, as a sentence starts: `The steering message`, ... */
    readonly what: string,
    /** Its length in characters. */
    readonly length: number,
  ) {
    super(
      `${what} has ${length} characters, over the limit of ${MAXIMUM_USER_MESSAGE_LENGTH}: each ` +
        "message stays in the job's history until it continues as new. Put large material in " +
        'the workspace as a file and ask the agent to read it.',
    );
  }
}

/**
 * A steering or follow-up message that is empty or only white space: refused before it is
 * sent, since the job would spend a model call on a user message that says nothing.
 */
export class EmptyMessageError extends Error {
  override readonly name = 'EmptyMessageError';

  constructor(
    /** What was sent, as a sentence starts: `The steering message`, ... */
    readonly what: string,
  ) {
    super(`${what} is empty: give the text the agent should read`);
  }
}

/** Throws an {@link EmptyMessageError} for a text that is empty or only white space. */
export function checkMessageNotEmpty(what: string, text: string): void {
  if (text.trim() === '') throw new EmptyMessageError(what);
}

/** Throws a {@link MessageTooLongError} for a text over the limit (or not a string). */
export function checkMessageLength(what: string, text: string): void {
  if (typeof text !== 'string') throw new TypeError(`${what} must be a string`);
  if (text.length > MAXIMUM_USER_MESSAGE_LENGTH) throw new MessageTooLongError(what, text.length);
}
