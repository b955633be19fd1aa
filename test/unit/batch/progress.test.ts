import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskProgress } from '../../../src/batch/batch-runner.js';
import { liveProgress, plainProgress } from '../../../src/batch/progress-display.js';
import {
  countTasks,
  estimateRemaining,
  formatDuration,
  progressBar,
} from '../../../src/batch/progress-summary.js';
import { writeResults } from '../../../src/batch/results-file.js';
import type { TaskOutcome } from '../../../src/batch/task-outcome.js';
import { exactPhaseOf, jobListQuery } from '../../../src/client/job-list-filter.js';
import { UsageError } from '../../../src/cli/usage-error.js';
import { emptyUsage } from '../../../src/core/index.js';

function task(
  id: string,
  state: TaskProgress['state'],
  outcome?: Partial<TaskOutcome>,
): TaskProgress {
  const progress: TaskProgress = {
    task: { id, line: 1, input: { prompt: 'p', model: 'scripted:x', workspace: '/w', tools: [] } },
    workflowId: `batch-b-${id}`,
    state,
    origin: 'started',
    attempt: 1,
    earlier: [],
  };
  if (state !== 'queued' && state !== 'running' && state !== 'skipped') {
    const usage = {
      ...emptyUsage(),
      totalTokens: 100,
      cost: { ...emptyUsage().cost, total: 0.01 },
    };
    progress.outcome = { status: state, text: `${id} text`, usage, turns: 2, ...outcome };
  }
  return progress;
}

function collector(columns?: number) {
  const output = { text: '', columns, write: (chunk: string) => (output.text += chunk) };
  return output;
}

test('counts, tokens, durations, ETA and bar', () => {
  const tasks = [
    task('a', 'completed'),
    task('b', 'failed', { error: 'boom' }),
    task('c', 'running'),
    task('d', 'queued'),
    task('e', 'cancelled'),
  ];
  const counts = countTasks(tasks);
  expect(counts).toEqual({
    total: 5,
    done: 1,
    running: 1,
    failed: 1,
    cancelled: 1,
    queued: 1,
    skipped: 0,
    tokens: 300,
    costUsd: 0.03,
    turns: 6,
  });
  expect(formatDuration(7_400)).toBe('0:07');
  expect(formatDuration(754_000)).toBe('12:34');
  expect(formatDuration(3_723_000)).toBe('1:02:03');
  // 3 finished in 30 s, 2 left: 20 s more.
  expect(estimateRemaining(counts, 3, 30_000)).toBe(20_000);
  expect(estimateRemaining(counts, 0, 30_000)).toBeUndefined();
  expect(progressBar(counts, 10)).toBe('[######....]');
});

test('plain progress: one line per state change, with the counts', () => {
  const tasks = [task('a', 'queued'), task('b', 'queued')];
  const output = collector();
  const display = plainProgress(output, tasks);
  tasks[0] = Object.assign(tasks[0] as TaskProgress, { state: 'running' });
  display.change(tasks[0]);
  const finished = task('a', 'failed', { error: 'the model script is used up' });
  tasks[0] = finished;
  display.change(finished);
  const attached = Object.assign(tasks[1] as TaskProgress, {
    state: 'running',
    origin: 'attached',
  });
  display.change(attached);
  display.end();
  const lines = output.text.trimEnd().split('\n');
  expect(lines[0]).toBe(
    'a running (batch-b-a)  [done 0/2  running 1  failed 0  cancelled 0  queued 1]',
  );
  expect(lines[1]).toBe(
    'a failed (2 turns, 100 tokens, $0.0100): the model script is used up  ' +
      '[done 0/2  running 0  failed 1  cancelled 0  queued 1]',
  );
  expect(lines[2]).toMatch(/^b running \(attached\) {2}\[done 0\/2 {2}running 1/);
  // Elapsed is wall time: a loaded machine may take a second over this test.
  expect(lines[3]).toMatch(
    /^done 0\/2 {2}running 1 .* turns 2 {2}tokens 100 {2}cost \$0\.0100 {2}elapsed 0:0\d {2}eta /,
  );
});

test('live progress: a block redrawn in place, failures printed above it', () => {
  const tasks = [task('a', 'running'), task('b', 'queued')];
  const output = collector(0);
  const display = liveProgress(output, tasks, 'batch b');
  const failed = task('a', 'failed', { error: 'boom' });
  tasks[0] = failed;
  display.change(failed);
  display.end();
  const frames = output.text.split('\x1b[3F\x1b[J');
  // First draw, the change, the end: each frame is the 3-line block, nothing wraps.
  expect(frames).toHaveLength(3);
  expect(frames[0]).toMatch(/^batch b {2}\[\.+\]\ndone 0\/2 {2}running 1 .*\nturns 0 {2}tokens 0 /);
  expect(frames[1]).toMatch(
    /^a failed \(2 turns, 100 tokens, \$0\.0100\): boom\nbatch b {2}\[#+\.+\]\ndone 0\/2 {2}running 0 {2}failed 1/,
  );
  for (const frame of frames) {
    for (const line of frame.split('\n')) expect(line.length).toBeLessThan(80);
  }
});

test('the results file: one line per finished task, in file order, replaced whole', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dar-results-'));
  const path = join(folder, 'out.jsonl');
  const tasks = [
    task('b', 'completed'),
    task('a', 'running'),
    task('c', 'failed', { error: 'boom', text: '' }),
  ];
  expect(writeResults(path, tasks)).toBe(2);
  const lines = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines).toEqual([
    {
      id: 'b',
      status: 'completed',
      text: 'b text',
      usage: { ...emptyUsage(), totalTokens: 100, cost: { ...emptyUsage().cost, total: 0.01 } },
      turns: 2,
      attempt: 1,
      workflowId: 'batch-b-b',
    },
    expect.objectContaining({ id: 'c', status: 'failed', error: 'boom', workflowId: 'batch-b-c' }),
  ]);
  expect(readdirSync(folder)).toEqual(['out.jsonl']);
});

