/**
 * The events of a job's live stream (see `LiveEventStore`). Plain data, no Node imports.
 *
 * Shapes follow Pi's `AgentEvent`s of the same names, with the fields a durable runner adds to
 * tell attempts apart and without Pi's `partial` / `message` copies of the whole message so far
 * (each write would grow with the answer): a reader concatenates the deltas, and the job's own
 * `message_end` event is the final, authoritative message.
 */

/** Which model call an event belongs to. */
export interface LiveCallTag {
  /** The turn (the job's model turns so far, from 1), when the workflow said it. */
  turn?: number;
  /** The model call of the job, from 0 (the workflow's call index). */
  callIndex: number;
  /** The activity attempt, from 1: a retried call streams again under a higher attempt. */
  attempt: number;
}

/**
 * Pi's `assistantMessageEvent` without `partial`: `start`, `text_start|delta|end`,
 * `thinking_start|delta|end`, `toolcall_start|delta|end`. Consecutive deltas of one content
 * block may arrive joined into one (writes are batched). `done` and `error` are not sent: the
 * job's `message_end` says how the message ended.
 */
export type LiveAssistantMessageEvent =
  | { type: 'start' }
  | { type: 'text_start' | 'thinking_start' | 'toolcall_start'; contentIndex: number }
  | {
      type: 'text_delta' | 'thinking_delta' | 'toolcall_delta';
      contentIndex: number;
      delta: string;
    }
  | { type: 'text_end' | 'thinking_end'; contentIndex: number; content: string }
  | {
      type: 'toolcall_end';
      contentIndex: number;
      /** `arguments` is left out when large (its deltas carried it). */
      toolCall: { type: 'toolCall'; id: string; name: string; arguments?: unknown };
    };

/** Part of the assistant message a model call is streaming. */
export type LiveMessageUpdate = LiveCallTag & {
  type: 'message_update';
  assistantMessageEvent: LiveAssistantMessageEvent;
};

/**
 * The partial message streamed by attempts up to `attempt` of this call is void: the call
 * failed and is retried. Readers forget what they showed of it.
 */
export type LiveMessageVoid = LiveCallTag & { type: 'message_void' };

/**
 * New output of a running tool body (bash: the lines it printed since the last update, not the
 * whole output so far; bounded, see `TOOL_UPDATE_CHARACTERS`). `tool_execution_end` is final.
 */
export type LiveToolUpdate = {
  type: 'tool_execution_update';
  turn?: number;
  attempt: number;
  toolCallId: string;
  toolName: string;
  partialResult: { content: { type: 'text'; text: string }[] };
  /**
   * Set when `partialResult` is the tool's whole result so far (a Pi tool's `onUpdate`), which
   * replaces what earlier updates of the call showed; absent, it is new output to add.
   */
  whole?: true;
};

export type LiveEvent = LiveMessageUpdate | LiveMessageVoid | LiveToolUpdate;

/** A live event as followers get it: with its seq in the live stream. */
export type SequencedLiveEvent = LiveEvent & { liveSeq: number };

export function isLiveEvent(value: unknown): value is LiveEvent {
  const type = (value as { type?: unknown } | null)?.type;
  return type === 'message_update' || type === 'message_void' || type === 'tool_execution_update';
}
