/**
 * Size limits on what the model sends and on what tools and queries send back. One place, so
 * that the README table, the model activity, the preflight and the tools agree. Workflow-safe.
 *
 * Why these numbers: Temporal refuses a payload over 2 MB (a workflow task that produces one
 * fails, and retries, forever) and gRPC refuses a message over 4 MB (a query answer). Everything
 * the model sends is copied at least three times into one workflow result or query answer (the
 * assistant message, `tool_execution_start`, the tool result that quotes it), so each part is
 * kept well below a third of 2 MB, and error texts quote only a short prefix of it.
 */

/** Characters of a tool name: real tool names are short identifiers (providers allow 64-128). */
export const MAXIMUM_TOOL_NAME_LENGTH = 256;

/**
 * Tool calls of one model answer that run. A real answer holds a few; Temporal refuses a
 * workflow more than 2,000 pending activities (the workflow task fails, and retries, forever),
 * and every call adds events to history. Calls past this one get an error result instead (R4).
 */
export const MAXIMUM_TOOL_CALLS_PER_ANSWER = 128;

/** Characters of a tool call id: provider ids are a few dozen characters. */
export const MAXIMUM_TOOL_CALL_ID_LENGTH = 256;

/**
 * Characters of a call's arguments as JSON. Generous for a `write` of a large source file; an
 * assistant message with several such calls still fits the model-answer limit below.
 */
export const MAXIMUM_ARGUMENTS_LENGTH = 256 * 1024;

/** Characters of model input quoted in an error text (a name, a path, raw arguments). */
export const MAXIMUM_QUOTED_LENGTH = 200;

/**
 * Characters of any error text in a tool result. Texts written by user code (a shim's or hook's
 * thrown message, a block reason, a tool body's error) may embed model input of any size.
 */
export const MAXIMUM_ERROR_TEXT_LENGTH = 4000;

/**
 * Characters of a steering or follow-up message a client sends (`AgentJob.steer`, `followUp`).
 * Each message is a signal, and its whole text stays in the job's history until the job
 * continues as new: many messages near the 2 MB payload limit would bring a long turn to the
 * 50 MB history limit, where Temporal terminates the job. Large material goes in a file.
 */
export const MAXIMUM_USER_MESSAGE_LENGTH = 256 * 1024;

/** Failing fields listed by a validation error (R8); the rest are counted. */
export const MAXIMUM_LISTED_FAILURES = 20;

/**
 * Bytes (UTF-8) of text content in one tool result. 50 KiB is about 12,000 tokens: as much as
 * a model reads usefully at once; bash keeps 50,000 characters of output, which is the same
 * order. More is cut with a note saying how much was dropped.
 */
export const MAXIMUM_TOOL_OUTPUT_BYTES = 50 * 1024;

/** Characters of a tool result's `details` as JSON; larger details are replaced by a note. */
export const MAXIMUM_TOOL_DETAILS_LENGTH = 16 * 1024;

/**
 * Characters of one assistant message as JSON, after oversized tool calls were bounded. Half of
 * Temporal's 2 MB payload limit: the activity result itself must fit, with room to spare.
 */
export const MAXIMUM_MODEL_ANSWER_LENGTH = 1024 * 1024;

/**
 * Characters a model may stream for one answer (its text, thinking and tool-call deltas
 * together) before the call is stopped. Past the answer limit above, most of an answer's bulk is
 * oversized tool arguments that get bounded; past this much, the answer cannot fit whatever is
 * bounded, and a stream that does not end (a server stuck in a loop) would otherwise fill the
 * worker's memory before the answer is ever checked.
 */
export const MAXIMUM_STREAMED_ANSWER_LENGTH = 4 * MAXIMUM_MODEL_ANSWER_LENGTH;

/**
 * Bytes (UTF-8) of one model request as JSON: the whole transcript is the model activity's
 * input, and Temporal refuses an input over 2 MiB (the workflow task would fail and retry
 * forever). Past this the run ends as an error instead. A margin is left for the rest of the
 * payload.
 */
export const MAXIMUM_MODEL_REQUEST_BYTES = 1.75 * 1024 * 1024;

/**
 * Characters of JSON in one page of the events query. An answer must stay under gRPC's 4 MB;
 * a page always holds at least one event, and one event may be as large as a model answer.
 */
export const MAXIMUM_EVENTS_PAGE_LENGTH = 1024 * 1024;

/**
 * `text` when it is short enough to quote, else its first `maximumLength` characters and how many
 * more there were. Never splits a surrogate pair.
 */
export function quoteBounded(text: string, maximumLength = MAXIMUM_QUOTED_LENGTH): string {
  if (text.length <= maximumLength) return text;
  let end = maximumLength;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}... (${text.length - end} more characters)`;
}

function isSurrogatePair(text: string, index: number): boolean {
  const high = text.charCodeAt(index);
  const low = text.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** Bytes of `text` in UTF-8, counted without an encoder (workflow code has none to rely on). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isSurrogatePair(text, index)) {
      // One four-byte character.
      bytes += 4;
      index += 1;
    } else bytes += 3; // A lone surrogate is encoded as U+FFFD, three bytes.
  }
  return bytes;
}

/** Characters of `value` as JSON; `undefined` counts as 0, unserialisable values as Infinity. */
export function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * The JSON of one tool's description (name, description, schema, options) for a tool given to
 * a worker: it is recorded in a job's history (see `ToolDescription`). The worker refuses a
 * larger tool when it starts.
 */
export const MAXIMUM_TOOL_DESCRIPTION_LENGTH = 64 * 1024;

/**
 * The JSON of all the worker-given tools one job names, together: their descriptions are
 * recorded in the job's history at each run's start, and sent with the model's setup. Each one
 * within its own limit, forty of them could still pass Temporal's 2 MB payload limit, which
 * would stop the job with no clear error; past this, the job fails at its start as `BadInput`.
 */
export const MAXIMUM_JOB_TOOL_DESCRIPTIONS_LENGTH = 1024 * 1024;

/**
 * Bytes of a run's model setup sent by value in its first model call: the system prompt (as
 * JSON) and the worker tools' descriptions. Each may be within its own limit (the job input's
 * 2 MB, the tools' 1 MiB) and still make, together, an activity input the server refuses; the
 * job would stop there for good. Past this, a job naming worker tools fails at its start as
 * `BadInput`; the rest of that input (the first messages, up to 256 K characters unstored, the
 * built-in tools) fits beside it.
 */
export const MAXIMUM_MODEL_SETUP_BYTES = 1.5 * 1024 * 1024;
