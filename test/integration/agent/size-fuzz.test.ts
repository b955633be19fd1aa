/**
 * Fuzz test of the size guards on a real dev server: jobs whose scripted model sends 1 MB tool
 * names, 1 MB call ids, 1 MB arguments and 1 MB paths, alone and mixed (several calls per
 * message, parallel and sequential batches, a message cut off by the token limit). The scripts
 * are generated from a seed (printed on failure, set FUZZ_SEED to replay one). Every job must end
 * with agent_end and no failed workflow task, every kept call must get exactly one result (R4),
 * and its events must read through the code `dar events` uses, and once through `dar` itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliConnection } from '../../../src/cli/connection.js';
import { readJob } from '../../../src/cli/job-reader.js';
import type { AgentJob } from '../../../src/client/job-client.js';
import {
  MAXIMUM_ARGUMENTS_LENGTH,
  toolCallsOf,
  type AssistantMessage,
  type Message,
  type StopReason,
  type ToolExecutionMode,
} from '../../../src/core/index.js';
import type { ScriptedAnswer } from '../../../src/providers/model-script.js';
import { dar, describeResult } from '../../e2e/support/dar.js';
import { parseJsonLines } from '../../e2e/support/jobs.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { summarizeHistory } from '../../support/history-checks.js';

const server = useAgentTestServer('size-fuzz');

const MEGABYTE = 1024 * 1024;
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

/** mulberry32: a small seeded generator, so that a failing run can be replayed. */
function seededRandom(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seededRandom(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/**
 * Mostly 1 MB; sometimes just under the arguments limit, where a path reaches the file system.
 * `random` false: always 1 MB.
 */
let sizes: 'random' | 'megabyte' = 'megabyte';
function size(): number {
  if (sizes === 'megabyte') return MEGABYTE;
  return pick([MEGABYTE, MEGABYTE, MEGABYTE + 7, 100_000, 200_000]);
}

let callNumber = 0;
type CallMaker = () => ReturnType<typeof toolCall>;

/** Each kind of oversized (or merely long) call the model might send. */
const callMakers: Record<string, CallMaker> = {
  hugeName: () => toolCall(`c${++callNumber}`, 'n'.repeat(size()), {}),
  // Ids that share a 1 MB prefix: their bounded stand-ins must still differ (R4).
  hugeId: () => toolCall(`${'i'.repeat(size())}${++callNumber}`, 'ls', {}),
  hugeArguments: () =>
    toolCall(`c${++callNumber}`, 'write', { path: 'out.txt', content: 'w'.repeat(size()) }),
  hugePath: () => toolCall(`c${++callNumber}`, 'read', { path: 'p'.repeat(size()) }),
  longOutsidePath: () =>
    toolCall(`c${++callNumber}`, 'ls', { path: `../${'o'.repeat(pick([100_000, 200_000]))}` }),
  hugeNameAndId: () => toolCall(`${'j'.repeat(size())}${++callNumber}`, 'k'.repeat(size()), {}),
  longUnknownName: () => toolCall(`c${++callNumber}`, 'u'.repeat(200 + (callNumber % 56)), {}),
  normal: () => toolCall(`c${++callNumber}`, 'read', { path: 'notes.txt' }),
};

function answer(calls: ReturnType<typeof toolCall>[], stopReason: StopReason = 'toolUse') {
  return { stopReason, content: [text('working'), ...calls] } satisfies ScriptedAnswer;
}

function randomMessage(): ScriptedAnswer {
  const kinds = Object.keys(callMakers);
  const count = 2 + Math.floor(random() * 4);
  return answer(Array.from({ length: count }, () => (callMakers[pick(kinds)] as CallMaker)()));
}

interface FuzzJob {
  label: string;
  answers: ScriptedAnswer[];
  toolExecution?: ToolExecutionMode;
}

function fuzzJobs(): FuzzJob[] {
  const done = { stopReason: 'stop' as const, content: [text('done')] };
  sizes = 'megabyte';
  const single: FuzzJob[] = [
    { label: '1 MB tool name', answers: [answer([callMakers.hugeName!()]), done] },
    { label: '1 MB call id', answers: [answer([callMakers.hugeId!()]), done] },
    { label: '1 MB arguments', answers: [answer([callMakers.hugeArguments!()]), done] },
    { label: '1 MB path', answers: [answer([callMakers.hugePath!()]), done] },
  ];
  sizes = 'random';
  return [
    ...single,
    {
      label: 'mix, parallel batches',
      answers: [randomMessage(), randomMessage(), randomMessage(), done],
    },
    {
      label: 'mix, sequential batches, one cut off by the token limit',
      answers: [randomMessage(), { ...randomMessage(), stopReason: 'length' }, done],
      toolExecution: 'sequential',
    },
  ];
}

/** R4: each call of a message that ended with stop, toolUse or length has exactly one result. */
function expectEveryKeptCallAnswered(messages: Message[]): void {
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const ids = toolCallsOf(message).map((call) => call.id);
    const results: string[] = [];
    for (const next of messages.slice(index + 1)) {
      if (next.role !== 'toolResult') break;
      results.push(next.toolCallId);
    }
    if (message.stopReason === 'error' || message.stopReason === 'aborted') {
      expect(results).toEqual([]);
    } else {
      expect(new Set(ids).size).toBe(ids.length);
      expect(results).toEqual(ids);
    }
  });
}

