import { patched } from '@temporalio/workflow';

/**
 * The one patch a run started by this release records for every feature that came with its own
 * patch before (`dar-job-store`, `dar-search-attributes`, `dar-progress-sink`,
 * `dar-model-task-queue`, `dar-queue-mode`, `dar-user-tools`, `dar-compaction`). Each of those
 * cost two history events per run (the marker and the `TemporalChangeVersion` upsert Temporal's
 * core adds to every patch); one patch costs two in all.
 */
export const RELEASE_FEATURES_PATCH = 'dar-features-2026-12';

/**
 * Answers "does this run use the feature that `patchId` guards?", once per feature check.
 * A feature's check must sit where its `patched(patchId)` call sat, so that histories recorded
 * with the per-feature patches replay unchanged.
 */
export interface ReleaseFeatures {
  has(patchId: string): boolean;
}

/**
 * The features of a run of the current job-store workflow. The first check asks for the release
 * patch: present (a new run, or a history this release recorded), every feature is on and no
 * other marker is recorded. Absent (a history recorded before it), each feature asks its own
 * patch, as when the history was recorded. The first answer holds for the whole run, even once
 * a replayed run goes on live (Temporal would then grant the release patch).
 */
export function releaseFeatures(): ReleaseFeatures {
  let wholeRelease: boolean | undefined;
  return {
    has(patchId) {
      wholeRelease ??= patched(RELEASE_FEATURES_PATCH);
      return wholeRelease || patched(patchId);
    },
  };
}

/**
 * Each feature by its own patch: the runs of first-release jobs, which go on with that release's
 * code and must keep looking like it (`firstReleaseJob` reads their markers).
 */
export const perFeaturePatches: ReleaseFeatures = { has: (patchId) => patched(patchId) };
