import { WorkflowFailedError } from '@temporalio/client';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  useAgentTestServer,
  waitForPhase,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('keep-open');

test('R20: a kept-open job waits after agent_end; a follow-up starts a new run', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [
    { stopReason: 'stop', content: [text('first answer')] },
    { stopReason: 'stop', content: [text('second answer')] },
  ]);
  const job = await startTestJob(server, jobInput({ model, workspace: folder, keepOpenMs: 1500 }));
  await waitForPhase(job, 'waiting');
  await job.followUp('one more question');
  // No further message: the job closes once the keep-open time has passed.
  const result = await job.result();
  expect(result.messages.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
  ]);
  const events = await job.events(0);
  expect(events.filter((event) => event.type === 'agent_start')).toHaveLength(2);
  expect(events.filter((event) => event.type === 'agent_end')).toHaveLength(2);
  expect(result.status.phase).toBe('done');
});

test('R21: cancelling a job that waits for a follow-up closes it as cancelled', async () => {
  const folder = temporaryFolder();
  const model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('answer')] }]);
  const job = await startTestJob(
    server,
    jobInput({ model, workspace: folder, keepOpenMs: 60_000 }),
  );
  await waitForPhase(job, 'waiting');
  await job.cancel();
  await expect(job.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  expect((await job.handle.describe()).status.name).toBe('CANCELLED');
});
