import { ApplicationFailure } from '@temporalio/common';
import type { AssistantMessage, ModelRequest } from '../core/index.js';
import { describeDuration } from '../job-input/duration.js';
import { MODEL_IDLE_TIMEOUT_VARIABLE, watchIdle } from '../providers/model-idle.js';
import type { ModelCallContext, ModelProvider } from '../providers/model-provider.js';
import { MODEL_TRANSIENT_ERROR } from '../providers/pi-ai-provider.js';

/** The retryable failure of a call whose provider sent no sign of life for `limitMs`. */
export function providerWentSilent(providerName: string, limitMs: number): ApplicationFailure {
  return ApplicationFailure.retryable(
    `${providerName}: no sign of life from the provider for ${describeDuration(limitMs)}: the ` +
      `request was stopped, to be sent again (${MODEL_IDLE_TIMEOUT_VARIABLE} sets this limit)`,
    MODEL_TRANSIENT_ERROR,
  );
}

/**
 * One request to `provider`, stopped when it stays silent for `limitMs`, for a provider that
 * reports what arrives (`ModelProvider.reportsSignsOfLife`): each `context.signOfLife()` and
 * each streamed event starts the silence again. When the limit passes, the request's signal is
 * aborted and the attempt fails with a retryable `ModelTransientError` naming the silence,
 * whatever the provider then throws or returns, unless it still returns an answer of its own (an
 * answer that came is paid for, so it is kept). A cancellation of the job is not a silence: its
 * own abort goes through unchanged. With no limit (`off`), or a provider that does not report,
 * the call runs as the provider makes it.
 */
export async function callWatchingSilence(
  provider: ModelProvider,
  providerName: string,
  request: ModelRequest,
  context: ModelCallContext,
  limitMs: number | undefined,
): Promise<AssistantMessage> {
  if (!provider.reportsSignsOfLife || limitMs === undefined) {
    return provider.call(request, context);
  }
  const stop = new AbortController();
  const idle = watchIdle(limitMs, () => stop.abort());
  const onStreamEvent = context.onStreamEvent;
  const watchedContext: ModelCallContext = {
    ...context,
    signal: AbortSignal.any([context.signal, stop.signal]),
    signOfLife: () => idle.touch(),
    ...(onStreamEvent
      ? {
          onStreamEvent: (event: unknown) => {
            idle.touch();
            onStreamEvent(event);
          },
        }
      : {}),
  };
  const silent = () => idle.fired && !context.signal.aborted;
  let answer: AssistantMessage;
  try {
    answer = await provider.call(request, watchedContext);
  } catch (error) {
    throw silent() ? providerWentSilent(providerName, limitMs) : error;
  } finally {
    idle.stop();
  }
  // A provider that ends a stopped request as an answer ends it as `aborted` or `error`.
  if (silent() && (answer.stopReason === 'aborted' || answer.stopReason === 'error')) {
    throw providerWentSilent(providerName, limitMs);
  }
  return answer;
}