test('running usage, skipped tasks and earlier attempts count in the summary and the results file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dar-results-'));
  const path = join(folder, 'out.jsonl');
  const running = task('a', 'running');
  running.live = { turns: 3, usage: { ...emptyUsage(), totalTokens: 50 } };
  const skipped = Object.assign(task('b', 'skipped'), {
    skipReason: 'Batch budget exceeded: turns 5 of 5',
  });
  const retried = task('c', 'completed');
  retried.earlier.push({
    attempt: 1,
    workflowId: 'batch-b-c',
    outcome: { status: 'failed', text: '', usage: null, turns: 1, error: 'boom' },
  });
  Object.assign(retried, { attempt: 2, workflowId: 'batch-b-c+attempt-2' });
  const tasks = [running, skipped, retried];
  const counts = countTasks(tasks);
  expect(counts).toMatchObject({ skipped: 1, running: 1, done: 1, turns: 6, tokens: 150 });
  expect(progressBar(counts, 3)).toBe('[##.]');

  const output = collector();
  const display = plainProgress(output, tasks);
  display.change(skipped);
  display.change(retried);
  const lines = output.text.trimEnd().split('\n');
  expect(lines[0]).toMatch(
    /^b skipped \(not started\): Batch budget exceeded: turns 5 of 5 {2}\[.* skipped 1\]$/,
  );
  expect(lines[1]).toMatch(/^c \(attempt 2\) completed \(3 turns, 100 tokens, \$0\.0100\)/);

  expect(writeResults(path, tasks)).toBe(2);
  const written = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(written[0]).toEqual({
    id: 'b',
    attempt: 1,
    workflowId: 'batch-b-b',
    status: 'skipped',
    text: '',
    usage: null,
    turns: null,
    error: 'Batch budget exceeded: turns 5 of 5',
  });
  expect(written[1]).toMatchObject({
    id: 'c',
    attempt: 2,
    workflowId: 'batch-b-c+attempt-2',
    status: 'completed',
    earlierAttempts: [{ attempt: 1, workflowId: 'batch-b-c', status: 'failed', error: 'boom' }],
  });
});

test('list filters: batch and phase, checked before they reach the query', () => {
  expect(jobListQuery({})).toBe("WorkflowType = 'agentJob'");
  expect(jobListQuery({ batch: 'b1', phase: 'done' })).toBe(
    "WorkflowType = 'agentJob' AND DarBatchId = 'b1' AND DarPhase = 'done'",
  );
  // Running jobs publish `running`; jobs of earlier releases still running publish the flip.
  for (const phase of ['running', 'model', 'tools']) {
    expect(jobListQuery({ batch: 'b1', phase })).toBe(
      "WorkflowType = 'agentJob' AND DarBatchId = 'b1' AND DarPhase IN ('running', 'model', 'tools')",
    );
  }
  // Visibility cannot tell model from tools: the stored phase does.
  expect(exactPhaseOf({ phase: 'tools' })).toBe('tools');
  expect(exactPhaseOf({ phase: 'model' })).toBe('model');
  expect(exactPhaseOf({ phase: 'running' })).toBeUndefined();
  expect(exactPhaseOf({})).toBeUndefined();
  expect(jobListQuery({ batch: 'b1', runningOnly: true })).toBe(
    "WorkflowType = 'agentJob' AND DarBatchId = 'b1' AND ExecutionStatus = 'Running'",
  );
  expect(() => jobListQuery({ phase: 'thinking' })).toThrow(UsageError);
  expect(() => jobListQuery({ batch: "b' OR '1'='1" })).toThrow(UsageError);
});
