import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { JobPhase } from './job-types.js';
import {
  ATTRIBUTES_AT_START_FEATURE,
  RUNNING_PHASE_FEATURE,
  type ReleaseFeatures,
} from './release-features.js';
import {
  DAR_PHASES,
  type DarPhase,
  SEARCH_ATTRIBUTES_PATCH,
  darBatchIdKey,
  darPhaseKey,
  darTurnsKey,
} from './search-attributes.js';

/** Publishes a job's phase and turn count as search attributes, when they change. */
export type PublishJobState = (phase: JobPhase, turns: number) => void;

/** What `runningPhasePublisher` last published (or found at the run's start). */
interface Published {
  phase?: DarPhase;
  turns: number;
}

/**
 * Starts a job's search attributes (`DarBatchId` at once) and returns the publisher of
 * `DarPhase` and `DarTurns`. Call once, at the start of the workflow: the patch check must sit
 * at the same point of every run. In a history recorded before the attributes existed the patch
 * is absent, and nothing is upserted, so such histories replay unchanged. From release
 * `2026-12g` on, what the run's start already holds (set by the client, or left by the run it
 * continues) is not upserted again; the start's attributes are in its first history event, so
 * the choice replays the same.
 */
export function startJobVisibility(
  batchId: string | undefined,
  features: ReleaseFeatures,
): PublishJobState {
  if (!features.has(SEARCH_ATTRIBUTES_PATCH)) return () => undefined;
  const atStart = features.has(ATTRIBUTES_AT_START_FEATURE) ? attributesAtStart() : undefined;
  if (batchId !== undefined && atStart?.batchId !== batchId) {
    upsertSearchAttributes([{ key: darBatchIdKey, value: batchId }]);
  }
  return features.has(RUNNING_PHASE_FEATURE)
    ? runningPhasePublisher(atStart?.published ?? { turns: 0 })
    : everyFlipPublisher();
}

/** The run's attributes before its first upsert: its start's. */
function attributesAtStart(): { batchId?: string; published: Published } {
  const attributes = workflowInfo().typedSearchAttributes;
  const batchId = attributes.get(darBatchIdKey);
  const phase = attributes.get(darPhaseKey);
  const turns = attributes.get(darTurnsKey);
  // Both or neither: a phase of an earlier release (`model`, `tools`) is published again.
  const published: Published =
    phase !== undefined && (DAR_PHASES as readonly string[]).includes(phase) && turns !== undefined
      ? { phase: phase as DarPhase, turns }
      : { turns: 0 };
  return { ...(batchId === undefined ? {} : { batchId }), published };
}

/** How many turns `DarTurns` may lag behind while the published phase stays `running`. */
export const TURNS_PUBLISH_INTERVAL = 10;

/** The `DarPhase` value of a job phase: one `running` for the model call and the tools. */
export function publishedPhase(phase: Exclude<JobPhase, 'starting'>): DarPhase {
  return phase === 'model' || phase === 'tools' ? 'running' : phase;
}

/**
 * The publisher of runs with the running-phase feature: an upsert (a history event and a
 * visibility write) when the published phase changes, with the turn count, and otherwise only
 * when the count is `TURNS_PUBLISH_INTERVAL` turns ahead of the published one. A turn's own
 * model/tools flip is read from the job store (`dar status`, the console), where it is exact;
 * in visibility, which lags anyway, it cost two upserts a turn.
 */
function runningPhasePublisher(initial: Published): PublishJobState {
  let published = initial;
  return (phase, turns) => {
    if (phase === 'starting') return;
    const visible = publishedPhase(phase);
    const phaseChanged = visible !== published.phase;
    if (!phaseChanged && turns - published.turns < TURNS_PUBLISH_INTERVAL) return;
    const updates: SearchAttributeUpdatePair[] = [];
    if (phaseChanged) updates.push({ key: darPhaseKey, value: visible });
    if (turns !== published.turns || published.phase === undefined) {
      updates.push({ key: darTurnsKey, value: turns });
    }
    upsertSearchAttributes(updates);
    published = { phase: visible, turns };
  };
}

/** The publisher of runs recorded before the running-phase feature: both at every change. */
function everyFlipPublisher(): PublishJobState {
  let published: { phase?: JobPhase; turns?: number } = {};
  return (phase, turns) => {
    // `starting` lasts until the first model call: not worth a history event.
    if (phase === 'starting') return;
    const updates: SearchAttributeUpdatePair[] = [];
    if (phase !== published.phase) updates.push({ key: darPhaseKey, value: phase });
    if (turns !== published.turns) updates.push({ key: darTurnsKey, value: turns });
    if (updates.length === 0) return;
    upsertSearchAttributes(updates);
    published = { phase, turns };
  };
}
