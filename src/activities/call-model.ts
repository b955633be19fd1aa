import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  MAXIMUM_ERROR_TEXT_LENGTH,
  quoteBounded,
  type AssistantMessage,
  type ModelRequest,
} from '../core/index.js';
import { configuredApiKeys } from '../providers/api-keys.js';
import { modelIdleTimeoutFrom } from '../providers/model-idle.js';
import { parseModelName, type ModelCallContext } from '../providers/model-provider.js';
import { MODEL_TRANSIENT_ERROR } from '../providers/pi-ai-provider.js';
import { resolveModel } from '../providers/registry.js';
import { scrubJson, scrubText } from '../providers/secret-scrub.js';
import { boundModelAnswer } from './bound-model-answer.js';
import { abortableSleep } from './abortable-sleep.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { callWatchingSilence } from './silence-watched-call.js';
import { sharedProviderPauses, type ProviderPauses } from './provider-pauses.js';
import { rateLimitWaitMs } from './rate-limit-waits.js';

export interface CallModelInput {
  /** `provider:model-id`. Never a key: providers read secrets themselves (R25). */
  model: string;
  request: ModelRequest;
  /** Which model call of the job this is, from 0 (see `ModelCallContext.callIndex`). */
  callIndex?: number;
}

export interface CallModelOptions {
  /** Gets each event of the provider's stream (the job's live stream). */
  onStreamEvent?: (event: unknown) => void;
  /**
   * The provider's calls are paced by its task queue's rate: a refused request fails the
   * attempt (after a spread wait, through the queue again, which counts it against the rate)
   * instead of being sent again by it, which the rate would not see.
   */
  paced?: boolean;
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
 * Longest a call waits inside the activity, in all: for its provider's pause and between the
 * requests the provider refused (`Retry-After`). A longer wait fails the attempt at once,
 * retryable, with that wait as its retry delay: no request is sent meanwhile, and the wait
 * cannot run into the activity's start-to-close timeout (which would cut a request the provider
 * may already be generating, and pay for it twice).
 */
const LONGEST_WAIT_IN_CALL_MS = 60_000;

/**
 * A retryable failure that names the wait the provider asked for (its `Retry-After`, in
 * milliseconds: see `piAiProvider`), with that wait; otherwise undefined.
 */
function askedToWait(error: unknown): { failure: ApplicationFailure; waitMs: number } | undefined {
  if (!(error instanceof ApplicationFailure) || error.nonRetryable) return undefined;
  return typeof error.nextRetryDelay === 'number'
    ? { failure: error, waitMs: error.nextRetryDelay }
    : undefined;
}

/**
 * A retryable failure for a call whose provider this worker paces after refusals, when its turn
 * would come later than the call may still wait: the attempt is retried then.
 */
function turnTooFar(providerName: string, waitMs: number): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${providerName} refused requests lately and this worker paces it: the call's turn would come in ${Math.ceil(waitMs / 1000)} s`,
    type: MODEL_TRANSIENT_ERROR,
    nextRetryDelay: waitMs,
  });
}

/** A streamed event that carries part of an answer (Pi's events other than `start`, `error`). */
function isPartOfAnswer(event: unknown): boolean {
  const type = (event as { type?: unknown } | null)?.type;
  return type !== 'start' && type !== 'error';
}

/** `failure` to be retried by Temporal after `delayMs` instead of the delay it named. */
function retriedAfter(failure: ApplicationFailure, delayMs: number): ApplicationFailure {
  return new ApplicationFailure(
    failure.message,
    failure.type,
    false,
    failure.details,
    undefined,
    delayMs,
    failure.category,
  );
}

/**
 * The model call of one turn (R1). Its answer is bounded before it enters history: oversized
 * tool calls are kept in a bounded form that the preflight refuses, and an answer still too
 * large fails for good with `ModelAnswerTooLarge` (see `boundModelAnswer`).
 *
 * The call first waits out a pause of its provider (`pauses`): a provider that asked one call
 * to wait (`Retry-After`) is not sent the others' calls meanwhile, and such a failure pauses it.
 * A request the provider refused that way is sent again by the same attempt, after a wait that
 * grows with each refusal and is spread at random (`rateLimitWaitMs`), so that a batch of jobs
 * over a provider's rate limit waits for its turn instead of spending its attempts in a few
 * seconds; once the waits would pass `LONGEST_WAIT_IN_CALL_MS` (or at once, for a paced
 * provider: see `CallModelOptions.paced`) the attempt fails, retryable after the next wait.
 * A refused request was not answered, so sending it again pays nothing twice. Once a provider
 * has refused a request, this worker's calls to it wait in line and go one at a time at the
 * rate its answers showed (`LearnedRate`, through `pauses.turn`); a turn further away than the
 * call may still wait fails the attempt the same way.
 */
