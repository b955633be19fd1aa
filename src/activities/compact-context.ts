import { ApplicationFailure } from '@temporalio/common';
import { textOf, type Message, type Usage } from '../core/index.js';
import { chooseCutPoint } from '../compaction/cut-point.js';
import { summaryMessage, summaryOf, summaryRequest } from '../compaction/summary-request.js';
import { CHARACTERS_PER_TOKEN, estimateMessageTokens } from '../compaction/token-estimate.js';
import type { JobStore } from '../store/job-store.js';
import { isObjectRef, type ObjectRef } from '../store/references.js';
import { rememberAnsweredCall, rememberedAnswer } from './answered-calls.js';
import { loadTranscriptFrom, type TranscriptInput } from '../transcript/model-context.js';
import type { ReadObject } from '../transcript/transcript-nodes.js';
import type { CompactedContext } from '../workflows/job-types.js';
import { providerOf } from '../workflows/model-task-queue.js';
import { callModel } from './call-model.js';
import type { ProviderPauses } from './provider-pauses.js';
import { withStoreRetry } from './store-retry.js';

/** Error type of a summary the model did not give; the job goes on with its whole context. */
export const COMPACTION_FAILED = 'CompactionFailed';

export interface CompactContextInput {
  jobId: string;
  /** `provider:model-id`: the job's model writes the summary. */
  model: string;
  /** Which model call of the job this is, from 0. */
  callIndex: number;
  transcript: TranscriptInput;
  /** The previous compaction, if any: its summary is carried into the new one. */
  context?: CompactedContext;
  keepRecentTokens: number;
  /** Tokens of conversation the summariser may be sent (the rest, oldest first, is left out). */
  maximumInputTokens: number;
}

export type CompactContextResult =
  | { compacted: false }
  | {
      compacted: true;
      /** The stored summary message. */
      summaryRef: string;
      /** Transcript position of the first message kept as it is. */
      keptFrom: number;
      /** Estimated tokens of the new context (summary and kept messages). */
      tokensAfter: number;
      /** What the summary call cost. */
      usage: Usage;
    };

function sumTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

/**
 * The compaction activity: chooses where to cut the model's context (see `chooseCutPoint`),
 * asks the job's model for a summary of everything before the cut (and of the previous summary),
 * and stores the summary as a user message. Nothing to cut: no model call, `compacted: false`.
 * The transcript is not changed: it keeps every message for readers.
 */
export function makeCompactContext(
  store: JobStore,
  read: ReadObject,
  pauses?: ProviderPauses,
  pacedProviders: ReadonlySet<string> = new Set(),
) {
  return async function compactContext(input: CompactContextInput): Promise<CompactContextResult> {
    // A retry of a summary an earlier attempt was paid for and stored: that summary, not another.
    const earlier = await withStoreRetry(() => rememberedAnswer(store, input.jobId));
    if (isCompactedResult(earlier)) return earlier;
    const start = input.context?.keptFrom ?? 0;
    const { messages, earlierSummary } = await withStoreRetry(async () => ({
      messages: await loadTranscriptFrom(read, input.transcript, start),
      earlierSummary: input.context
        ? summaryOf((await read(input.context.summaryRef as ObjectRef)) as unknown as Message)
        : undefined,
    }));
    const cut = chooseCutPoint(messages, input.keepRecentTokens);
    if (cut === undefined) return { compacted: false };

    // The provider's pause and pacing apply to the summary call as to a turn's.
    const answer = await callModel(
      {
        model: input.model,
        callIndex: input.callIndex,
        request: summaryRequest(
          messages.slice(0, cut),
          earlierSummary,
          input.maximumInputTokens * CHARACTERS_PER_TOKEN,
          Date.now(),
        ),
      },
      pauses,
      { paced: pacedProviders.has(providerOf(input.model)) },
    );
    const summary = textOf(answer).trim();
    if (answer.stopReason === 'error' || answer.stopReason === 'aborted' || summary === '') {
      throw ApplicationFailure.nonRetryable(
        `The model gave no summary (${answer.errorMessage ?? `stop reason ${answer.stopReason}`})`,
        COMPACTION_FAILED,
      );
    }
    const message = summaryMessage(summary, answer.timestamp);
    // The summary is paid for: wait out a store outage rather than fail and pay again.
    return withStoreRetry(async () => {
      const result: CompactContextResult = {
        compacted: true,
        summaryRef: await store.putObject(message),
        keptFrom: start + cut,
        tokensAfter: estimateMessageTokens(message) + sumTokens(messages.slice(cut)),
        usage: answer.usage,
      };
      await rememberAnsweredCall(store, input.jobId, result);
      return result;
    });
  };
}

/** Whether a remembered value is a summary's result (what `compactContext` returned). */
function isCompactedResult(value: unknown): value is CompactContextResult & { compacted: true } {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Partial<CompactContextResult & { compacted: true }>;
  return (
    result.compacted === true &&
    isObjectRef(result.summaryRef) &&
    typeof result.keptFrom === 'number' &&
    typeof result.tokensAfter === 'number' &&
    typeof result.usage === 'object' &&
    result.usage !== null
  );
}
