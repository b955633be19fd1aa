import type { Message } from '../core/index.js';

/** How hard a model thinks, by Pi's names. */
export type ThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * A model as the agent takes it: `provider:model-id` (`anthropic:claude-sonnet-4-5`,
 * `scripted:/abs/script.json`), or an object with Pi's `provider` and `id` fields (a pi-ai
 * `Model`), which names the same thing.
 */
export type AgentModel = string | { provider: string; id: string };

/**
 * A tool as the agent takes it: its name, or an object with a `name` (a Pi `AgentTool`). A job
 * runs on workers, so the tool's body is the worker's: a name must be one the worker (and its
 * workflow bundle) knows, and an object's own `execute` is never called.
 */
export type AgentToolReference = string | { name: string };

/** The agent's state, with Pi's field names. */
export interface DurableAgentState {
  systemPrompt: string;
  model: AgentModel;
  /** Kept for Pi programs that read it; a job calls the model of its input, without it. */
  thinkingLevel: ThinkingLevel;
  /** Assigning copies the array; the next prompt runs with the new tools. */
  tools: AgentToolReference[];
  /** The conversation. Assigning copies the array; the next prompt goes on from the new one. */
  messages: Message[];
  /** True from the start of a run until its `agent_end` listeners have settled. */
  readonly isStreaming: boolean;
  /** The message between its `message_start` and `message_end`, if any. */
  readonly streamingMessage?: Message;
  /** Tool calls started and not ended yet. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** The last run's error (an assistant message with `errorMessage`), cleared when a run starts. */
  readonly errorMessage?: string;
}

/** The state with the fields only the agent writes made writable. */
export interface MutableDurableAgentState extends DurableAgentState {
  isStreaming: boolean;
  streamingMessage?: Message;
  pendingToolCalls: Set<string>;
  errorMessage?: string;
}

/**
 * A fresh state. `onConversationReplaced` is called when a user assigns `messages`: the next
 * run must go on from them, not from the job's stored transcript.
 */
export function createAgentState(
  initial: Partial<
    Pick<DurableAgentState, 'systemPrompt' | 'model' | 'thinkingLevel' | 'tools' | 'messages'>
  >,
  onConversationReplaced: () => void,
): MutableDurableAgentState {
  let tools = initial.tools?.slice() ?? [];
  let messages = initial.messages?.slice() ?? [];
  return {
    systemPrompt: initial.systemPrompt ?? '',
    model: initial.model ?? '',
    thinkingLevel: initial.thinkingLevel ?? 'off',
    get tools() {
      return tools;
    },
    set tools(next: AgentToolReference[]) {
      tools = next.slice();
    },
    get messages() {
      return messages;
    },
    set messages(next: Message[]) {
      messages = next.slice();
      onConversationReplaced();
    },
    isStreaming: false,
    pendingToolCalls: new Set<string>(),
  };
}

/** `provider:model-id` of a model given either way. */
export function modelName(model: AgentModel): string {
  return typeof model === 'string' ? model : `${model.provider}:${model.id}`;
}

/** The names of the tools, as a job's input lists them. */
export function toolNames(tools: readonly AgentToolReference[]): string[] {
  return tools.map((tool) => (typeof tool === 'string' ? tool : tool.name));
}
