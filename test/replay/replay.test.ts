import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentWorkflowsPath } from '../../src/worker/workflow-bundle-path.js';
import { workflowInterceptorModules } from '../../src/worker/workflow-interceptor-modules.js';
import { COMPACTION_PATCH } from '../../src/workflows/compaction-patch.js';
import { QUEUE_MODE_PATCH } from '../../src/workflows/job-queue-modes.js';
import { JOB_STORE_PATCH } from '../../src/workflows/job-store-patch.js';
import { MODEL_TASK_QUEUE_PATCH } from '../../src/workflows/model-task-queue.js';
import { PROGRESS_SINK_PATCH } from '../../src/workflows/progress-sink.js';
import {
  RELEASE_PATCHES,
  FIRST_RELEASE_FEATURES_PATCH,
  RELEASE_FEATURES_PATCH,
} from '../../src/workflows/release-features.js';
import { DAR_PHASES } from '../../src/workflows/search-attributes.js';
import { USER_TOOLS_PATCH } from '../../src/workflows/user-tools.js';
import { firstReleaseScenarios, jobStoreScenarios } from './scenarios.js';
import { temporaryFolder } from '../support/agent-harness.js';
import { MODEL_CALL_ACTIVITIES } from '../../src/workflows/model-call-activities.js';
import { SETUP_BY_REFERENCE_FROM_CHARACTERS } from '../../src/activities/model-setup.js';
import { STORE_CARRIED_MESSAGES_PATCH } from '../../src/workflows/carried-messages.js';
import { STORE_LARGE_MESSAGES_PATCH } from '../../src/workflows/large-messages.js';

/** Patches a run asks only when what it carries passes a size threshold. */
const THRESHOLD_PATCHES = [STORE_LARGE_MESSAGES_PATCH, STORE_CARRIED_MESSAGES_PATCH];

/**
 * R23: histories recorded from real runs (test/fixtures/histories) replay with the current
 * workflow code: the first release's (no `dar-job-store` marker, replayed by the legacy code)
 * and the job-store ones (`npm run record-histories`).
 */
const historiesFolder = fileURLToPath(new URL('../fixtures/histories', import.meta.url));
const changedWorkflowsPath = fileURLToPath(new URL('./changed/workflows.ts', import.meta.url));

const replayScript = fileURLToPath(new URL('./replay-histories.mjs', import.meta.url));

interface ReplayOutcome {
  workflowId: string;
  error: string | null;
}

interface RecordedHistory {
  events: {
    eventType: string;
    markerRecordedEventAttributes?: {
      markerName: string;
      details?: Record<string, { payloads?: { data?: string }[] }>;
    };
    upsertWorkflowSearchAttributesEventAttributes?: {
      searchAttributes?: { indexedFields?: Record<string, { data?: string }> };
    };
    activityTaskScheduledEventAttributes?: {
      activityType?: { name?: string };
      taskQueue?: { name?: string };
      input?: { payloads?: { data?: string }[] };
    };
    workflowExecutionStartedEventAttributes?: {
      input?: { payloads?: { data?: string }[] };
      searchAttributes?: { indexedFields?: Record<string, { data?: string }> };
    };
    workflowExecutionContinuedAsNewEventAttributes?: {
      input?: { payloads?: { data?: string }[] };
    };
  }[];
}

/**
 * Replays every committed history with `workflowsPath`, in a plain Node process, with the
 * workflow interceptors a worker bundles (tracing spans: they must change no command).
 */
function replayAll(workflowsPath: string, folder = historiesFolder): ReplayOutcome[] {
  const modules = workflowInterceptorModules().join(',');
  const output = execFileSync(process.execPath, [replayScript, folder, workflowsPath, modules], {
    encoding: 'utf8',
  });
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ReplayOutcome);
}

/** The patches a recorded history took (`patched(id)` leaves a `core_patch` marker). */
function recordedPatches(fixture: string): string[] {
  const history = JSON.parse(
    readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
  ) as RecordedHistory;
  return history.events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return Object.values(marker.details ?? {}).flatMap((detail) =>
      (detail.payloads ?? []).map(
        (payload) =>
          (JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString('utf8')) as { id: string })
            .id,
      ),
    );
  });
}

/**
 * Each model call of a recorded history, in order: its activity and where it went, `provider`
 * for its provider's task queue (`<queue>-model-<provider>`), `job` for the job's own queue.
 */
