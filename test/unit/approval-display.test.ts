import { approvalJobsQuery } from '../../src/client/approvals.js';
import { formatEvent } from '../../src/cli/event-format.js';
import { jobListQuery } from '../../src/client/job-list-filter.js';

describe('R22: approvals as dar shows and finds them', () => {
  test('R22: dar events prints a request and each kind of decision as one line', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(
      formatEvent(
        {
          type: 'approval_requested',
          toolCallId: 'c1',
          toolName: 'bash',
          args: { command: 'git push' },
          reason: 'pushes a branch',
          requestedAt: at,
          deadline: at + 60_000,
          onTimeout: 'allow',
          seq: 4,
        },
        1,
      ),
    ).toBe(
      '  ? bash waits for approval (call c1, until 2026-01-02T03:05:05.000Z, then allow): pushes a branch',
    );
    const decided = {
      type: 'approval_decided' as const,
      toolCallId: 'c1',
      toolName: 'bash',
      at,
      seq: 5,
    };
    expect(
      formatEvent(
        { ...decided, decision: 'deny', source: 'operator', by: 'ops', note: 'not today' } as const,
        1,
      ),
    ).toBe('  denied by ops: bash (call c1): not today');
    expect(formatEvent({ ...decided, decision: 'approve', source: 'timeout' } as const, 1)).toBe(
      '  approved on timeout: bash (call c1)',
    );
    expect(formatEvent({ ...decided, decision: 'deny', source: 'cancelled' } as const, 1)).toBe(
      '  no longer waits (job cancelled): bash (call c1)',
    );
  });

  test('R22: waiting jobs are found by DarPhase, optionally in one batch; a bad batch id is refused', () => {
    expect(approvalJobsQuery()).toBe(
      "WorkflowType = 'agentJob' AND DarPhase = 'approval' AND ExecutionStatus = 'Running'",
    );
    expect(approvalJobsQuery('b-1')).toBe(
      "WorkflowType = 'agentJob' AND DarPhase = 'approval' AND ExecutionStatus = 'Running' AND DarBatchId = 'b-1'",
    );
    expect(() => approvalJobsQuery("x' OR 1=1")).toThrow('--batch must be');
    expect(jobListQuery({ phase: 'approval' })).toContain("DarPhase = 'approval'");
  });
});
