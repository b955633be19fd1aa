import {
  indexTools,
  preflightToolCall,
  type BeforeToolCallHook,
  type PreflightOutcome,
  type ToolCall,
  type ToolSpec,
} from '../../../src/core/index.js';
import { assistant } from './messages.js';

export interface PreflightOptions {
  beforeToolCall?: BeforeToolCallHook;
  isAborted?: () => boolean;
}

/** One call's preflight, outside any batch, with an assistant message holding just that call. */
export function preflight(
  tools: ToolSpec[],
  call: ToolCall,
  options: PreflightOptions = {},
): Promise<PreflightOutcome> {
  return preflightToolCall({
    assistantMessage: assistant([call]),
    toolCall: call,
    tools: indexTools(tools),
    context: { systemPrompt: 'You are a test.', messages: [], tools },
    beforeToolCall: options.beforeToolCall,
    isAborted: options.isAborted ?? (() => false),
  });
}

/** The error text of an immediate outcome; fails the test for any other kind. */
export function immediateText(outcome: PreflightOutcome): string {
  if (outcome.kind !== 'immediate') {
    throw new Error(`expected an immediate outcome, got ${outcome.kind}`);
  }
  expect(outcome.isError).toBe(true);
  return outcome.result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

export function preparedArgs(outcome: PreflightOutcome): unknown {
  if (outcome.kind !== 'prepared') {
    const detail = outcome.kind === 'immediate' ? `: ${JSON.stringify(outcome.result)}` : '';
    throw new Error(`expected a prepared outcome, got ${outcome.kind}${detail}`);
  }
  return outcome.args;
}
