import type { AgentEvent, AssistantContent, AssistantMessage } from '../core/index.js';
import { boundedTail } from '../live/live-publisher.js';
import type { LiveAssistantMessageEvent, SequencedLiveEvent } from '../live/live-events.js';

/** The model call being streamed, as the listeners have seen it so far. */
interface StreamingCall {
  callIndex: number;
  attempt: number;
  message: AssistantMessage;
}

/**
 * Turns a job's live events into Pi's events, in Pi's order. A live event can be read before
 * the job's events that come before it in Pi's order (the activity writes it while the
 * workflow's `turn_start` or `tool_execution_start` is still on its way to the store): it is
 * held until they are passed on. The first live event of a model
 * call starts its message (`message_start` with an empty assistant message), each delta is a
 * `message_update` with the partial message so far (Pi's `message` and
 * `assistantMessageEvent.partial`), and the job's own `message_end` ends it (its stored
 * `message_start`, which comes after the deltas, is then not passed on again). A retried call
 * (`message_void`) starts its partial message over: the next update carries the new attempt's
 * content only. Running tools' output becomes Pi's `tool_execution_update`, whose
 * `partialResult` is the output so far (bounded), as Pi's tools report it.
 */
export class LiveMessages {
  private streaming: StreamingCall | undefined;
  /** Calls up to this index have ended: their late live events are dropped. */
  private endedCallIndex = -1;
  private readonly toolArguments = new Map<string, unknown>();
  private readonly toolOutput = new Map<string, string>();
  private readonly endedTools = new Set<string>();
  /** Live events read but not passed on yet, in order. */
  private held: SequencedLiveEvent[] = [];
  /** A turn has started and its model call has not ended: its deltas can be passed on. */
  private awaitingModel = false;
  /**
   * A run has started and its first message (the prompt) has not ended yet. The workflow stores
   * `turn_start` and the prompt's events in one burst, which a reader may see half written; the
   * model's deltas wait for the prompt's `message_end`, so that they never come before it.
   */
  private promptPending = false;
  /**
   * The current model call's `message_start` was passed on (from the live stream or the store):
   * Pi gives one per assistant message, so neither side gives another until its `message_end`.
   * The stored events of a burst can be read before the live events written ahead of them.
   */
  private assistantStarted = false;

  /** `newMessage` makes the empty assistant message a streamed call starts with. */
  constructor(private readonly newMessage: () => AssistantMessage) {}

  /** Pi's events for a live event and those held before it, as far as they can go now. */
  fromLive(event: SequencedLiveEvent): AgentEvent[] {
    this.held.push(event);
    return this.release();
  }

  /** Pi's events for the held live events whose preceding job events were passed on. */
  release(): AgentEvent[] {
    const events: AgentEvent[] = [];
    while (this.held.length > 0) {
      const event = this.held[0] as SequencedLiveEvent;
      if (event.type === 'tool_execution_update') {
        if (!this.endedTools.has(event.toolCallId)) {
          if (!this.toolArguments.has(event.toolCallId)) break;
          events.push(...this.toolUpdate(event));
        }
      } else if (event.callIndex > this.endedCallIndex) {
        if (!this.awaitingModel || this.promptPending) break;
        events.push(...this.messageEvents(event));
      }
      this.held.shift();
    }
    return events;
  }

  private messageEvents(
    event: Exclude<SequencedLiveEvent, { type: 'tool_execution_update' }>,
  ): AgentEvent[] {
    const events: AgentEvent[] = [];
    let call = this.streaming;
    if (!call || call.callIndex !== event.callIndex) {
      call = { callIndex: event.callIndex, attempt: event.attempt, message: this.newMessage() };
      this.streaming = call;
      if (!this.assistantStarted) {
        events.push({ type: 'message_start', message: structuredClone(call.message) });
      }
      this.assistantStarted = true;
    }
    if (event.type === 'message_void') {
      if (event.attempt >= call.attempt) call.message.content = [];
      return events;
    }
    if (event.attempt < call.attempt) return events;
    if (event.attempt > call.attempt) {
      call.attempt = event.attempt;
      call.message.content = [];
    }
    const inner = event.assistantMessageEvent;
    if (inner.type === 'start') return events;
    applyDelta(call.message.content, inner);
    const partial = structuredClone(call.message);
    events.push({
      type: 'message_update',
      message: partial,
      assistantMessageEvent: { ...inner, partial },
    });
    return events;
  }

