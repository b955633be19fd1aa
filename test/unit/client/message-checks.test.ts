import type { WorkflowHandle } from '@temporalio/client';
import { AgentJob } from '../../../src/client/job-client.js';
import { EmptyMessageError } from '../../../src/client/message-length.js';
import { EmptyMessageError as ExportedEmptyMessageError } from '../../../src/library/client.js';

/** A job whose handle records the signals sent to it instead of sending them. */
function recordingJob(): { job: AgentJob; signals: unknown[][] } {
  const signals: unknown[][] = [];
  const handle = {
    workflowId: 'job-1',
    signal: (...args: unknown[]) => {
      signals.push(args);
      return Promise.resolve();
    },
  } as unknown as WorkflowHandle;
  return { job: new AgentJob(handle), signals };
}

test.each([
  ['steer', ''],
  ['steer', '   '],
  ['followUp', ''],
  ['followUp', ' \n\t '],
] as const)('%s(%j) is refused with an EmptyMessageError and sends nothing', async (kind, text) => {
  const { job, signals } = recordingJob();
  const what = kind === 'steer' ? 'The steering message' : 'The follow-up message';
  await expect(job[kind](text)).rejects.toThrow(new EmptyMessageError(what));
  await expect(job[kind](text)).rejects.toBeInstanceOf(ExportedEmptyMessageError);
  expect(signals).toEqual([]);
});

test('a message with text is sent', async () => {
  const { job, signals } = recordingJob();
  await job.steer(' go on ');
  await job.followUp('and then?');
  expect(signals.map((args) => args[1])).toEqual([' go on ', 'and then?']);
});
