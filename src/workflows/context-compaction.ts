import { isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import { addUsage } from '../core/index.js';
import { modelActivityOptions } from './activity-options.js';
import { COMPACTION_PATCH } from './compaction-patch.js';
import { compactionLimits } from './compaction-settings.js';
import { countNewMessages } from './context-tokens.js';
import { modelCallsMade, transcriptLength, unstoredMessages, type JobState } from './job-state.js';
import type { AgentJobInput } from './job-types.js';
import type { ProgressRecorder } from './progress-recorder.js';
import type { ReleaseFeatures } from './release-features.js';

const { compactContext } = proxyActivities<AgentActivities>(modelActivityOptions);

/**
 * Asked before each model call: when the model's context (the last answer's usage plus the
 * estimates of the messages since) is over `contextWindow - reserveTokens`, the compaction
 * activity summarises the older turns, and this and later calls send the summary with the recent
 * turns. Decided from workflow state only, so it replays the same way (R23). A summary that
 * fails leaves the context whole; a cancellation is thrown on.
 */
export async function compactIfNeeded(
  input: AgentJobInput,
  state: JobState,
  progress: ProgressRecorder,
  features: ReleaseFeatures,
): Promise<void> {
  countNewMessages(state);
  const limits = compactionLimits(input.compaction, state.contextWindow);
  if (!limits) return;
  const tokensBefore = state.contextTokens.tokens;
  if (tokensBefore <= limits.contextWindow - limits.reserveTokens) return;
  // Jobs that never reach the threshold keep their commands; old histories never get here.
  if (!features.has(COMPACTION_PATCH)) return;

  const start = state.modelContext?.keptFrom ?? 0;
  // This turn's model call is counted already; the summary call takes its index, the turn's
  // call the next one.
  const callIndex = modelCallsMade(state) - 1;
  let result;
  try {
    result = await compactContext({
      jobId: workflowInfo().workflowId,
      model: input.model,
      callIndex,
      transcript: { pointer: state.transcript, unstored: unstoredMessages(state) },
      ...(state.modelContext ? { context: state.modelContext } : {}),
      keepRecentTokens: limits.keepRecentTokens,
      maximumInputTokens: limits.contextWindow - limits.reserveTokens,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The summary call may have been made: its index is taken either way.
    state.compactionCalls += 1;
    return;
  }
  if (!result.compacted) return;
  state.compactionCalls += 1;
  state.compactions += 1;
  state.usage = addUsage(state.usage, result.usage);
  state.modelContext = { summaryRef: result.summaryRef, keptFrom: result.keptFrom };
  state.contextTokens = { tokens: result.tokensAfter, countedTo: transcriptLength(state) };
  progress.record({
    type: 'compaction',
    summarised: { start, end: result.keptFrom },
    tokensBefore,
    tokensAfter: result.tokensAfter,
    contextWindow: limits.contextWindow,
    summaryRef: result.summaryRef,
  });
}
