import type { Api, AssistantMessageEvent, KnownProvider, Model } from '@mariozechner/pi-ai';
import { ApplicationFailure } from '@temporalio/common';
import {
  MAXIMUM_STREAMED_ANSWER_LENGTH,
  type AssistantMessage,
  type ModelRequest,
} from '../core/index.js';
import { MissingApiKeyError, readApiKey } from './api-keys.js';
import {
  MAXIMUM_STREAM_LINE_BYTES,
  observeResponses,
  type ObservedResponse,
} from './http-observer.js';
import { describeDuration } from '../job-input/duration.js';
import { MODEL_IDLE_TIMEOUT_VARIABLE, modelIdleTimeoutFrom, watchIdle } from './model-idle.js';
import type { ModelCallContext, ModelProvider } from './model-provider.js';
import { fromPiAssistant, toPiContext } from './pi-ai-messages.js';
import { ModelSetupError, buildModel } from './pi-ai-models.js';
import { classifyFailure } from './provider-errors.js';
import type { RealProviderSpec } from './real-providers.js';
import { endOfStreamMarker, isEventStream } from './stream-end.js';

/** Failure type of a model call worth retrying; Temporal's retry policy backs off and retries. */
export const MODEL_TRANSIENT_ERROR = 'ModelTransientError';
/** Failure type of a model answer too large to keep (see `boundModelAnswer`); never retried. */
export const MODEL_ANSWER_TOO_LARGE = 'ModelAnswerTooLarge';
/** Failure type of a worker set-up mistake (missing key or base URL); never retried. */
export const MODEL_CONFIGURATION_ERROR = 'ModelConfigurationError';

/**
 * A compatible server needs no key, but pi-ai would then fall back to OPENAI_API_KEY and send
 * the user's OpenAI key to whatever server the base URL names. This placeholder goes instead.
 */
const NO_KEY = 'no-key';

/** pi-ai is loaded on the first real model call, not by every `dar` command that lists providers. */
const loadPiAi = () => import('@mariozechner/pi-ai');

/** The key and model for one call; a set-up mistake is a non-retryable failure naming it. */
function prepare(spec: RealProviderSpec, modelId: string, registry: Model<Api>[]) {
  try {
    return { apiKey: readApiKey(spec), model: buildModel(spec, modelId, registry) };
  } catch (error) {
    if (error instanceof MissingApiKeyError || error instanceof ModelSetupError) {
      throw ApplicationFailure.nonRetryable(error.message, MODEL_CONFIGURATION_ERROR);
    }
    throw error;
  }
}

/** Characters an event adds to the answer: its text, thinking or tool-call arguments delta. */
function deltaLength(event: AssistantMessageEvent): number {
  return 'delta' in event && typeof event.delta === 'string' ? event.delta.length : 0;
}

/** Never retried: another generation would very likely be as long, and cost as much. */
function streamTooLong(streamed: number): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `The model streamed more than ${MAXIMUM_STREAMED_ANSWER_LENGTH} characters for one answer ` +
      `(${streamed} so far): stopped, over the limit`,
    MODEL_ANSWER_TOO_LARGE,
  );
}

/**
 * Retried: a provider that stopped sending (a dropped connection, an overloaded server) most
 * likely answers the next request. `where` is the provider's base URL.
 */
function providerSilent(model: string, limitMs: number, where: string): ApplicationFailure {
  return ApplicationFailure.retryable(
    `${model}: nothing came from the provider (${where}) for ${describeDuration(limitMs)}: ` +
      `the request was stopped, to be sent again (${MODEL_IDLE_TIMEOUT_VARIABLE} sets this limit)`,
    MODEL_TRANSIENT_ERROR,
  );
}

/** Never retried: a server that sends an endless line would very likely do it again. */
function lineTooLong(model: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `${model}: a line of the provider's stream passed ${MAXIMUM_STREAM_LINE_BYTES} bytes: ` +
      'stopped, over the limit',
    MODEL_ANSWER_TOO_LARGE,
  );
}

/**
 * Retried: the stream ended cleanly but before the API's end of an answer (a proxy's timeout, a
 * server restarted mid-answer). What came is a piece of an answer, perhaps a tool call cut
 * inside its arguments, which pi-ai would hand over as if whole (R3).
 */
function streamCutShort(model: string): ApplicationFailure {
  return ApplicationFailure.retryable(
    `${model}: the provider's stream ended before the answer did (no end of stream came): ` +
      'the partial answer was not kept, and the request is sent again',
    MODEL_TRANSIENT_ERROR,
  );
}

/**
 * Why the successful response of a call cannot hold a streamed answer, if it cannot: a server
 * that answered 200 with a web page or a plain JSON body (a base URL that names the wrong
 * server or path, a server that ignores `stream`). Read as an empty answer, it would end the run
 * as if the model had nothing to say.
 */
