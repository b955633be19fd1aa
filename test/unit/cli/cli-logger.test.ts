import { ApplicationFailure } from '@temporalio/common';
import type { LogEntry } from '@temporalio/worker';
import { CliLogger } from '../../../src/cli/cli-logger.js';

function failedActivity() {
  return {
    sdkComponent: 'worker',
    taskQueue: 'durable-agent-runner',
    taskToken: 'CiQwMWEyNDYyZS1jNzc4',
    activityType: 'executeToolWithStore',
    workflowId: 'job-1',
    attempt: 1,
    error: ApplicationFailure.nonRetryable('oldText was not found in greeting.txt'),
  };
}

test("the CLI's logger drops the activity-only workers' notice and passes everything else at its level", () => {
  const entries: LogEntry[] = [];
  const logger = new CliLogger('WARN', (entry) => entries.push(entry));
  logger.warn('No workflows registered, not polling for workflow tasks', {
    sdkComponent: 'worker',
    taskQueue: 'durable-agent-runner-model-scripted',
  });
  logger.warn('Worker is shutting down', { taskQueue: 'durable-agent-runner' });
  logger.info('Worker state changed');
  logger.error('Worker failed');
  expect(entries.map((entry) => [entry.level, entry.message])).toEqual([
    ['WARN', 'Worker is shutting down'],
    ['ERROR', 'Worker failed'],
  ]);
});

test('a failed activity attempt is logged as its activity, job, attempt and message; whole at DEBUG', () => {
  const brief: LogEntry[] = [];
  new CliLogger('WARN', (entry) => brief.push(entry)).warn('Activity failed', failedActivity());
  expect(brief.map((entry) => [entry.level, entry.message, entry.meta])).toEqual([
    [
      'WARN',
      'Activity failed',
      {
        activityType: 'executeToolWithStore',
        workflowId: 'job-1',
        attempt: 1,
        error: 'oldText was not found in greeting.txt',
      },
    ],
  ]);

  const whole: LogEntry[] = [];
  new CliLogger('DEBUG', (entry) => whole.push(entry)).warn('Activity failed', failedActivity());
  expect(whole[0]?.meta).toMatchObject({ taskToken: 'CiQwMWEyNDYyZS1jNzc4' });
  expect(whole[0]?.meta?.error).toBeInstanceOf(ApplicationFailure);
});
