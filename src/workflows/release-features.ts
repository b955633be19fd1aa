import { patched } from '@temporalio/workflow';

/**
 * Publish `DarPhase` as `running` for the whole of a turn (model call and tools), and
 * `DarTurns` every ten turns and at every published phase change, instead of both at every
 * model/tools flip (`job-visibility.ts`). Never a patch of its own: release `2026-12b` on.
 */
export const RUNNING_PHASE_FEATURE = 'dar-running-phase';

/**
 * The loop awaits only the events whose emit returned a promise (`AgentLoopOptions.awaitEveryEmit`
 * off): the workflow's emit is synchronous, so a turn makes about half the promises, each of
 * which the SDK's promise hook pays a stack capture for. Never a patch of its own: release
 * `2026-12c` on.
 */
export const FEWER_PROMISES_FEATURE = 'dar-fewer-promises';

/**
 * A model call goes on its provider's task queue only while the worker that made the job's last
 * call paces that provider; otherwise on the job's own queue, where it starts in the answer to
 * the workflow task that schedules it (`activity-effects.ts`). Never a patch of its own: release
 * `2026-12d` on.
 */
export const UNPACED_MODEL_CALLS_FEATURE = 'dar-unpaced-model-calls';

/**
 * A tool call's steps (preflight, approval, after-hook) make no promise each when none returns
 * one (`AgentLoopOptions.syncToolSteps`): about half the promises per call. Never a patch of its
 * own: release `2026-12d` on.
 */
export const SYNC_TOOL_STEPS_FEATURE = 'dar-sync-tool-steps';

/**
 * A run's first model call goes on the job's own queue as `callModelUnlessPaced`, which a worker
 * that paces the provider answers without calling (`model-calls.ts`): an unpaced job's first call
 * starts eagerly too. Never a patch of its own: release `2026-12e` on.
 */
export const FIRST_MODEL_CALL_UNLESS_PACED_FEATURE = 'dar-first-model-call-unless-paced';

/**
 * A stored setup (system prompt and tools) is recognised by value, not only as the same objects:
 * each agent run of a kept-open job, a run resumed after a refused continue-as-new and a context
 * swapped in by a hook build new tool descriptors, and sent the setup by value again
 * (`model-calls.ts`). Never a patch of its own: release `2026-12f` on.
 */
export const SETUP_COMPARED_BY_VALUE_FEATURE = 'dar-setup-compared-by-value';

/**
 * A run finds `DarPhase`, `DarTurns` and `DarBatchId` as its client set them at its start (or
 * as the run it continues left them) and upserts only what differs (`job-visibility.ts`). Never
 * a patch of its own: release `2026-12g` on.
 */
export const ATTRIBUTES_AT_START_FEATURE = 'dar-attributes-at-start';

/**
 * Tool schemas' `pattern` and `patternProperties` are matched by RE2, in time linear in the
 * argument (`core/schema-patterns.ts`), instead of JavaScript's backtracking engine: a pattern
 * such as `^(\w+\s?)*$` on a long argument the model chose can no longer hold a workflow task past
 * its deadlock limit on every replay. Runs of earlier releases keep the engine they decided with.
 * Never a patch of its own: release `2026-12h` on.
 */
export const LINEAR_SCHEMA_PATTERNS_FEATURE = 'dar-linear-schema-patterns';

/**
 * A call of a tool that is not replay-safe goes to `executeUnsafeToolWithStore` with two
 * attempts: the second never runs the body, it returns how the first ended when the first got
 * that far (its completion was lost: the worker died right after), else it reports the call
 * interrupted, as the workflow did before. Never a patch of its own: release `2026-12h` on.
 */
export const ANSWERED_TOOL_CALLS_FEATURE = 'dar-answered-tool-calls';

/** A release patch and the features that came only in release patches, up to it. */
interface Release {
  patch: string;
  releaseOnly: ReadonlySet<string>;
}

/** Each release patch, oldest first, with the release-only features it brought. */
const RELEASE_STEPS: readonly { patch: string; brought: readonly string[] }[] = [
  { patch: 'dar-features-2026-12', brought: [] },
  { patch: 'dar-features-2026-12b', brought: [RUNNING_PHASE_FEATURE] },
  { patch: 'dar-features-2026-12c', brought: [FEWER_PROMISES_FEATURE] },
  {
    patch: 'dar-features-2026-12d',
    brought: [UNPACED_MODEL_CALLS_FEATURE, SYNC_TOOL_STEPS_FEATURE],
  },
  { patch: 'dar-features-2026-12e', brought: [FIRST_MODEL_CALL_UNLESS_PACED_FEATURE] },
  { patch: 'dar-features-2026-12f', brought: [SETUP_COMPARED_BY_VALUE_FEATURE] },
  { patch: 'dar-features-2026-12g', brought: [ATTRIBUTES_AT_START_FEATURE] },
  {
    patch: 'dar-features-2026-12h',
    brought: [LINEAR_SCHEMA_PATTERNS_FEATURE, ANSWERED_TOOL_CALLS_FEATURE],
  },
];

/**
 * Every release patch, newest first. A run started by this release records the first one; a
 * history may hold any of them. Each stands for every feature that came with its own patch
 * before (`dar-job-store`, `dar-search-attributes`, `dar-progress-sink`, `dar-model-task-queue`,
 * `dar-queue-mode`, `dar-user-tools`, `dar-compaction`) and for its own and earlier releases'
 * release-only features. Each per-feature patch cost two history events per run (the marker and
 * the `TemporalChangeVersion` upsert Temporal's core adds to every patch); one patch costs two
 * in all.
 */
const RELEASES: readonly Release[] = RELEASE_STEPS.map(({ patch }, index) => ({
  patch,
  releaseOnly: new Set(RELEASE_STEPS.slice(0, index + 1).flatMap((step) => step.brought)),
})).reverse();

/** Features that came in a release patch and have no per-feature patch. */
const RELEASE_ONLY_FEATURES: ReadonlySet<string> = new Set(
  RELEASES.flatMap((release) => [...release.releaseOnly]),
);

/** Every release patch, newest first: what a run records and what histories may hold. */
export const RELEASE_PATCHES: readonly string[] = RELEASES.map((release) => release.patch);

/** The patch a run started by this release records. */
export const RELEASE_FEATURES_PATCH = RELEASES[0]!.patch;

/** The first release patch (`features-*` histories): every per-feature patch, nothing else. */
export const FIRST_RELEASE_FEATURES_PATCH = RELEASES.at(-1)!.patch;

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
 * patches, newest first, and the first one present decides: a new run (or a history this
 * release recorded) has the newest, and every feature is on with no other marker recorded; an
 * older release's history has every per-feature patch and that release's release-only features.
 * With none (a history recorded before them), each feature asks its own patch, as when the
 * history was recorded. The first answer holds for the whole run, even once a replayed run goes
 * on live (Temporal would then grant a newer patch).
 */
export function releaseFeatures(): ReleaseFeatures {
  let release: Release | null | undefined;
  return {
    has(patchId) {
      release ??= RELEASES.find((candidate) => patched(candidate.patch)) ?? null;
      if (release !== null) {
        return !RELEASE_ONLY_FEATURES.has(patchId) || release.releaseOnly.has(patchId);
      }
      return !RELEASE_ONLY_FEATURES.has(patchId) && patched(patchId);
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