function notAStream(
  answered: ObservedResponse | undefined,
  spec: RealProviderSpec,
): string | undefined {
  const contentType = answered?.contentType;
  if (contentType === undefined || isEventStream(contentType)) return undefined;
  return (
    `the server answered HTTP ${answered?.status} with ${contentType}, not an event stream: ` +
    `check that ${spec.baseUrlVariable} names the API's base URL (for a local server, its /v1)`
  );
}

/**
 * `anthropic:ID`, `openai:ID`, `openai-compatible:ID` through `@mariozechner/pi-ai`. The key and
 * the base URL are read here, on the worker, for each call (R25). Streamed events keep the
 * activity's heartbeat going and go to `context.onStreamEvent` (the job's live stream); the
 * workflow gets the final message, never the token deltas.
 *
 * Outcomes: a finished message (any stop reason, `length` included) is returned; a failure that
 * may pass (429, 5xx, network) is thrown as a retryable `ModelTransientError`, with the
 * provider's `Retry-After` as the next retry delay; any other failure (400, 401, 403, 404, ...)
 * is returned as `stopReason: "error"` with the provider's message, which ends the run (R2).
 */
export function piAiProvider(spec: RealProviderSpec, modelId: string): ModelProvider {
  return {
    async contextWindow() {
      const piAi = await loadPiAi();
      const registry = piAi.getModels(spec.piProvider as KnownProvider) as Model<Api>[];
      // Only a listed model's window: an unknown id's (a local server's model) may be far smaller.
      return registry.find((model) => model.id === modelId && model.api === spec.api)
        ?.contextWindow;
    },
    async call(request: ModelRequest, context: ModelCallContext): Promise<AssistantMessage> {
      const piAi = await loadPiAi();
      // Providers pi-ai does not know (openai-compatible) have no registry entries: [].
      const registry = piAi.getModels(spec.piProvider as KnownProvider) as Model<Api>[];
      const { apiKey, model } = prepare(spec, modelId, registry);
      const piContext = toPiContext(request);
      // The call's own signal too: a stream over the limit, or silent too long, is stopped here.
      const stop = new AbortController();
      const idleLimitMs = modelIdleTimeoutFrom();
      const idle = watchIdle(idleLimitMs, () => stop.abort());
      const silent = () =>
        providerSilent(`${spec.name} model ${modelId}`, idleLimitMs ?? 0, model.baseUrl);
      let observed;
      try {
        observed = await observeResponses(
          async () => {
            const signal = AbortSignal.any([context.signal, stop.signal]);
            const events = piAi.streamSimple(model, piContext, {
              apiKey: apiKey ?? NO_KEY,
              signal,
              // Temporal retries, with backoff and Retry-After; the SDK must not retry on its own.
              maxRetries: 0,
            });
            const iterator = events[Symbol.asyncIterator]();
            let streamed = 0;
            for (;;) {
              const step = await iterator.next();
              if (step.done) break;
              streamed += deltaLength(step.value);
              if (streamed > MAXIMUM_STREAMED_ANSWER_LENGTH) {
                stop.abort();
                throw streamTooLong(streamed);
              }
              context.heartbeat();
              context.onStreamEvent?.(step.value);
            }
            // pi-ai ends a stopped stream as an "aborted" answer: not one to keep.
            if (idle.fired) throw silent();
            return events.result();
          },
          { onData: () => idle.touch(), endOfStream: endOfStreamMarker(spec.api) },
        );
      } catch (error) {
        throw idle.fired && !context.signal.aborted ? silent() : error;
      } finally {
        idle.stop();
      }
      const { result, responses } = observed;
      context.signal.throwIfAborted();
      const name = `${spec.name} model ${modelId}`;
      if (responses.some((response) => response.lineTooLong)) throw lineTooLong(name);
      const message = fromPiAssistant(result);
      // The response that carried the answer (one refused with Retry-After may come before it).
      const answered = responses.findLast(
        (response) => response.status >= 200 && response.status < 300,
      );
      const wrongAnswer = notAStream(answered, spec);
      if (wrongAnswer !== undefined) {
        return { ...message, stopReason: 'error', errorMessage: `${name}: ${wrongAnswer}` };
      }
      if (message.stopReason !== 'error' && message.stopReason !== 'aborted') {
        if (answered?.endSeen === false) throw streamCutShort(name);
        return message;
      }
      if (message.stopReason !== 'error') return message;

      const failure = classifyFailure(message.errorMessage, responses);
      // With no HTTP status the call never got an answer ("Connection error."): name where it
      // went, the setting a user most likely got wrong (a local server's port, a base URL).
      const where = failure.status === undefined ? ` (${model.baseUrl})` : '';
      const text = `${name}: ${failure.message}${where}`;
      if (failure.transient) {
        throw ApplicationFailure.create({
          message: text,
          type: MODEL_TRANSIENT_ERROR,
          ...(failure.retryAfterMs !== undefined ? { nextRetryDelay: failure.retryAfterMs } : {}),
        });
      }
      return { ...message, errorMessage: text };
    },
  };
}
