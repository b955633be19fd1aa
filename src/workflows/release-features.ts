import { patched } from '@temporalio/workflow';

/**
 * The one patch a run started by this release records for all its features: every feature that
 * came with its own patch before (`dar-job-store`, `dar-search-attributes`, `dar-progress-sink`,
 * `dar-model-task-queue`, `dar-queue-mode`, `dar-user-tools`, `dar-compaction`) and the ones
 * that only ever came in a release patch (`RELEASE_ONLY_FEATURES`). Each per-feature patch cost
 * two history events per run (the marker and the `TemporalChangeVersion` upsert Temporal's core
 * adds to every patch); one patch costs two in all.
 */
export const RELEASE_FEATURES_PATCH = 'dar-features-2026-12b';

/** The release patch before this one: every per-feature patch, no release-only feature. */
export const EARLIER_RELEASE_FEATURES_PATCH = 'dar-features-2026-12';

/**
 * Publish `DarPhase` as `running` for the whole of a turn (model call and tools), and
 * `DarTurns` every ten turns and at every published phase change, instead of both at every
 * model/tools flip (`job-visibility.ts`). Never a patch of its own: only in
 * `RELEASE_FEATURES_PATCH`.
 */
export const RUNNING_PHASE_FEATURE = 'dar-running-phase';

/** Features that came in a release patch and have no per-feature patch. */
const RELEASE_ONLY_FEATURES: ReadonlySet<string> = new Set([RUNNING_PHASE_FEATURE]);

/** Every release patch, newest first: what a run records and what histories may hold. */
export const RELEASE_PATCHES = [RELEASE_FEATURES_PATCH, EARLIER_RELEASE_FEATURES_PATCH] as const;

/**
 * Answers "does this run use the feature that `patchId` guards?", once per feature check.
 * A feature's check must sit where its `patched(patchId)` call sat, so that histories recorded
 * with the per-feature patches replay unchanged.
 */
export interface ReleaseFeatures {
  has(patchId: string): boolean;
}

type Release = 'current' | 'earlier' | 'none';

/**
 * The features of a run of the current job-store workflow. The first check asks for the release
 * patches, newest first: the current one present (a new run, or a history this release
 * recorded), every feature is on and no other marker is recorded; the earlier one present, every
 * feature but the release-only ones; neither (a history recorded before them), each feature
 * asks its own patch, as when the history was recorded. The first answer holds for the whole
 * run, even once a replayed run goes on live (Temporal would then grant the release patch).
 */
export function releaseFeatures(): ReleaseFeatures {
  let release: Release | undefined;
  return {
    has(patchId) {
      release ??= patched(RELEASE_FEATURES_PATCH)
        ? 'current'
        : patched(EARLIER_RELEASE_FEATURES_PATCH)
          ? 'earlier'
          : 'none';
      if (release === 'current') return true;
      if (RELEASE_ONLY_FEATURES.has(patchId)) return false;
      return release === 'earlier' || patched(patchId);
    },
  };
}

/**
 * Each feature by its own patch: the runs of first-release jobs, which go on with that release's
 * code and must keep looking like it (`firstReleaseJob` reads their markers).
 */
export const perFeaturePatches: ReleaseFeatures = {
  has: (patchId) => !RELEASE_ONLY_FEATURES.has(patchId) && patched(patchId),
};
