/**
 * The worst moment for a model call, through the CLI: the provider has answered (the call is
 * paid for) and the answer is stored, but the worker is SIGKILLed before Temporal records the
 * activity as completed. Temporal runs the call again on another worker (after its heartbeat
 * timeout); that attempt must return the stored answer, not send the request again and pay
 * twice. A real OpenAI-compatible server on 127.0.0.1 counts the requests.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MODEL_CALL_ACTIVITIES } from '../../src/workflows/model-call-activities.js';
import { FakeModelServer, sseReply } from '../integration/providers/fake-model-server.js';
import { chatStream } from '../integration/providers/openai-chat-stream.js';
import { randomKey } from '../integration/providers/provider-rig.js';
import {
  dar,
  describeResult,
  killLeftoverDars,
  linesOf,
  startDar,
  type DarProcess,
} from './support/dar.js';
import { heldCalls, makeTempDir, removeDir } from './support/files.js';
import { jobEvents, waitForCompletedJob } from './support/jobs.js';
import {
  activityTypesBySchedule,
  connectToEmbeddedServer,
  jobResult,
  readHistory,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('model-answer-crash');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const marker = join(root, 'held-after-answer');
const queue = `model-answer-crash-${process.pid}`;
let fake: FakeModelServer;
let providerEnv: Record<string, string>;

function startWorker(env: Record<string, string> = {}): DarProcess {
  return startDar(['worker', '--state-dir', stateDir], {
    env: { ...providerEnv, DAR_TASK_QUEUE: queue, ...env },
    timeoutMs: 170_000,
  });
}

beforeAll(async () => {
  mkdirSync(workspace);
  fake = await FakeModelServer.start();
  providerEnv = {
    DAR_OPENAI_BASE_URL: `${fake.url}/v1`,
    DAR_OPENAI_API_KEY: randomKey(),
  };
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  await fake?.close();
  removeDir(root);
});

test('R24: a worker killed after the paid answer was stored: the retry returns that answer, the provider is asked once per turn', async () => {
  fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        toolCalls: [{ id: 'call-ls', name: 'ls', argumentChunks: ['{}'] }],
      }),
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Listed ', 'once.'] })),
  );
  const started = await dar(
    [
      'run',
      'list the folder',
      '--detach',
      '--model',
      'openai-compatible:some-model',
      '--workspace',
      workspace,
    ],
    { stateDir, env: { ...providerEnv, DAR_TASK_QUEUE: queue }, timeoutMs: 120_000 },
  );
  expect({ code: started.code, context: describeResult(started) }).toMatchObject({ code: 0 });
  const jobId = linesOf(started.stdout)[0] ?? '';

  // The first worker gets the answer, stores it, and is held before the activity completes.
  const held = startWorker({ DAR_TEST_PAUSE_AFTER_MODEL_ANSWER: marker });
  await waitFor(
    'the model call held after its answer was stored',
    () => {
      if (!held.isRunning) throw new Error(`The worker exited:\n${held.stderr}`);
      return heldCalls(marker) === 1;
    },
    { timeoutMs: 120_000 },
  );
  expect(fake.requests).toHaveLength(1);
  held.signal('SIGKILL');
  expect((await held.done).signal).toBe('SIGKILL');

  // Another worker: the lost call is retried after its heartbeat timeout (30 s).
  const resume = startWorker();
  const status = await waitForCompletedJob(
    jobId,
    { stateDir, env: { DAR_TASK_QUEUE: queue } },
    150_000,
  );
  expect(status.turns).toBe(2);

  // Two requests in all: the first turn's (answered once, though its activity ran twice) and the
  // second turn's, which carries the first turn's tool result. Had the retry asked again, the
  // second request would be the first one repeated, with no tool result in it.
  expect(fake.requests).toHaveLength(2);
  const second = fake.requests[1]?.body as { messages?: Array<{ role: string }> } | undefined;
  expect(second?.messages?.map((message) => message.role)).toEqual([
    'system',
    'user',
    'assistant',
    'tool',
  ]);

  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    const result = await jobResult(client, stateDir, jobId);
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    const last = result.messages.at(-1);
    const lastText = last?.role === 'assistant' ? last.content : [];
    expect(lastText.map((block) => (block.type === 'text' ? block.text : ''))).toEqual([
      'Listed once.',
    ]);

    // The first model call's activity ran twice: the second attempt is the one history keeps.
    const history = await readHistory(client, jobId);
    const types = activityTypesBySchedule(history);
    const modelStarts = history.filter(
      (event) =>
        event.kind === 'activityTaskStarted' &&
        MODEL_CALL_ACTIVITIES.has(types.get(event.scheduledEventId ?? 0) ?? ''),
    );
    expect(modelStarts.map((event) => event.attempt ?? 1)).toEqual([2, 1]);
  } finally {
    await close();
  }

  // The event log has no gap and no repeat.
  const events = await jobEvents(jobId, { stateDir, env: { DAR_TASK_QUEUE: queue } });
  expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(1);

  resume.signal('SIGTERM');
  await resume.done;
}, 300_000);
