import { emptyUsage, type AssistantMessage, type ModelRequest, type Usage } from '../core/index.js';
import type { ModelCallContext, ModelProvider } from './model-provider.js';
import { loadModelScript, type ScriptedUsage } from './model-script.js';

/** The usage a scripted answer reports, in the provider's shape. */
function usageOf(scripted: ScriptedUsage | undefined): Usage {
  const usage = emptyUsage();
  if (!scripted) return usage;
  return {
    ...usage,
    input: scripted.input,
    output: scripted.output,
    totalTokens: scripted.input + scripted.output,
    cost: { ...usage.cost, total: scripted.costUsd },
  };
}

const HEARTBEAT_INTERVAL_MS = 1000;

/** Waits `milliseconds`, heartbeating, and gives up when the signal aborts. */
async function waitAlive(milliseconds: number, context: ModelCallContext): Promise<void> {
  const deadline = Date.now() + milliseconds;
  while (Date.now() < deadline) {
    context.signal.throwIfAborted();
    context.heartbeat();
    const step = Math.min(HEARTBEAT_INTERVAL_MS, deadline - Date.now());
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        context.signal.removeEventListener('abort', onAbort);
        resolve();
      }, step);
      context.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
  context.signal.throwIfAborted();
}

/**
 * `scripted:FILE`: answer n of the script for model call n of the job. n is the call index the
 * host passes (stable across retries and replays); without one it is counted from the
 * transcript's assistant messages.
 */
export function scriptedProvider(path: string): ModelProvider {
  return {
    async call(request: ModelRequest, context: ModelCallContext): Promise<AssistantMessage> {
      const script = loadModelScript(path);
      const callNumber =
        context.callIndex ??
        request.messages.filter((message) => message.role === 'assistant').length;
      const base = {
        role: 'assistant' as const,
        api: 'scripted',
        provider: 'scripted',
        model: path,
        usage: emptyUsage(),
      };
      const answer = script[callNumber];
      if (!answer) {
        return {
          ...base,
          content: [],
          stopReason: 'error',
          errorMessage: `The model script ${path} is used up: it has ${script.length} answers and this is model call ${callNumber + 1}`,
          timestamp: Date.now(),
        };
      }
      if (answer.delayMs) await waitAlive(answer.delayMs, context);
      const message: AssistantMessage = {
        ...base,
        content: answer.content,
        stopReason: answer.stopReason,
        usage: usageOf(answer.usage),
        timestamp: Date.now(),
      };
      if (answer.errorMessage !== undefined) message.errorMessage = answer.errorMessage;
      return message;
    },
  };
}