export async function callModel(
  input: CallModelInput,
  pauses: ProviderPauses = sharedProviderPauses,
  options: CallModelOptions = {},
): Promise<AssistantMessage> {
  const { onStreamEvent, paced = false } = options;
  let provider;
  let providerName: string;
  try {
    provider = resolveModel(input.model);
    providerName = parseModelName(input.model).provider;
  } catch (error) {
    // The message quotes the job's model name, which an API client may have made any length.
    throw ApplicationFailure.nonRetryable(
      quoteBounded((error as Error).message, MAXIMUM_ERROR_TEXT_LENGTH),
      'ModelConfigurationError',
    );
  }
  const context = Context.current();
  const signal = context.cancellationSignal;
  // Read per call, as the built-in providers do; the worker checked the setting at its start.
  const idleLimitMs = provider.reportsSignsOfLife ? modelIdleTimeoutFrom() : undefined;
  const pausedTooLong = (waitedMs: number) => {
    const paused = pauses.remaining(providerName);
    if (waitedMs + paused <= LONGEST_WAIT_IN_CALL_MS) return undefined;
    return ApplicationFailure.create({
      message: `${providerName} asked to wait (Retry-After): ${Math.ceil(paused / 1000)} s left`,
      type: MODEL_TRANSIENT_ERROR,
      nextRetryDelay: paused,
    });
  };
  let message: AssistantMessage;
  try {
    message = await heartbeatWhile(async () => {
      // An attempt after one that ran out of waits starts with longer ones.
      let refusals = Math.max(0, context.info.attempt - 1);
      let waitedMs = 0;
      for (;;) {
        const paused = pausedTooLong(waitedMs);
        if (paused) throw paused;
        const pauseStarted = Date.now();
        await pauses.waitFor(providerName, signal);
        waitedMs += Date.now() - pauseStarted;
        // A provider that refused requests before: in line, at the rate it showed.
        const turn = await pauses.turn(providerName, LONGEST_WAIT_IN_CALL_MS - waitedMs, signal);
        const learnedRate = pauses.takeRateChange(providerName);
        if (learnedRate !== undefined) {
          context.log.info(
            `${providerName} refused requests and asked to wait: this worker now sends it at most ${learnedRate.toFixed(1)} requests a second (learned from its answers; --model-rate paces it for every worker)`,
          );
        }
        if (!turn.granted) throw turnTooFar(providerName, turn.waitMs);
        waitedMs += turn.waitMs;
        // A request that failed after streaming part of an answer is not sent again here: its
        // followers saw the part; a new attempt voids it first (see `openLiveModelCall`).
        let streamedPart = false;
        const forward = onStreamEvent
          ? (event: unknown) => {
              if (isPartOfAnswer(event)) streamedPart = true;
              onStreamEvent(event);
            }
          : undefined;
        try {
          const callContext: ModelCallContext = {
            signal,
            heartbeat: (details) => context.heartbeat(details),
            ...(input.callIndex === undefined ? {} : { callIndex: input.callIndex }),
            ...(forward ? { onStreamEvent: forward } : {}),
          };
          const answer = await callWatchingSilence(
            provider,
            providerName,
            input.request,
            callContext,
            idleLimitMs,
          );
          pauses.answered(providerName);
          return answer;
        } catch (error) {
          const refused = askedToWait(error);
          if (!refused && !signal.aborted) pauses.answered(providerName);
          if (!refused || signal.aborted) throw error;
          pauses.pause(providerName, refused.waitMs);
          const wait = rateLimitWaitMs(refused.waitMs, refusals);
          refusals += 1;
          if (streamedPart || paced || waitedMs + wait > LONGEST_WAIT_IN_CALL_MS) {
            throw retriedAfter(refused.failure, wait);
          }
          await abortableSleep(wait, signal);
          waitedMs += wait;
        }
      }
    });
  } catch (error) {
    if (signal.aborted) throw new CancelledFailure('Model call cancelled');
    throw withoutSecrets(error, configuredApiKeys());
  }
  return boundModelAnswer(scrubJson(message, configuredApiKeys()));
}
