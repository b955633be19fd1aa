/**
 * A batch on a real Temporal cluster on PostgreSQL, as docker-compose.yml deploys it
 * (scripts/cluster/cluster.mjs: the compose file's server version and server environment, its
 * schema and namespace scripts), with the job store in the same PostgreSQL. Two `dar worker`
 * processes run the jobs (`dar batch --no-worker` only starts and watches them); one is SIGKILLed
 * while its tool calls run, then the Temporal server is stopped and started again while the jobs
 * go on. Every job completes, no model call is made twice (R24), every tool call has exactly one
 * result (R4), and the search attributes and `dar list` work.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import pg from 'pg';
import { getJob } from '../../src/client/job-client.js';
import { openJobStore } from '../../src/store/open-job-store.js';
import type { JobStore } from '../../src/store/job-store.js';
import { dar, killLeftoverDars, startDar, type DarProcess } from '../e2e/support/dar.js';
import { expectExit } from '../e2e/support/expect-exit.js';
import { bashTurn, finalTurn, makeTempDir, removeDir, writeScript } from '../e2e/support/files.js';
import { parseJsonLines } from '../e2e/support/jobs.js';
import { isRunning, signalGroup } from '../e2e/support/processes.js';
import { readHistory, type HistoryEvent } from '../e2e/support/temporal.js';
import { sleep, waitFor } from '../e2e/support/wait.js';
import { startLocalCluster, type LocalCluster } from './support/local-cluster.js';
import { MODEL_CALL_ACTIVITIES } from '../../src/workflows/model-call-activities.js';

const TASKS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
const TOOL_TURNS = 3;
/** How long each tool call runs: long enough to SIGKILL a worker while its tools run. */
const TOOL_SECONDS = 6;

const root = makeTempDir('cluster');
const workspace = join(root, 'workspace');
const marks = join(workspace, 'marks');
const batchId = `cluster-${process.pid}`;
const shellGroups = new Set<number>();
let cluster: LocalCluster | undefined;

/** The cluster's variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DAR_STORE_URL) for `dar`. */
function clusterEnv(): Record<string, string> {
  if (!cluster) throw new Error('The cluster is not up');
  return cluster.env;
}

function toolCallId(task: string, turn: number): string {
  return `${task}-${turn}`;
}

/** Each tool call records its shell and worker pids, its start and its end in `marks/`. */
function toolCommand(callId: string): string {
  return (
    `echo $$ $PPID > marks/${callId}.pid; touch marks/${callId}.start; ` +
    `sleep ${TOOL_SECONDS}; touch marks/${callId}.end`
  );
}

