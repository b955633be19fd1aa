import { emptyUsage, type Message } from '../../src/core/index.js';
import { jobOutcome } from '../../src/workflows/job-outcome.js';
import type { JobStatus } from '../../src/workflows/job-types.js';

function status(partial: Partial<JobStatus>): JobStatus {
  return {
    phase: 'done',
    turns: 1,
    modelCalls: 1,
    lastSeq: 4,
    cancelled: false,
    usage: emptyUsage(),
    continuedAsNew: 0,
    ...partial,
  };
}

const messages: Message[] = [
  { role: 'user', content: 'go', timestamp: 1 },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'all ' },
      { type: 'toolCall', id: 'c', name: 'ls', arguments: {} },
      { type: 'text', text: 'done' },
    ],
    usage: emptyUsage(),
    stopReason: 'stop',
    timestamp: 2,
  },
];

test('a run that stopped normally completed, with the last answer text', () => {
  expect(jobOutcome(status({ stopReason: 'stop' }), messages)).toEqual({
    status: 'completed',
    text: 'all done',
  });
});

test('a run that ended on an error failed, with its reason', () => {
  expect(
    jobOutcome(status({ stopReason: 'error', errorMessage: 'script used up' }), messages),
  ).toMatchObject({ status: 'failed', error: 'script used up' });
  expect(jobOutcome(status({ stopReason: 'error' }), [])).toEqual({
    status: 'failed',
    text: '',
    error: 'run error',
  });
});

test('an aborted run was cancelled', () => {
  expect(jobOutcome(status({ stopReason: 'aborted' }), messages).status).toBe('cancelled');
  expect(jobOutcome(status({ cancelled: true }), messages).status).toBe('cancelled');
});