function modelCallQueues(fixture: string): string[] {
  const history = JSON.parse(
    readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
  ) as RecordedHistory;
  return history.events.flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const type = scheduled?.activityType?.name ?? '';
    if (!MODEL_CALL_ACTIVITIES.has(type)) return [];
    const queue = /-model-[a-z-]+$/.test(scheduled?.taskQueue?.name ?? '') ? 'provider' : 'job';
    return [`${type} on ${queue}`];
  });
}

/** The input of each model call of a recorded history, as JSON, in order. */
function modelCallInputs(fixture: string): { input: Record<string, unknown> }[] {
  const history = JSON.parse(
    readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
  ) as RecordedHistory;
  return history.events.flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!MODEL_CALL_ACTIVITIES.has(scheduled?.activityType?.name ?? '')) return [];
    const data = scheduled?.input?.payloads?.[0]?.data ?? '';
    const input = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Record<
      string,
      unknown
    >;
    return [{ input }];
  });
}

/** The `DarPhase` values a recorded history published, in order. */
function publishedPhases(fixture: string): string[] {
  const history = JSON.parse(
    readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
  ) as RecordedHistory;
  return history.events.flatMap((event) => {
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes;
    const phase = fields?.indexedFields?.DarPhase?.data;
    return phase === undefined
      ? []
      : [JSON.parse(Buffer.from(phase, 'base64').toString('utf8')) as string];
  });
}

/** The search attributes a recorded run started with, decoded. */
function startAttributes(fixture: string): Record<string, unknown> {
  const history = JSON.parse(
    readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
  ) as RecordedHistory;
  const fields =
    history.events[0]?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields;
  return Object.fromEntries(
    Object.entries(fields ?? {}).map(([name, { data }]) => [
      name,
      JSON.parse(Buffer.from(data ?? '', 'base64').toString('utf8')) as unknown,
    ]),
  );
}

const fixtures = readdirSync(historiesFolder)
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.replace(/\.json$/, ''))
  .sort();
const firstReleaseFixtures = firstReleaseScenarios.map((scenario) => scenario.name).sort();
/** A scenario that continues as new is recorded run by run (`<name>-run-<n>`). */
const jobStoreFixtures = fixtures.filter((fixture) =>
  jobStoreScenarios.some(
    (scenario) => fixture === scenario.name || fixture.startsWith(`${scenario.name}-run-`),
  ),
);

test('R23: the fixtures are the first release histories and the job-store ones, every run', () => {
  expect(fixtures).toEqual([...firstReleaseFixtures, ...jobStoreFixtures].sort());
  for (const scenario of jobStoreScenarios) {
    const runs = jobStoreFixtures.filter((fixture) => fixture.startsWith(scenario.name));
    // A job that continues as new at least twice has three runs or more.
    expect(runs.length).toBeGreaterThanOrEqual(scenario.suggestContinueAsNewAfter ? 3 : 1);
  }
});

test('R23: first release histories have no job-store marker; job-store ones have it', () => {
  for (const fixture of firstReleaseFixtures) {
    expect(recordedPatches(fixture)).not.toContain(JOB_STORE_PATCH);
  }
  for (const fixture of jobStoreFixtures.filter((name) => !name.startsWith('features'))) {
    expect(recordedPatches(fixture)).toContain(JOB_STORE_PATCH);
  }
  // Compaction is replayed too; jobs that never reached the threshold never asked for it.
  for (const fixture of fixtures) {
    expect(recordedPatches(fixture).includes(COMPACTION_PATCH)).toBe(
      fixture === 'store-compaction',
    );
  }
});

test('R23: histories of the progress-sink release took its patches; older ones did not', () => {
  const sinkPatches = [PROGRESS_SINK_PATCH, MODEL_TASK_QUEUE_PATCH, QUEUE_MODE_PATCH];
  const sinkFixtures = fixtures.filter((fixture) => fixture.startsWith('sink-'));
  expect(sinkFixtures.length).toBeGreaterThanOrEqual(4);
  for (const fixture of fixtures) {
    const taken = sinkPatches.filter((patch) => recordedPatches(fixture).includes(patch));
    // The queue mode is chosen once, in a job's first run; a continued run carries it.
    const continued = /-run-([2-9]|\d{2,})$/.test(fixture);
    const expected = fixture.startsWith('sink-')
      ? sinkPatches.filter((patch) => patch !== QUEUE_MODE_PATCH || !continued)
      : [];
    expect({ fixture, taken }).toEqual({ fixture, taken: expected });
  }
});

