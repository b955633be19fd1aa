import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedAnswer } from '../../src/providers/model-script.js';
import type { AgentJobInput } from '../../src/workflows/job-types.js';
import { text, toolCall } from '../support/agent-harness.js';

/** A recorded run: what was started, and what was done to it while it ran. */
export interface ReplayScenario {
  name: string;
  answers: ScriptedAnswer[];
  input: Omit<AgentJobInput, 'model' | 'workspace'>;
  /** Sent once the first tool has started. */
  steer?: string;
  cancelAfterToolStart?: boolean;
  /** Sent once the job waits for a message (a kept-open job). */
  followUp?: string;
  /** Sent once the first tool has started, queued until the run would stop. */
  followUpsWhileFirstToolRuns?: string[];
  /**
   * Temporal suggests continue-as-new once a run's history has this many events; every run of
   * the job is recorded, as `<name>-run-<n>`.
   */
  suggestContinueAsNewAfter?: number;
  /** Decided once each call waits for approval (R22); calls not named wait for their deadline. */
  approvals?: { toolCallId: string; decision: 'approve' | 'deny' }[];
  /** The recording worker also runs the user tool `shout` (a `defineTool` tool). */
  userTools?: boolean;
}

/** A parallel batch (a blocked path, an unknown tool), a truncated turn, then two more turns. */
function parallelBatchAnswers(extraFirstCalls: ScriptedAnswer['content'] = []): ScriptedAnswer[] {
  return [
    {
      stopReason: 'toolUse',
      content: [
        toolCall('a', 'bash', { command: 'sleep 0.5; echo slow' }),
        toolCall('b', 'bash', { command: 'echo fast' }),
        toolCall('c', 'read', { path: '../outside.txt' }),
        toolCall('d', 'nope', {}),
        toolCall('e', 'write', { path: 'notes.txt', content: 'one\ntwo\n' }),
        ...extraFirstCalls,
      ],
    },
    { stopReason: 'length', content: [toolCall('f', 'ls', {})] },
    {
      stopReason: 'toolUse',
      content: [toolCall('g', 'edit', { path: 'notes.txt', oldText: 'two', newText: '2' })],
    },
    { stopReason: 'stop', content: [text('tidy')] },
  ];
}

/**
 * Histories of the first release, which carried the transcript and events in history. They
 * are kept as recorded (no `dar-job-store` marker) and must replay through the legacy code;
 * they cannot be recorded again, since new jobs take the job-store path.
 */
export const firstReleaseScenarios: ReplayScenario[] = [
  {
    name: 'parallel-batch-with-policy-and-truncation',
    input: { prompt: 'tidy up', tools: ['read', 'write', 'edit', 'ls', 'bash'] },
    answers: parallelBatchAnswers(),
  },
  {
    name: 'steered',
    input: { prompt: 'wait a bit', tools: ['bash'] },
    steer: 'and then stop',
    answers: [
      { stopReason: 'toolUse', content: [toolCall('s', 'bash', { command: 'sleep 1' })] },
      { stopReason: 'stop', content: [text('stopped')] },
    ],
  },
  {
    name: 'cancelled-during-parallel-tools',
    input: { prompt: 'long work', tools: ['bash'] },
    cancelAfterToolStart: true,
    answers: [
      {
        stopReason: 'toolUse',
        content: [
          toolCall('x', 'bash', { command: 'sleep 30' }),
          toolCall('y', 'bash', { command: 'sleep 30' }),
        ],
      },
      { stopReason: 'stop', content: [text('never')] },
    ],
  },
];

function usage(input: number) {
  return { input, output: 10, costUsd: 0 };
}

/** A turn printing 200 characters (about 50 tokens), reporting `inputTokens` of prompt. */
function compactionTurn(id: string, inputTokens: number): ScriptedAnswer {
  return {
    stopReason: 'toolUse',
    content: [toolCall(id, 'bash', { command: "head -c 200 /dev/zero | tr '\\0' x" })],
    usage: usage(inputTokens),
  };
}

/** Turns of the continue-as-new scenario: enough for at least two continue-as-new. */
const continueAsNewTurns = 8;

/**
 * Histories of jobs that keep their transcript and events in the job store (they record the
 * `dar-job-store` marker). `npm run record-histories` records these.
 */
