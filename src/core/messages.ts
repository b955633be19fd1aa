/**
 * Message and content-block types of the agent transcript. Field names follow Pi
 * (`@mariozechner/pi-ai`) so that transcripts move between the two unchanged. Every value
 * here is plain JSON: it crosses Temporal workflow boundaries as a payload.
 */

export interface TextContent {
  type: 'text';
  text: string;
  textSignature?: string;
}

export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}

export interface ImageContent {
  type: 'image';
  /** Base64-encoded image bytes. */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  /** As the model sent them: untrusted, possibly not even an object. */
  arguments: unknown;
  thoughtSignature?: string;
  /**
   * Set by the model activity when the call as the model sent it was over a size limit
   * (`limits.ts`): the `id`, `name` or `arguments` here are then a bounded stand-in, and the
   * preflight answers the call with a size error. Plain JSON; never sent to a provider.
   */
  oversized?: OversizedToolCall;
}

/** The sizes, in characters, of the parts of a tool call that were over their limits. */
export interface OversizedToolCall {
  nameLength?: number;
  idLength?: number;
  /** As JSON. */
  argumentsLength?: number;
  /**
   * The call's position (from 1) among its answer's tool calls, when that is past
   * `MAXIMUM_TOOL_CALLS_PER_ANSWER`; with `callCount`, the answer's number of calls.
   */
  position?: number;
  callCount?: number;
}

export type AssistantContent = TextContent | ThinkingContent | ToolCall;
export type ToolResultContent = TextContent | ImageContent;

export const STOP_REASONS = ['stop', 'length', 'toolUse', 'error', 'aborted'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: UsageCost;
}

export interface UserMessage {
  role: 'user';
  content: string | ToolResultContent[];
  timestamp: number;
  /**
   * Set by a host that keeps messages in a job store, on a message too large to carry through
   * history: the whole message is stored under this reference, and `content` here is empty.
   */
  ref?: string;
  /** With `ref`: the whole message's estimated tokens, for the host's context accounting. */
  estimatedTokens?: number;
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContent[];
  /** Wire protocol, provider and model that produced the message, when known. */
  api?: string;
  provider?: string;
  model?: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
  /**
   * Set by a host that keeps messages in a job store: the whole message is stored under this
   * reference, and `content` here holds only its tool calls (the workflow needs nothing else).
   */
  ref?: string;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: ToolResultContent[];
  details?: unknown;
  isError: boolean;
  /** What the tool's own work cost (a tool that calls a model, say), when it says so. */
  usage?: Usage;
  timestamp: number;
  /**
   * Set by a host that keeps results in a job store: the body's `content` and `details` are
   * stored under this reference; where `content` is empty and `details` unset here, they are
   * the stored ones (an `afterToolCall` override, set here, wins).
   */
  contentRef?: string;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** The sum of two usages, field by field. */
export function addUsage(total: Usage, usage: Usage): Usage {
  return {
    input: total.input + usage.input,
    output: total.output + usage.output,
    cacheRead: total.cacheRead + usage.cacheRead,
    cacheWrite: total.cacheWrite + usage.cacheWrite,
    totalTokens: total.totalTokens + usage.totalTokens,
    cost: {
      input: total.cost.input + usage.cost.input,
      output: total.cost.output + usage.cost.output,
      cacheRead: total.cost.cacheRead + usage.cost.cacheRead,
      cacheWrite: total.cost.cacheWrite + usage.cost.cacheWrite,
      total: total.cost.total + usage.cost.total,
    },
  };
}

export function userMessage(text: string, timestamp: number): UserMessage {
  return { role: 'user', content: text, timestamp };
}

export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((block): block is ToolCall => block.type === 'toolCall');
}

/** The concatenated text blocks of a message: what a person reads as its answer. */
export function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((block): block is TextContent => block.type === 'text')
    .map((block) => block.text)
    .join('');
}
