import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
 * Where a script's requests are written when that folder exists: `FILE.requests/N.json` holds
 * what model call N was sent (for tests and demos that check what a model saw). Opt-in by
 * creating the folder.
 */
export function scriptedRequestsFolder(path: string): string {
  return `${path}.requests`;
}

function recordRequest(path: string, callNumber: number, request: ModelRequest): void {
  const folder = scriptedRequestsFolder(path);
  if (existsSync(folder)) {
    writeFileSync(join(folder, `${callNumber}.json`), JSON.stringify(request, null, 2));
  }
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
      recordRequest(path, callNumber, request);
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
          errorMessage: `The model script ${path} is used up: it has ${script.length} answer${script.length === 1 ? '' : 's'} and this is model call ${callNumber + 1}`,
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