/** The CLI's connection for the test server, so the reads below go through `readJob`. */
function cliConnection(): CliConnection {
  const { environment } = server;
  return {
    client: environment.client,
    namespace: 'default',
    settings: { kind: 'cluster', address: environment.address, namespace: 'default' },
    workerConnection: async () => environment.nativeConnection,
    close: async () => undefined,
  } as unknown as CliConnection;
}

async function runFuzzJob(fuzzJob: FuzzJob): Promise<AgentJob> {
  const folder = temporaryFolder('dar-fuzz-');
  const workspace = join(folder, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'notes.txt'), 'hello\n');
  const model = scriptedModel(folder, fuzzJob.answers);
  const input = jobInput({ model, workspace, tools: ['read', 'write', 'ls'] });
  if (fuzzJob.toolExecution) input.toolExecution = fuzzJob.toolExecution;
  return startTestJob(server, input);
}

async function checkFuzzJob(fuzzJob: FuzzJob, job: AgentJob): Promise<void> {
  const context = `${fuzzJob.label} (FUZZ_SEED=${seed}, job ${job.workflowId})`;
  const result = await job.result();
  expect({ context, phase: result.status.phase }).toEqual({ context, phase: 'done' });
  expectEveryKeptCallAnswered(result.messages);
  for (const message of result.messages) {
    // Bounded stand-ins and bounded error texts: no message carries a 1 MB input; arguments
    // within their limit (a 200 KB path) stay in the assistant message, as sent.
    const length = JSON.stringify(message).length;
    const limit = message.role === 'toolResult' ? 20_000 : MAXIMUM_ARGUMENTS_LENGTH * 6;
    expect({ context, role: message.role, small: length < limit }).toEqual({
      context,
      role: message.role,
      small: true,
    });
  }
  const assistants = result.messages.filter(
    (message): message is AssistantMessage => message.role === 'assistant',
  );
  expect(assistants.at(-1)?.stopReason).toBe('stop');

  const history = await summarizeHistory(job.handle);
  expect({ context, problems: history.workflowTaskProblemReasons }).toEqual({
    context,
    problems: [],
  });

  const events = await readJob(cliConnection(), job, (reader) => reader.allEvents(0));
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect({ context, last: events.at(-1)?.type }).toEqual({ context, last: 'agent_end' });
}

test('R4, R5, R6: jobs whose model sends 1 MB names, ids, arguments and paths all end cleanly', async () => {
  const jobs = fuzzJobs();
  const started = await Promise.all(jobs.map(runFuzzJob));
  for (const [index, fuzzJob] of jobs.entries()) await checkFuzzJob(fuzzJob, started[index]!);

  // Once through the real command, as an operator would read the mixed job.
  const mixed = started[4]!;
  const read = await dar(['events', mixed.workflowId, '--json'], {
    env: {
      TEMPORAL_ADDRESS: server.environment.address,
      DAR_TASK_QUEUE: server.taskQueue,
      DAR_STATE_DIR: server.stateDir,
    },
    timeoutMs: 60_000,
  });
  expect({ code: read.code, context: describeResult(read) }).toEqual({
    code: 0,
    context: describeResult(read),
  });
  const lines = parseJsonLines(read.stdout);
  expect(lines.at(-1)?.type).toBe('agent_end');
  expect(lines).toHaveLength((await mixed.allEvents()).length);
}, 120_000);
