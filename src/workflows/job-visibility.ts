import { upsertSearchAttributes } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { JobPhase } from './job-types.js';
import type { ReleaseFeatures } from './release-features.js';
import {
  SEARCH_ATTRIBUTES_PATCH,
  darBatchIdKey,
  darPhaseKey,
  darTurnsKey,
} from './search-attributes.js';

/** Publishes a job's phase and turn count as search attributes, when they change. */
export type PublishJobState = (phase: JobPhase, turns: number) => void;

/**
 * Starts a job's search attributes (`DarBatchId` at once) and returns the publisher of
 * `DarPhase` and `DarTurns`. Call once, at the start of the workflow: the patch check must sit
 * at the same point of every run. In a history recorded before the attributes existed the patch
 * is absent, and nothing is upserted, so such histories replay unchanged.
 */
export function startJobVisibility(
  batchId: string | undefined,
  features: ReleaseFeatures,
): PublishJobState {
  if (!features.has(SEARCH_ATTRIBUTES_PATCH)) return () => undefined;
  if (batchId !== undefined) upsertSearchAttributes([{ key: darBatchIdKey, value: batchId }]);
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