function writeBatch(): string {
  const lines = TASKS.map((task) => {
    const answers = [];
    for (let turn = 1; turn <= TOOL_TURNS; turn += 1) {
      const callId = toolCallId(task, turn);
      answers.push(bashTurn(callId, toolCommand(callId)));
    }
    answers.push(finalTurn(`Task ${task} done.`));
    writeScript(root, `${task}.json`, answers);
    return JSON.stringify({
      id: task,
      prompt: `Run task ${task}`,
      model: `scripted:${task}.json`,
      workspace: 'workspace',
      tools: ['bash'],
    });
  });
  const file = join(root, 'tasks.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A tool call whose command started and has not ended. */
interface RunningCall {
  task: string;
  turn: number;
  shellPid: number;
  workerPid: number;
  startedMs: number;
}

function runningCalls(): RunningCall[] {
  const running: RunningCall[] = [];
  for (const task of TASKS) {
    for (let turn = 1; turn <= TOOL_TURNS; turn += 1) {
      const base = join(marks, toolCallId(task, turn));
      if (!existsSync(`${base}.start`) || existsSync(`${base}.end`)) continue;
      const [shellPid, workerPid] = readFileSync(`${base}.pid`, 'utf8').trim().split(' ');
      running.push({
        task,
        turn,
        shellPid: Number(shellPid),
        workerPid: Number(workerPid),
        startedMs: statSync(`${base}.start`).mtimeMs,
      });
    }
  }
  return running;
}

/** When a tool call's command started and ended (its marks' times; an unended call: now). */
function callSpan(callId: string): { startMs: number; endMs: number } {
  const base = join(marks, callId);
  return {
    startMs: statSync(`${base}.start`).mtimeMs,
    endMs: existsSync(`${base}.end`) ? statSync(`${base}.end`).mtimeMs : Date.now(),
  };
}

function startWorker(): DarProcess {
  return startDar(['worker'], { env: clusterEnv(), cwd: root, timeoutMs: 240_000 });
}

function waitUntilPolling(worker: DarProcess): Promise<true> {
  return waitFor(
    'the worker to poll',
    () => {
      if (!worker.isRunning) throw new Error(`The worker exited:\n${worker.stderr}`);
      return worker.stderr.includes('Worker running on task queue');
    },
    { timeoutMs: 90_000 },
  );
}

async function listJobs(phase: string): Promise<Array<Record<string, unknown>>> {
  const result = await dar(['list', '--batch', batchId, '--phase', phase, '--json'], {
    env: clusterEnv(),
    cwd: root,
  });
  expectExit(result, 0);
  return parseJsonLines(result.stdout);
}

beforeAll(async () => {
  mkdirSync(marks, { recursive: true });
  cluster = await startLocalCluster();
}, 300_000);

afterAll(async () => {
  await killLeftoverDars();
  for (const group of shellGroups) signalGroup(group, 'SIGKILL');
  await cluster?.down();
  removeDir(root);
}, 120_000);

test('the cluster is set up by the compose file scripts, on PostgreSQL', async () => {
  const log = cluster?.setupLog ?? '';
  // deploy/temporal/setup-postgres-schema.sh and setup-namespace.sh ran to their end.
  expect(log).toContain('Schema of temporal ...');
  expect(log).toContain('Schema of temporal_visibility ...');
  expect(log).toContain('PostgreSQL schemas are up to date.');
  expect(log).toContain('Namespace default is ready for agent jobs.');
  expect(clusterEnv().DAR_STORE_URL).toMatch(/^postgres:\/\/temporal:temporal@127\.0\.0\.1:\d+\//);
  // The search attributes the jobs publish are registered with their types.
  const connection = await Connection.connect({ address: cluster!.address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: 'default',
    });
    const registered = Object.fromEntries(
      Object.entries(customAttributes ?? {}).filter(([name]) => name.startsWith('Dar')),
    );
    expect(registered).toEqual({
      DarBatchId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      DarPhase: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      DarTurns: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
    });
  } finally {
    await connection.close();
  }
});

test('R4, R24: a batch on two workers survives a worker SIGKILL and a server restart; nothing is lost, no model call runs twice', async () => {
  const tasksFile = writeBatch();
  const workers = [startWorker(), startWorker()];
  await Promise.all(workers.map(waitUntilPolling));

  const batch = startDar(
    [
      'batch',
      tasksFile,
      '--no-worker',
      '--concurrency',
      String(TASKS.length),
      '--batch-id',
      batchId,
      '--results',
      join(root, 'results.jsonl'),
    ],
    { env: clusterEnv(), cwd: root, timeoutMs: 240_000 },
  );

  // The kill: when every job runs a tool call started moments ago, no model call is in flight
  // anywhere, so the killed worker takes only tool calls with it.
  const atKill = await waitFor(
    'every job to be in the middle of a tool call',
    () => {
      if (!batch.isRunning) throw new Error(`dar batch exited:\n${batch.stdout}${batch.stderr}`);
      const running = runningCalls();
      const fresh = running.every(
        (call) => Date.now() - call.startedMs < (TOOL_SECONDS - 1.5) * 1000,
      );
      const everyTask = TASKS.every((task) => running.some((call) => call.task === task));
      return everyTask && fresh && running.length === TASKS.length && running;
    },
    { timeoutMs: 120_000, intervalMs: 50 },
  );
  const workerPids = workers.map((worker) => worker.pid);
  const callsOf = (pid: number) => atKill.filter((call) => call.workerPid === pid);
  // Both pids are workers' (each tool's shell is a child of the worker that runs it).
  expect(atKill.filter((call) => !workerPids.includes(call.workerPid))).toEqual([]);
  const victimIndex = callsOf(workerPids[0]!).length >= callsOf(workerPids[1]!).length ? 0 : 1;
  const victim = workers[victimIndex]!;
  const survivor = workers[1 - victimIndex]!;
  victim.signal('SIGKILL');
  expect((await victim.done).signal).toBe('SIGKILL');
  const lost = callsOf(victim.pid);
  expect(lost.length).toBeGreaterThan(0);
  // A killed worker's tool commands outlive it (R24's at-least-once reality); stopped here.
  for (const call of lost) {
    shellGroups.add(call.shellPid);
    signalGroup(call.shellPid, 'SIGKILL');
  }

  // The full server stop and start, while the survivor runs the jobs' next turns.
  await waitFor(
    'a second turn to start on the surviving worker',
    () => TASKS.some((task) => existsSync(join(marks, `${toolCallId(task, 2)}.start`))),
    { timeoutMs: 90_000 },
  );
  const serverPid = cluster!.serverPid();
  expect(serverPid).toBeDefined();
  const outageStartMs = Date.now();
  await cluster!.stopServer();
  expect(isRunning(serverPid!)).toBe(false);
  expect(cluster!.serverPid()).toBeUndefined();
  await sleep(1000);
  await cluster!.startServer();
  const outageEndMs = Date.now();
  expect(cluster!.serverPid()).not.toBe(serverPid);
  expect(survivor.isRunning).toBe(true);

  const finished = await batch.done;
  expectExit(finished, 0);
  expect(survivor.isRunning).toBe(true);

  // The results file: every task completed.
  const results = parseJsonLines(readFileSync(join(root, 'results.jsonl'), 'utf8'));
  expect(results.map(({ id, status }) => ({ id, status }))).toEqual(
    TASKS.map((id) => ({ id, status: 'completed' })),
  );

  const connection = await Connection.connect({ address: cluster!.address });
  const client = new Client({ connection, namespace: 'default' });
  const store: JobStore = await openJobStore({ url: cluster!.storeUrl, folder: root });
  const identities = new Set<string>();
  try {
    for (const task of TASKS) {
      const workflowId = `batch-${batchId}-${task}`;
      const result = await getJob(client, workflowId, store).result();
      const history = await readHistory(client, workflowId);
      const scheduled = (...types: string[]) =>
        history.filter(
          (event) =>
            event.kind === 'activityTaskScheduled' && types.includes(event.activityType ?? ''),
        );
      const modelScheduled = new Set(
        scheduled(...MODEL_CALL_ACTIVITIES).map(({ eventId }) => eventId),
      );
      const starts = history.filter((event) => event.kind === 'activityTaskStarted');
      for (const start of starts) if (start.identity) identities.add(start.identity);

      // One model call per assistant message, none started twice.
      const assistants = result.messages.filter((message) => message.role === 'assistant');
      expect({ task, assistants: assistants.length }).toEqual({ task, assistants: TOOL_TURNS + 1 });
      expect(modelScheduled.size).toBe(assistants.length);
      const modelStarts = starts.filter((event) => modelScheduled.has(event.scheduledEventId ?? 0));
      expect(modelStarts).toHaveLength(assistants.length);
      expect(modelStarts.filter((event: HistoryEvent) => (event.attempt ?? 1) > 1)).toEqual([]);

      // R4: every tool call has exactly one result; only the killed worker's calls are errors,
      // timed out by their heartbeat.
      const toolResults = result.messages.filter((message) => message.role === 'toolResult');
      const expectedIds = Array.from({ length: TOOL_TURNS }, (_, index) =>
        toolCallId(task, index + 1),
      );
      expect(toolResults.map((message) => message.toolCallId)).toEqual(expectedIds);
      const lostHere = lost.filter((call) => call.task === task).map((call) => call.turn);
      // A call that was running while the server was down could not heartbeat: when the outage
      // outlasts its heartbeat timeout, the restarted server times it out, and the model is told
      // it was interrupted. Either outcome is right for such a call; every other call is exact.
      const interrupted = `interrupted: this call may have partially run`;
      const overlapsOutage = (turn: number) =>
        callSpan(toolCallId(task, turn)).startMs <= outageEndMs &&
        callSpan(toolCallId(task, turn)).endMs >= outageStartMs;
      const outcomes = toolResults.map((message, index) => {
        const turn = index + 1;
        const text = JSON.stringify(message.content).slice(0, 300);
        if (lostHere.includes(turn))
          return { turn, outcome: 'killed', isError: message.isError, text };
        if (overlapsOutage(turn) && message.isError) return { turn, outcome: 'outage', text };
        return { turn, outcome: 'ran', isError: message.isError };
      });
      expect(outcomes).toEqual(
        outcomes.map(({ turn, outcome }) => {
          if (outcome === 'killed') {
            return {
              turn,
              outcome,
              isError: true,
              text: expect.stringContaining(interrupted) as unknown,
            };
          }
          if (outcome === 'outage')
            return { turn, outcome, text: expect.stringContaining(interrupted) as unknown };
          return { turn, outcome: 'ran', isError: false };
        }),
      );
      const outageTimeouts = outcomes.filter(({ outcome }) => outcome === 'outage').length;
      const timedOut = history.filter((event) => event.kind === 'activityTaskTimedOut');
      expect(timedOut).toHaveLength(lostHere.length + outageTimeouts);
      for (const event of timedOut) expect(event.failureMessage).toMatch(/heartbeat/i);
      expect(scheduled('executeToolWithStore')).toHaveLength(TOOL_TURNS);

      // The job's event stream in the PostgreSQL store has no gap and no repeat.
      const events = await store.readEvents(workflowId, { limit: 500 });
      expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
      const types = events.map((event) => (event.event as { type?: string }).type);
      expect(types.filter((type) => type === 'agent_end')).toHaveLength(1);
    }
  } finally {
    await store.close();
    await connection.close();
  }
  // Both workers ran the batch's activities.
  for (const pid of workerPids) {
    expect([...identities].some((identity) => identity.startsWith(`${pid}@`))).toBe(true);
  }

  // Search attributes and `dar list` (visibility on PostgreSQL is updated asynchronously).
  const done = await waitFor(
    'dar list to show every job done',
    async () => {
      const rows = await listJobs('done');
      return rows.length === TASKS.length && rows;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  expect(
    done.map(({ id, status, phase, turns, batch }) => ({ id, status, phase, turns, batch })),
  ).toEqual(
    expect.arrayContaining(
      TASKS.map((task) => ({
        id: `batch-${batchId}-${task}`,
        status: 'COMPLETED',
        phase: 'done',
        turns: TOOL_TURNS + 1,
        batch: batchId,
      })),
    ),
  );
  expect(await listJobs('tools')).toEqual([]);

  // The visibility records are in PostgreSQL's temporal_visibility database.
  const visibility = new pg.Client({
    connectionString: cluster!.storeUrl.replace(/\/dar_store$/, '/temporal_visibility'),
  });
  await visibility.connect();
  try {
    const { rows } = await visibility.query<{ count: string }>(
      'SELECT count(*) AS count FROM executions_visibility WHERE workflow_id LIKE $1',
      [`batch-${batchId}-%`],
    );
    expect(Number(rows[0]?.count)).toBe(TASKS.length);
  } finally {
    await visibility.end();
  }

  survivor.signal('SIGTERM');
  expectExit(await survivor.done, 0);
}, 280_000);