export const jobStoreScenarios: ReplayScenario[] = [
  {
    name: 'store-parallel-batch-with-policy-and-truncation',
    input: {
      prompt: 'tidy up',
      tools: ['read', 'write', 'edit', 'ls', 'bash'],
      policy: {
        rules: [
          {
            tool: 'bash',
            argument: 'command',
            pattern: 'rm\\s+-rf',
            reason: 'no recursive deletes',
          },
        ],
      },
    },
    // The policy file blocks the last call of the batch.
    answers: parallelBatchAnswers([toolCall('h', 'bash', { command: 'rm -rf .' })]),
  },
  {
    name: 'store-steered',
    input: { prompt: 'wait a bit', tools: ['bash'] },
    steer: 'and then stop',
    answers: [
      { stopReason: 'toolUse', content: [toolCall('s', 'bash', { command: 'sleep 1' })] },
      { stopReason: 'stop', content: [text('stopped')] },
    ],
  },
  {
    name: 'store-keep-open-follow-up',
    input: { prompt: 'first question', tools: ['bash'], keepOpenMs: 1500 },
    followUp: 'one more question',
    answers: [
      { stopReason: 'stop', content: [text('first answer')] },
      { stopReason: 'toolUse', content: [toolCall('k', 'bash', { command: 'echo again' })] },
      { stopReason: 'stop', content: [text('second answer')] },
    ],
  },
  {
    name: 'store-continue-as-new',
    input: { prompt: 'count', tools: ['bash'] },
    suggestContinueAsNewAfter: 30,
    answers: [
      ...Array.from({ length: continueAsNewTurns }, (_, index) => ({
        stopReason: 'toolUse' as const,
        content: [toolCall(`call-${index}`, 'bash', { command: `echo turn ${index}` })],
      })),
      { stopReason: 'stop', content: [text('counted')] },
    ],
  },
  {
    // Over the window after the second turn: a summary call, then a turn on summary + recent turns.
    name: 'store-compaction',
    input: {
      prompt: 'fill the context',
      tools: ['bash'],
      compaction: { contextWindow: 1000, reserveTokens: 200, keepRecentTokens: 60 },
    },
    answers: [
      compactionTurn('one', 150),
      compactionTurn('two', 850),
      { stopReason: 'stop', content: [text('summary of one')], usage: usage(500) },
      compactionTurn('three', 300),
      { stopReason: 'stop', content: [text('filled')], usage: usage(300) },
    ],
  },
];

/**
 * The same jobs recorded again by the release that sends events through the progress sink, runs
 * model calls on the model task queue and delivers queued messages one at a time (histories with
 * the `dar-progress-sink`, `dar-model-task-queue` and `dar-queue-mode` markers), so that jobs
 * this release started replay on every later one.
 */
const sinkScenarioSources = [
  'store-parallel-batch-with-policy-and-truncation',
  'store-steered',
  'store-keep-open-follow-up',
  'store-continue-as-new',
];
jobStoreScenarios.push(
  ...jobStoreScenarios
    .filter((scenario) => sinkScenarioSources.includes(scenario.name))
    .map((scenario) => ({ ...scenario, name: scenario.name.replace(/^store-/, 'sink-') })),
);

/**
 * Paths that came with approvals and user tools, recorded by the same release (so they took its
 * markers too, and `dar-user-tools` for the user tool): a call approved, one denied, one denied
 * by its deadline's timer; and a user tool whose description the workflow got from the worker.
 */
jobStoreScenarios.push(
  {
    name: 'sink-approvals',
    input: {
      prompt: 'ask first',
      tools: ['bash'],
      policy: {
        rules: [
          {
            tool: 'bash',
            argument: 'command',
            pattern: '^sleep',
            reason: 'waits',
            approve: true,
            timeoutMs: 1000,
            onTimeout: 'deny',
          },
          { tool: 'bash', reason: 'an operator decides', approve: true },
        ],
      },
    },
    approvals: [
      { toolCallId: 'yes', decision: 'approve' },
      { toolCallId: 'no', decision: 'deny' },
    ],
    answers: [
      {
        stopReason: 'toolUse',
        content: [
          toolCall('yes', 'bash', { command: 'echo approved' }),
          toolCall('no', 'bash', { command: 'echo denied' }),
          toolCall('late', 'bash', { command: 'sleep 0' }),
        ],
      },
      { stopReason: 'stop', content: [text('asked')] },
    ],
  },
  {
    name: 'sink-user-tools',
    input: { prompt: 'shout it', tools: ['shout', 'bash'] },
    userTools: true,
    answers: [
      {
        stopReason: 'toolUse',
        content: [
          toolCall('loud', 'shout', { text: 'hello' }),
          toolCall('plain', 'bash', { command: 'echo quiet' }),
        ],
      },
      { stopReason: 'stop', content: [text('shouted')] },
    ],
  },
);