test('R23: histories of each release-features release took its one patch and no other', () => {
  const releases = [
    { prefix: 'features-', patch: FIRST_RELEASE_FEATURES_PATCH },
    { prefix: 'features2-', patch: RELEASE_PATCHES[6] },
    { prefix: 'features3-', patch: RELEASE_PATCHES[5] },
    { prefix: 'features4-', patch: RELEASE_PATCHES[4] },
    { prefix: 'features5-', patch: RELEASE_PATCHES[3] },
    { prefix: 'features6-', patch: RELEASE_PATCHES[3] },
    { prefix: 'features7-', patch: RELEASE_PATCHES[2] },
    { prefix: 'features8-', patch: RELEASE_PATCHES[1] },
    { prefix: 'features9-', patch: RELEASE_FEATURES_PATCH },
  ];
  const releasePatches = releases.map((release) => release.patch);
  for (const { prefix } of releases) {
    // The sink release's jobs, compaction, approvals and user tools, continue-as-new run by run
    // (three runs at least: fewer events a run since 2026-12g, so fewer runs than before).
    expect(fixtures.filter((fixture) => fixture.startsWith(prefix)).length).toBeGreaterThanOrEqual(
      9,
    );
    // The compaction history did compact, under the one patch.
    const compaction = readFileSync(join(historiesFolder, `${prefix}compaction.json`), 'utf8');
    expect(compaction).toContain('"compactContext"');
  }
  for (const fixture of fixtures) {
    const release = releases.find(({ prefix }) => fixture.startsWith(prefix));
    // Its histories hold their release's patch alone; others hold no release patch.
    const patches = recordedPatches(fixture).filter(
      (patch) => release !== undefined || releasePatches.includes(patch),
    );
    // ... besides the patches a run asks only past a size threshold.
    const unconditional = patches.filter((patch) => !THRESHOLD_PATCHES.includes(patch));
    expect({ fixture, patches: unconditional }).toEqual({
      fixture,
      patches: release ? [release.patch] : [],
    });
  }
});

test('R23: the current release publishes DarPhase running for a whole turn; earlier ones flipped model and tools', () => {
  for (const fixture of fixtures.filter((name) => /^(sink|features)-/.test(name))) {
    expect({ fixture, running: publishedPhases(fixture).includes('running') }).toEqual({
      fixture,
      running: false,
    });
  }
  const current = fixtures.filter((name) => /^features[2-9]-/.test(name));
  for (const fixture of current) {
    const phases = publishedPhases(fixture);
    expect({ fixture, phases }).toEqual({
      fixture,
      phases: phases.filter((phase) => (DAR_PHASES as readonly string[]).includes(phase)),
    });
    // Never the same value twice in a row: an upsert only when the published phase changes.
    expect(phases.filter((phase, index) => phase === phases[index - 1])).toEqual([]);
  }
  // Two model calls and a tool turn: one upsert of DarPhase before the end, not three.
  expect(publishedPhases('features-user-tools')).toEqual(['model', 'tools', 'model', 'done']);
  expect(publishedPhases('features2-user-tools')).toEqual(['running', 'done']);
  expect(publishedPhases('features2-approvals')).toEqual([
    'running',
    'approval',
    'running',
    'done',
  ]);
});

test('R23: from release 2026-12g the client sets DarPhase and DarTurns at the start, and a job upserts DarPhase only when it changes', () => {
  const release = fixtures.filter((name) => /^features[89]-/.test(name));
  expect(release.length).toBeGreaterThanOrEqual(9);
  for (const fixture of release) {
    const started = startAttributes(fixture);
    // A continued run starts with what the run before it published (here still 0 turns).
    expect({ fixture, started }).toEqual({
      fixture,
      started: { DarPhase: 'running', DarTurns: 0 },
    });
    expect({ fixture, first: publishedPhases(fixture)[0] }).not.toEqual({
      fixture,
      first: 'running',
    });
  }
  // The same jobs of release 2026-12f started with none and upserted `running` first.
  expect(startAttributes('features7-user-tools')).toEqual({});
  expect(publishedPhases('features7-user-tools')).toEqual(['running', 'done']);
  expect(publishedPhases('features8-user-tools')).toEqual(['done']);
  expect(publishedPhases('features8-approvals')).toEqual(['approval', 'running', 'done']);
  expect(publishedPhases('features8-continue-as-new-run-2')).toEqual([]);
});

