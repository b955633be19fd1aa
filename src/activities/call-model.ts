import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  MAXIMUM_ERROR_TEXT_LENGTH,
  quoteBounded,
  type AssistantMessage,
  type ModelRequest,
} from '../core/index.js';
import { configuredApiKeys } from '../providers/api-keys.js';
import { parseModelName } from '../providers/model-provider.js';
import { MODEL_TRANSIENT_ERROR } from '../providers/pi-ai-provider.js';
import { resolveModel } from '../providers/registry.js';
import { scrubJson, scrubText } from '../providers/secret-scrub.js';
import { boundModelAnswer } from './bound-model-answer.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { sharedProviderPauses, type ProviderPauses } from './provider-pauses.js';

export interface CallModelInput {
  /** `provider:model-id`. Never a key: providers read secrets themselves (R25). */
  model: string;
  request: ModelRequest;
  /** Which model call of the job this is, from 0 (see `ModelCallContext.callIndex`). */
  callIndex?: number;
}

/**
 * The error as it may leave the activity: its text without any configured key (R25), bounded
 * (a provider's error can echo the whole request), and without its cause chain (a cause's
 * message would be stored in history too). Type, retryability and the next retry delay are kept.
 */
function withoutSecrets(error: unknown, secrets: string[]): ApplicationFailure {
  const message = quoteBounded(
    scrubText(error instanceof Error ? error.message : String(error), secrets),
    MAXIMUM_ERROR_TEXT_LENGTH,
  );
  const failure =
    error instanceof ApplicationFailure
      ? new ApplicationFailure(
          message,
          error.type,
          error.nonRetryable,
          undefined,
          undefined,
          error.nextRetryDelay,
          error.category,
        )
      : ApplicationFailure.create({ message, type: error instanceof Error ? error.name : 'Error' });
  if (error instanceof Error && error.stack) {
    failure.stack = quoteBounded(scrubText(error.stack, secrets), 4 * MAXIMUM_ERROR_TEXT_LENGTH);
  }
  return failure;
}

/**
 * Longest a call waits inside the activity for its provider's pause. A longer pause fails the
 * call at once, retryable, with the rest of the pause as its retry delay: no request is sent,
 * and the wait cannot run into the activity's start-to-close timeout (which would cut a request
 * the provider may already be generating, and pay for it twice).
 */
const LONGEST_WAIT_IN_CALL_MS = 60_000;

/**
 * The wait a retryable failure asks for (the provider's `Retry-After`), in milliseconds. The
 * providers here give it as a number of milliseconds (see `piAiProvider`).
 */
function requestedWait(error: unknown): number | undefined {
  if (!(error instanceof ApplicationFailure) || error.nonRetryable) return undefined;
  return typeof error.nextRetryDelay === 'number' ? error.nextRetryDelay : undefined;
}

/**
 * The model call of one turn (R1). Its answer is bounded before it enters history: oversized
 * tool calls are kept in a bounded form that the preflight refuses, and an answer still too
 * large fails for good with `ModelAnswerTooLarge` (see `boundModelAnswer`).
 *
 * The call first waits out a pause of its provider (`pauses`): a provider that asked one call
 * to wait (`Retry-After`) is not sent the others' calls meanwhile, and such a failure pauses it.
 */
export async function callModel(
  input: CallModelInput,
  pauses: ProviderPauses = sharedProviderPauses,
  onStreamEvent?: (event: unknown) => void,
): Promise<AssistantMessage> {
  let provider;
  let providerName;
  try {
    provider = resolveModel(input.model);
    providerName = parseModelName(input.model).provider;
  } catch (error) {
    throw ApplicationFailure.nonRetryable((error as Error).message, 'ModelConfigurationError');
  }
  const paused = pauses.remaining(providerName);
  if (paused > LONGEST_WAIT_IN_CALL_MS) {
    throw ApplicationFailure.create({
      message: `${providerName} asked to wait (Retry-After): ${Math.ceil(paused / 1000)} s left`,
      type: MODEL_TRANSIENT_ERROR,
      nextRetryDelay: paused,
    });
  }
  const context = Context.current();
  let message: AssistantMessage;
  try {
    message = await heartbeatWhile(async () => {
      await pauses.waitFor(providerName, context.cancellationSignal);
      return provider.call(input.request, {
        signal: context.cancellationSignal,
        heartbeat: (details) => context.heartbeat(details),
        ...(input.callIndex === undefined ? {} : { callIndex: input.callIndex }),
        ...(onStreamEvent ? { onStreamEvent } : {}),
      });
    });
  } catch (error) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('Model call cancelled');
    const wait = requestedWait(error);
    if (wait !== undefined) pauses.pause(providerName, wait);
    throw withoutSecrets(error, configuredApiKeys());
  }
  return boundModelAnswer(scrubJson(message, configuredApiKeys()));
}
