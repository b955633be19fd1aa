import type { AgentJob } from '../../../src/client/job-client.js';
import { textOf, type Message } from '../../../src/core/index.js';
import { RELEASE_FEATURES_PATCH } from '../../../src/workflows/release-features.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('queue-modes');

async function waitForToolStart(job: AgentJob): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await job.events(0)).some((event) => event.type === 'tool_execution_start')) {
    if (Date.now() > deadline) throw new Error('the tool call did not start in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function roles(messages: Message[]): string[] {
  return messages.map((message) =>
    message.role === 'user' ? `user:${textOf(message)}` : message.role,
  );
}

/** The patch ids the job's history recorded (`patched(id)` leaves a `core_patch` marker). */
async function recordedPatches(job: AgentJob): Promise<string[]> {
  const history = await server.environment.client.workflow.getHandle(job.workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return Object.values(marker.details ?? {}).flatMap((detail) =>
      (detail.payloads ?? []).map(
        (payload) =>
          (
            JSON.parse(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8')) as {
              id: string;
            }
          ).id,
      ),
    );
  });
}

/** Two steering messages sent while the first turn's tool runs. */
async function steerTwiceDuringATool(
  input: Partial<Parameters<typeof jobInput>[0]>,
  answers: number,
) {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [toolCall('b1', 'bash', { command: 'sleep 2' })] },
    ...Array.from({ length: answers - 1 }, (_, index) => ({
      stopReason: 'stop' as const,
      content: [text(`answer ${index + 1}`)],
    })),
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder, ...input }));
  await waitForToolStart(job);
  await job.steer('first steer');
  await job.steer('second steer');
  return { job, result: await job.result() };
}

test('R20: a new job delivers two queued steering messages one per turn, as Pi does by default', async () => {
  const { job, result } = await steerTwiceDuringATool({}, 3);
  expect(roles(result.messages)).toEqual([
    'user:do the task',
    'assistant',
    'toolResult',
    'user:first steer',
    'assistant',
    'user:second steer',
    'assistant',
  ]);
  // The release's one patch stands for the queue mode's own.
  expect(await recordedPatches(job)).toEqual([RELEASE_FEATURES_PATCH]);
});

test('R20: a job with both queue modes all gets both steering messages before one model call', async () => {
  const { job, result } = await steerTwiceDuringATool(
    { steeringMode: 'all', followUpMode: 'all' },
    2,
  );
  expect(roles(result.messages)).toEqual([
    'user:do the task',
    'assistant',
    'toolResult',
    'user:first steer',
    'user:second steer',
    'assistant',
  ]);
  // Both modes given: the queue modes took no patch decision (the job store did).
  expect(await recordedPatches(job)).toEqual([RELEASE_FEATURES_PATCH]);
});