/** The sink release's jobs and compaction: what each release patch is recorded with. */
const releasePatchScenarios = jobStoreScenarios.filter(
  (scenario) => scenario.name.startsWith('sink-') || scenario.name === 'store-compaction',
);

/**
 * The same jobs, recorded again by each release that records one patch for all its features
 * instead of one per feature, so that jobs it started replay on every later release:
 * `features-*` by the first (`dar-features-2026-12`), `features2-*` by the second
 * (`dar-features-2026-12b`, which also publishes `DarPhase` as `running`), `features3-*` by the
 * third (`dar-features-2026-12c`, whose loop settles fewer promises; recording any of these again
 * now would record the current patch, so they are kept as they are), `features4-*` by the
 * fourth (`dar-features-2026-12d`, whose unpaced model calls go on the job's queue after the
 * first), `features5-*` by the fifth (`dar-features-2026-12e`, whose first model call goes on
 * the job's queue unless its worker paces the provider), `features6-*` by the same release once
 * a run's later model calls sent a large setup by reference (`callModelOnStoredSetup`, the setup
 * known as the same objects), `features7-*` by the seventh (`dar-features-2026-12f`, which
 * knows a stored setup by value: a kept-open job's next agent run sends it by reference too),
 * `features8-*` by the eighth (`dar-features-2026-12g`: the client sets `DarPhase` and
 * `DarTurns` at the start, and the job does not upsert them again), `features9-*` by the current
 * one (`dar-features-2026-12h`: schema patterns matched by RE2). Recording any but the current
 * one's again now would record the current patch.
 */
const releasePrefixes = [
  'features-',
  'features2-',
  'features3-',
  'features4-',
  'features5-',
  'features6-',
  'features7-',
  'features8-',
  'features9-',
];
for (const prefix of releasePrefixes) {
  jobStoreScenarios.push(
    ...releasePatchScenarios.map((scenario) => ({
      ...scenario,
      name: scenario.name.replace(/^(sink|store)-/, prefix),
    })),
  );
}

/**
 * Follow-ups queued while a run works, together past the threshold of `carried-messages.ts`
 * when the job continues as new: the run stores them first (patch `dar-store-carried-messages`)
 * and the next run's input carries their references. Recorded by the current release.
 */
const carriedFollowUps = ['a', 'b', 'c'].map((letter) => `${letter.repeat(8_000)} (follow-up)`);
jobStoreScenarios.push({
  name: 'features6-carried-messages',
  input: { prompt: 'count, then read the follow-ups', tools: ['bash'] },
  suggestContinueAsNewAfter: 30,
  followUpsWhileFirstToolRuns: carriedFollowUps,
  answers: [
    { stopReason: 'toolUse', content: [toolCall('call-0', 'bash', { command: 'sleep 1' })] },
    ...Array.from({ length: continueAsNewTurns }, (_, index) => ({
      stopReason: 'toolUse' as const,
      content: [toolCall(`call-${index + 1}`, 'bash', { command: `echo turn ${index + 1}` })],
    })),
    { stopReason: 'stop', content: [text('counted')] },
    ...carriedFollowUps.map((_, index) => ({
      stopReason: 'stop' as const,
      content: [text(`read follow-up ${index}`)],
    })),
  ],
});

/**
 * A kept-open job whose setup is worth storing (a long system prompt): its second agent run
 * builds new tool descriptors. `features6-*` was recorded by release `2026-12e`, which sent the
 * setup by value again in that run's first call; `features7-*` by the current one, which sends
 * the stored setup's reference.
 */
for (const prefix of ['features6-', 'features7-']) {
  jobStoreScenarios.push({
    name: `${prefix}keep-open-stored-setup`,
    input: {
      prompt: 'first question',
      tools: ['bash'],
      keepOpenMs: 1500,
      systemPrompt: 'Answer briefly and say which command you ran. '.repeat(40),
    },
    followUp: 'one more question',
    answers: [
      { stopReason: 'stop', content: [text('first answer')] },
      { stopReason: 'toolUse', content: [toolCall('k', 'bash', { command: 'echo again' })] },
      { stopReason: 'stop', content: [text('second answer')] },
    ],
  });
}

export const scenarios: ReplayScenario[] = [...firstReleaseScenarios, ...jobStoreScenarios];

export function prepareScenarioFolder(root: string, scenario: ReplayScenario) {
  const folder = join(root, scenario.name);
  const workspace = join(folder, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(folder, 'outside.txt'), 'not for the agent');
  const script = join(folder, 'script.json');
  writeFileSync(script, JSON.stringify(scenario.answers));
  return { workspace, model: `scripted:${script}` };
}
