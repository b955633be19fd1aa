import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import {
  MAXIMUM_ARGUMENTS_LENGTH,
  MAXIMUM_ERROR_TEXT_LENGTH,
  MAXIMUM_MODEL_ANSWER_LENGTH,
  MAXIMUM_TOOL_CALLS_PER_ANSWER,
  MAXIMUM_TOOL_CALL_ID_LENGTH,
  MAXIMUM_TOOL_NAME_LENGTH,
  jsonLength,
  quoteBounded,
  type AssistantContent,
  type AssistantMessage,
  type OversizedToolCall,
  type ToolCall,
  type Usage,
} from '../core/index.js';
import { MODEL_ANSWER_TOO_LARGE } from '../providers/pi-ai-provider.js';

// Error type of a model answer too large for history even after its tool calls were bounded.
export { MODEL_ANSWER_TOO_LARGE };

/** Characters of an oversized name or id kept before the hash: enough to recognise it. */
const KEPT_PREFIX_LENGTH = 48;

/**
 * A stand-in for an oversized name or id: its prefix and a hash of the whole, so that two calls
 * whose ids share a long prefix keep distinct ids (each gets its own result, R4). 61 characters,
 * within the 64 that providers accept for tool names.
 */
function boundedIdentifier(value: string): string {
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 12);
  return `${value.slice(0, KEPT_PREFIX_LENGTH)}-${hash}`;
}

/**
 * A tool call within the limits (limits.ts): an oversized name or id becomes a bounded stand-in,
 * oversized arguments a small marker object, and `oversized` records the original sizes so that
 * the preflight answers the call with a size error. A call within the limits is returned as is.
 */
export function boundToolCall(call: ToolCall): ToolCall {
  const oversized: OversizedToolCall = {};
  const bounded: ToolCall = { ...call };
  if (typeof call.name === 'string' && call.name.length > MAXIMUM_TOOL_NAME_LENGTH) {
    oversized.nameLength = call.name.length;
    bounded.name = boundedIdentifier(call.name);
  }
  if (typeof call.id === 'string' && call.id.length > MAXIMUM_TOOL_CALL_ID_LENGTH) {
    oversized.idLength = call.id.length;
    bounded.id = boundedIdentifier(call.id);
  }
  const argumentsLength = jsonLength(call.arguments);
  if (argumentsLength > MAXIMUM_ARGUMENTS_LENGTH) {
    oversized.argumentsLength = Number.isFinite(argumentsLength) ? argumentsLength : -1;
    bounded.arguments = { omitted: 'arguments over the size limit' };
  }
  if (Object.keys(oversized).length === 0) return call;
  bounded.oversized = oversized;
  return bounded;
}

/** A call past the answer's limit of calls: marked, so that the preflight answers it (R4). */
function beyondCallLimit(call: ToolCall, position: number, callCount: number): ToolCall {
  return { ...call, oversized: { ...call.oversized, position, callCount } };
}

/**
 * An id for the call at `position` (1-based) that no other call of the answer has: its own when
 * it is a non-empty string not taken by an earlier call, else one made from it and the position.
 * Some OpenAI-compatible servers send calls without ids, or repeat one; the job keys a call's
 * result, its approval and its tool journal (a retried `edit` finds its first result there) by
 * the id, so two calls sharing one would share all three: the second edit of a file would be
 * answered "applied" without being made.
 */
function uniqueCallId(id: unknown, position: number, taken: ReadonlySet<string>): string {
  if (typeof id === 'string' && id !== '' && !taken.has(id)) return id;
  const base = typeof id === 'string' && id !== '' ? id : 'call';
  for (let attempt = 0; ; attempt += 1) {
    const suffix = attempt === 0 ? `_${position}` : `_${position}_${attempt}`;
    const made = `${base}${suffix}`;
    const candidate = made.length > MAXIMUM_TOOL_CALL_ID_LENGTH ? boundedIdentifier(made) : made;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The answer's content with each tool call bounded, its id unique within the answer, and calls
 * past the limit marked.
 */
function boundBlocks(content: readonly AssistantContent[]): AssistantContent[] {
  const callCount = content.filter((block) => block.type === 'toolCall').length;
  const ids = new Set<string>();
  let position = 0;
  return content.map((block) => {
    if (block.type !== 'toolCall') return block;
    position += 1;
    let bounded = boundToolCall(block);
    const id = uniqueCallId(bounded.id, position, ids);
    ids.add(id);
    if (id !== bounded.id) bounded = { ...bounded, id };
    return position > MAXIMUM_TOOL_CALLS_PER_ANSWER
      ? beyondCallLimit(bounded, position, callCount)
      : bounded;
  });
}

/** More tokens than any answer has; a count past it is a provider's mistake, kept as this much. */
const MAXIMUM_REPORTED_TOKENS = 1e12;
/** More US dollars than any answer costs; likewise. */
const MAXIMUM_REPORTED_COST_USD = 1e9;

/**
 * A count a provider reported, as the job may add it up: a negative or unreadable one (NaN) is
 * 0, a huge one the maximum. A negative count would let token and cost budgets never trip, and
 * an infinite total (1e308 twice) cannot be stored as JSON, which failed the run after the
 * answer had been paid for. A huge count still trips a budget, as it should.
 */
function reportedAmount(value: unknown, maximum: number): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) return 0;
  return Math.min(value, maximum);
}

function boundUsage(usage: Usage): Usage {
  const tokens = (value: unknown) => reportedAmount(value, MAXIMUM_REPORTED_TOKENS);
  const dollars = (value: unknown) => reportedAmount(value, MAXIMUM_REPORTED_COST_USD);
  return {
    input: tokens(usage?.input),
    output: tokens(usage?.output),
    cacheRead: tokens(usage?.cacheRead),
    cacheWrite: tokens(usage?.cacheWrite),
    totalTokens: tokens(usage?.totalTokens),
    cost: {
      input: dollars(usage?.cost?.input),
      output: dollars(usage?.cost?.output),
      cacheRead: dollars(usage?.cost?.cacheRead),
      cacheWrite: dollars(usage?.cost?.cacheWrite),
      total: dollars(usage?.cost?.total),
    },
  };
}

/**
 * The model's answer as it may enter history. Oversized tool calls are bounded, every call has
 * an id of its own (`uniqueCallId`), its usage is made of sane numbers (`reportedAmount`), calls
 * past `MAXIMUM_TOOL_CALLS_PER_ANSWER` are marked to be answered with an error, and an error
 * text is bounded; if the message is still over `MAXIMUM_MODEL_ANSWER_LENGTH` as JSON (a huge
 * text, say), the call fails at once and for good: another generation would cost as much and
 * very likely be as large.
 */
export function boundModelAnswer(message: AssistantMessage): AssistantMessage {
  const bounded: AssistantMessage = {
    ...message,
    content: boundBlocks(message.content),
    usage: boundUsage(message.usage),
  };
  // A provider's error text can echo the whole request; the status query shows it.
  if (typeof message.errorMessage === 'string') {
    bounded.errorMessage = quoteBounded(message.errorMessage, MAXIMUM_ERROR_TEXT_LENGTH);
  }
  const length = jsonLength(bounded);
  if (length > MAXIMUM_MODEL_ANSWER_LENGTH) {
    throw ApplicationFailure.nonRetryable(
      `The model's answer is ${Number.isFinite(length) ? length : 'too many'} characters of JSON, ` +
        `over the limit of ${MAXIMUM_MODEL_ANSWER_LENGTH}`,
      MODEL_ANSWER_TOO_LARGE,
    );
  }
  return bounded;
}
