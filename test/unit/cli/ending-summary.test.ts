import type { JobEnding } from '../../../src/client/job-ending.js';
import { endingSummary } from '../../../src/cli/ending-summary.js';
import { emptyUsage } from '../../../src/core/messages.js';
import type { JobStatus } from '../../../src/workflows/job-types.js';

function status(turns: number, totalTokens: number, cost: number): JobStatus {
  const usage = emptyUsage();
  return {
    phase: 'done',
    turns,
    modelCalls: turns,
    lastSeq: 10,
    cancelled: false,
    usage: { ...usage, totalTokens, cost: { ...usage.cost, total: cost } },
    continuedAsNew: 0,
  };
}

test('dar run ends with how the job ended, its turns, tokens and cost, and where to look again', () => {
  const completed: JobEnding = {
    status: 'completed',
    text: 'Done.',
    result: { status: status(4, 1234, 0.0123) },
  };
  expect(endingSummary('job-1', completed)).toBe(
    'Job job-1 completed: 4 turns, 1234 tokens, $0.0123. `dar status job-1` and `dar events job-1` show it again.',
  );
  const failed: JobEnding = {
    status: 'failed',
    text: '',
    error: 'anthropic model x: 401 invalid key',
    result: { status: status(1, 0, 0) },
  };
  expect(endingSummary('job-2', failed)).toBe(
    'Job job-2 failed: 1 turn, 0 tokens, $0.0000; anthropic model x: 401 invalid key. `dar status job-2` and `dar events job-2` show it again.',
  );
  // A cancelled workflow returns no result; a budget's stop is told on a line of its own first.
  expect(endingSummary('job-3', { status: 'cancelled', text: '' })).toBe(
    'Job job-3 cancelled. `dar status job-3` and `dar events job-3` show it again.',
  );
  const stopped: JobEnding = {
    status: 'failed',
    text: '',
    error: 'The job reached its turn budget',
    budgetExceeded: { limit: 'turns', used: 2, max: 2 },
    result: { status: status(2, 10, 0) },
  };
  expect(endingSummary('job-4', stopped)).not.toContain('turn budget');
});