  /**
   * A job event, as listeners get it: the stored `message_start` of a message whose start was
   * given from the live stream is dropped; `message_end` ends the streamed message.
   */
  fromStored(event: AgentEvent): AgentEvent[] {
    if (event.type === 'turn_start') this.awaitingModel = true;
    if (event.type === 'agent_start') this.promptPending = true;
    if (event.type === 'message_end' && event.message.role !== 'assistant') {
      this.promptPending = false;
    }
    if (event.type === 'agent_end') {
      this.held = [];
      this.assistantStarted = false;
    }
    if (event.type === 'tool_execution_start') this.toolArguments.set(event.toolCallId, event.args);
    if (event.type === 'tool_execution_end') {
      this.endedTools.add(event.toolCallId);
      this.toolArguments.delete(event.toolCallId);
      this.toolOutput.delete(event.toolCallId);
    }
    if (!event.type.startsWith('message_') || !('message' in event)) return [event];
    if (event.message.role !== 'assistant') return [event];
    if (event.type === 'message_start') {
      if (this.assistantStarted) return [];
      this.assistantStarted = true;
    }
    if (event.type === 'message_end') {
      this.awaitingModel = false;
      this.assistantStarted = false;
      // The call that ended: the streamed one, else the first whose live events wait, else
      // (none of its live events read yet) the one after the last call that ended.
      let ended = this.streaming?.callIndex ?? -1;
      for (const held of this.held) {
        if (ended >= 0) break;
        if (held.type !== 'tool_execution_update') ended = held.callIndex;
      }
      if (ended < 0 && this.endedCallIndex >= 0) ended = this.endedCallIndex + 1;
      this.endedCallIndex = Math.max(this.endedCallIndex, ended);
      this.streaming = undefined;
    }
    return [event];
  }

  private toolUpdate(
    event: Extract<SequencedLiveEvent, { type: 'tool_execution_update' }>,
  ): AgentEvent[] {
    const text = event.partialResult.content.map((block) => block.text).join('');
    // Bash sends new lines; a Pi tool (`whole`) sends its result so far.
    const soFar = event.whole
      ? text
      : boundedTail((this.toolOutput.get(event.toolCallId) ?? '') + text);
    this.toolOutput.set(event.toolCallId, soFar);
    return [
      {
        type: 'tool_execution_update',
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        args: this.toolArguments.get(event.toolCallId),
        partialResult: { content: [{ type: 'text', text: soFar }], details: undefined },
      },
    ];
  }
}

/** Applies one of Pi's assistant message events to the partial content, as Pi's stream does. */
function applyDelta(content: AssistantContent[], inner: LiveAssistantMessageEvent): void {
  if (inner.type === 'start') return;
  const index = inner.contentIndex;
  const block = content[index];
  switch (inner.type) {
    case 'text_start':
      content[index] = { type: 'text', text: '' };
      return;
    case 'thinking_start':
      content[index] = { type: 'thinking', thinking: '' };
      return;
    case 'toolcall_start':
      content[index] = { type: 'toolCall', id: '', name: '', arguments: {} };
      return;
    case 'text_delta':
      if (block?.type === 'text') block.text += inner.delta;
      else content[index] = { type: 'text', text: inner.delta };
      return;
    case 'thinking_delta':
      if (block?.type === 'thinking') block.thinking += inner.delta;
      else content[index] = { type: 'thinking', thinking: inner.delta };
      return;
    case 'toolcall_delta':
      // The arguments are whole at `toolcall_end` (Pi parses the partial JSON; it is kept there).
      return;
    case 'text_end':
      content[index] = { type: 'text', text: inner.content };
      return;
    case 'thinking_end':
      content[index] = { type: 'thinking', thinking: inner.content };
      return;
    case 'toolcall_end':
      content[index] = { ...inner.toolCall, arguments: inner.toolCall.arguments ?? {} };
      return;
  }
}