test('R23: a job a 2026-12g client started with the attributes set and a 2026-12f worker ran replays as it ran (its upserts included)', () => {
  // Rolling upgrades: clients may be upgraded before workers. Such a history holds the start's
  // attributes and the earlier release's upserts; the release patch keeps them on replay.
  const folder = temporaryFolder('dar-replay-attributes-');
  const started = JSON.parse(
    readFileSync(join(historiesFolder, 'features8-user-tools.json'), 'utf8'),
  ) as RecordedHistory;
  const attributes = started.events[0]?.workflowExecutionStartedEventAttributes?.searchAttributes;
  for (const fixture of [
    'features7-user-tools',
    'features7-parallel-batch-with-policy-and-truncation',
  ]) {
    const history = JSON.parse(
      readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
    ) as RecordedHistory;
    const first = history.events[0]?.workflowExecutionStartedEventAttributes;
    if (!first || !attributes) throw new Error('no start event');
    first.searchAttributes = attributes;
    writeFileSync(join(folder, `${fixture}.json`), JSON.stringify(history));
  }
  const results = replayAll(agentWorkflowsPath(), folder);
  expect(results.map((result) => result.workflowId).sort()).toEqual([
    'features7-parallel-batch-with-policy-and-truncation',
    'features7-user-tools',
  ]);
  for (const result of results) expect(result).toEqual({ ...result, error: null });
});

test('R23: release 2026-12d calls an unpaced model on its provider queue once, then on the job queue; 2026-12e on the job queue from the first call', () => {
  for (const fixture of fixtures.filter((name) => /^(sink|features[23]?)-/.test(name))) {
    const queues = modelCallQueues(fixture);
    expect({ fixture, queues }).toEqual({
      fixture,
      queues: queues.map(() => 'callModelWithStore on provider'),
    });
  }
  for (const [prefix, first] of [
    ['features4-', 'callModelWithStore on provider'],
    ['features5-', 'callModelUnlessPaced on job'],
  ] as const) {
    const release = fixtures.filter((name) => name.startsWith(prefix));
    expect(release.length).toBeGreaterThanOrEqual(11);
    for (const fixture of release) {
      const queues = modelCallQueues(fixture);
      const expected = queues.map((_, index) =>
        index === 0 ? first : 'callModelWithStore on job',
      );
      expect({ fixture, queues }).toEqual({ fixture, queues: expected });
    }
    expect(modelCallQueues(`${prefix}parallel-batch-with-policy-and-truncation`)).toHaveLength(4);
  }
});

test("R23: releases from 2026-12e send a large setup by value in a run's first model call and by reference in the later ones", () => {
  let byReference = 0;
  for (const prefix of ['features6-', 'features7-']) {
    const release = fixtures.filter((name) => name.startsWith(prefix));
    expect(release.length).toBeGreaterThanOrEqual(11);
    for (const fixture of release) {
      const calls = modelCallInputs(fixture);
      const [first, ...later] = calls;
      const setup = { systemPrompt: first?.input['systemPrompt'], tools: first?.input['tools'] };
      const stored = JSON.stringify(setup).length >= SETUP_BY_REFERENCE_FROM_CHARACTERS;
      // Release 2026-12e knew the setup as the same objects: a new agent run sent it again.
      const newAgentRun = (index: number) =>
        prefix === 'features6-' && fixture.includes('keep-open') && index === 1;
      const queues = modelCallQueues(fixture);
      expect({ fixture, queues }).toEqual({
        fixture,
        queues: queues.map((_, index) =>
          index === 0
            ? 'callModelUnlessPaced on job'
            : `${stored && !newAgentRun(index) ? 'callModelOnStoredSetup' : 'callModelWithStore'} on job`,
        ),
      });
      for (const [index, { input }] of later.entries()) {
        expect(input['systemPrompt'] === undefined).toBe(stored && !newAgentRun(index + 1));
        if (input['systemPrompt'] === undefined) byReference += 1;
      }
    }
    // The batch offers the five built-in tools: its later calls name the stored setup.
    expect(modelCallQueues(`${prefix}parallel-batch-with-policy-and-truncation`)).toEqual([
      'callModelUnlessPaced on job',
      ...Array<string>(3).fill('callModelOnStoredSetup on job'),
    ]);
  }
  expect(byReference).toBeGreaterThanOrEqual(6);
  // A kept-open job's second agent run: by value on 2026-12e, by reference from 2026-12f.
  expect(modelCallQueues('features6-keep-open-stored-setup')).toEqual([
    'callModelUnlessPaced on job',
    'callModelWithStore on job',
    'callModelOnStoredSetup on job',
  ]);
  expect(modelCallQueues('features7-keep-open-stored-setup')).toEqual([
    'callModelUnlessPaced on job',
    'callModelOnStoredSetup on job',
    'callModelOnStoredSetup on job',
  ]);
});

