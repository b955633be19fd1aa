import { emptyUsage, type AgentEvent, type AssistantMessage } from '../core/index.js';
import { modelName, type AgentModel, type MutableDurableAgentState } from './agent-state.js';

/** Updates the agent's state for one event of a run, as Pi's agent does. */
export function applyEvent(state: MutableDurableAgentState, event: AgentEvent): void {
  switch (event.type) {
    case 'message_start':
    case 'message_update':
      state.streamingMessage = event.message;
      break;
    case 'message_end':
      state.streamingMessage = undefined;
      // Pushed in place: the conversation grows, it is not replaced.
      state.messages.push(event.message);
      break;
    case 'tool_execution_start':
      state.pendingToolCalls = new Set(state.pendingToolCalls).add(event.toolCallId);
      break;
    case 'tool_execution_end': {
      const pending = new Set(state.pendingToolCalls);
      pending.delete(event.toolCallId);
      state.pendingToolCalls = pending;
      break;
    }
    case 'turn_end':
      if (event.message.errorMessage) state.errorMessage = event.message.errorMessage;
      break;
    case 'agent_end':
      state.streamingMessage = undefined;
      break;
    default:
      break;
  }
}

/**
 * The events of a run that failed outside the job (no connection, no model, the job closed
 * before its run ended), as Pi reports a failed run: an assistant message with the error.
 */
export function failedRunEvents(model: AgentModel, error: unknown, aborted: boolean): AgentEvent[] {
  const message: AssistantMessage = {
    ...emptyAssistantMessage(model),
    content: [{ type: 'text', text: '' }],
    stopReason: aborted ? 'aborted' : 'error',
    errorMessage: error instanceof Error ? error.message : String(error),
  };
  return [
    { type: 'message_start', message },
    { type: 'message_end', message },
    { type: 'turn_end', message, toolResults: [] },
    { type: 'agent_end', messages: [message] },
  ];
}

/** An assistant message of `model` with no content yet: where a streamed answer starts. */
export function emptyAssistantMessage(model: AgentModel): AssistantMessage {
  const name = modelName(model);
  const [provider] = name.split(':');
  return {
    role: 'assistant',
    content: [],
    ...(provider ? { provider } : {}),
    model: name,
    usage: emptyUsage(),
    stopReason: 'stop',
    timestamp: Date.now(),
  };
}