test('R23, R22: the user-tools history took its patch and the approvals history waited on a timer', () => {
  for (const fixture of fixtures) {
    expect({ fixture, userTools: recordedPatches(fixture).includes(USER_TOOLS_PATCH) }).toEqual({
      fixture,
      userTools: fixture === 'sink-user-tools',
    });
  }
  const approvals = JSON.parse(
    readFileSync(join(historiesFolder, 'sink-approvals.json'), 'utf8'),
  ) as RecordedHistory;
  const kinds = approvals.events.map((event) => event.eventType);
  // Two decisions by update, one by the deadline's durable timer.
  expect(kinds.filter((kind) => /UPDATE_COMPLETED/.test(kind))).toHaveLength(2);
  expect(kinds.filter((kind) => /TIMER_FIRED/.test(kind)).length).toBeGreaterThanOrEqual(1);
});

test('R23: every recorded history replays with the current workflow code', async () => {
  const results = replayAll(agentWorkflowsPath());
  expect(results.map((result) => result.workflowId)).toEqual(fixtures);
  for (const result of results)
    expect(result).toEqual({ workflowId: result.workflowId, error: null });
});

test('R23: a deliberately changed workflow (bash made sequential) fails replay, both paths', async () => {
  const results = replayAll(changedWorkflowsPath);
  const failed = new Map(
    results.flatMap((result) => (result.error === null ? [] : [[result.workflowId, result.error]])),
  );
  for (const fixture of [
    'parallel-batch-with-policy-and-truncation',
    'store-parallel-batch-with-policy-and-truncation',
    'sink-parallel-batch-with-policy-and-truncation',
    'features-parallel-batch-with-policy-and-truncation',
    'features2-parallel-batch-with-policy-and-truncation',
    'features3-parallel-batch-with-policy-and-truncation',
    'features4-parallel-batch-with-policy-and-truncation',
    'features5-parallel-batch-with-policy-and-truncation',
    'features6-parallel-batch-with-policy-and-truncation',
    'features7-parallel-batch-with-policy-and-truncation',
  ]) {
    expect(failed.get(fixture)).toMatch(/nondetermin|determinism/i);
  }
});

/** A recorded run's start input and, when it continued as new, the input it handed on. */
function runInputs(fixture: string): { started: string; handedOn?: string } {
  const history = JSON.parse(
    readFileSync(join(historiesFolder, `${fixture}.json`), 'utf8'),
  ) as RecordedHistory;
  const text = (data: string | undefined) => Buffer.from(data ?? '', 'base64').toString('utf8');
  const started = history.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const handedOn = history.events.find(
    (event) => event.workflowExecutionContinuedAsNewEventAttributes,
  )?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0];
  return {
    started: text(started?.data),
    ...(handedOn === undefined ? {} : { handedOn: text(handedOn.data) }),
  };
}

test('R23, R20: the current release stores queued follow-ups past the threshold before continuing as new, and carries their references', () => {
  const runs = fixtures.filter((name) => name.startsWith('features6-carried-messages-run-'));
  expect(runs.length).toBeGreaterThanOrEqual(3);
  const [first, ...later] = runs.sort(
    (a, b) => Number(a.split('-').at(-1)) - Number(b.split('-').at(-1)),
  );
  // The first run continued as new with the follow-ups queued: it stored them first.
  expect(recordedPatches(first ?? '')).toContain(STORE_CARRIED_MESSAGES_PATCH);
  for (const run of later) expect(recordedPatches(run)).not.toContain(STORE_CARRIED_MESSAGES_PATCH);
  for (const run of runs) {
    const { handedOn } = runInputs(run);
    if (handedOn !== undefined) expect(handedOn.length).toBeLessThan(16 * 1024);
  }
  // The second run started with every follow-up in its thin form: a reference, no content.
  const carried = (
    JSON.parse(runInputs(later[0] ?? '').started) as {
      carried: { followUps: { role: string; content: string; ref?: string }[] };
    }
  ).carried;
  expect(carried.followUps).toHaveLength(3);
  for (const message of carried.followUps) {
    expect(message).toMatchObject({ role: 'user', content: '' });
    expect(message.ref).toMatch(/^sha256:/);
  }
});
