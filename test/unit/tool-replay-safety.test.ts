import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
} from '@temporalio/common';
import { Type } from '@sinclair/typebox';
import type { ToolSpec } from '../../src/core/index.js';
import { builtinToolSpecs } from '../../src/tools/specs/index.js';
import { toolActivityOptions } from '../../src/workflows/activity-options.js';
import {
  INTERRUPTED_TOOL_CALL,
  isLostAttempt,
  toolFailureMessage,
} from '../../src/workflows/tool-failure-message.js';

function userTool(fields: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name: 'deploy',
    label: 'Deploy',
    description: 'Deploys.',
    parameters: Type.Object({}),
    activity: { retry: { maximumAttempts: 5 } },
    ...fields,
  };
}

function activityFailure(cause: Error): ActivityFailure {
  return new ActivityFailure(
    'Activity task failed',
    'executeTool',
    '7',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    'worker',
    cause,
  );
}

const heartbeatLost = () =>
  activityFailure(new TimeoutFailure('activity Heartbeat timeout', undefined, 'HEARTBEAT'));
const hung = () =>
  activityFailure(new TimeoutFailure('activity StartToClose timeout', undefined, 'START_TO_CLOSE'));

describe('replay safety of tool calls', () => {
  it('gives a tool that is not replay-safe one attempt, whatever its retry policy says', () => {
    expect(toolActivityOptions(userTool()).retry?.maximumAttempts).toBe(1);
    expect(toolActivityOptions(userTool({ replay: 'unsafe' })).retry?.maximumAttempts).toBe(1);
    expect(toolActivityOptions(builtinToolSpecs.bash).retry?.maximumAttempts).toBe(1);
  });

  it('retries a replay-safe tool by its own policy', () => {
    expect(toolActivityOptions(userTool({ replay: 'safe' })).retry?.maximumAttempts).toBe(5);
    for (const name of ['read', 'write', 'edit', 'ls'] as const) {
      expect(toolActivityOptions(builtinToolSpecs[name]).retry?.maximumAttempts).toBe(3);
    }
  });

  it('R16: a lost attempt of an unsafe tool reads as interrupted, with the reason', () => {
    for (const tool of [userTool(), builtinToolSpecs.bash]) {
      expect(toolFailureMessage(tool, heartbeatLost())).toBe(
        `${INTERRUPTED_TOOL_CALL} (activity Heartbeat timeout)`,
      );
      expect(toolFailureMessage(tool, hung())).toMatch(
        /^interrupted: this call may have partially run; check before retrying \(/,
      );
    }
  });

  it('R16: an attempt stopped by its worker shutting down (Ctrl-C on dar run) reads as interrupted too', () => {
    // What Temporal's core reports for an attempt still running when its worker shut down.
    const shutDown = () =>
      activityFailure(
        ApplicationFailure.retryable(
          'Worker is shutting down and this activity did not complete in time',
          'WorkerShutdown',
        ),
      );
    for (const tool of [userTool(), builtinToolSpecs.bash]) {
      expect(toolFailureMessage(tool, shutDown())).toBe(
        `${INTERRUPTED_TOOL_CALL} (its worker shut down while it ran)`,
      );
    }
    // A replay-safe tool was retried elsewhere; once it has no attempt left, the reason stands.
    expect(toolFailureMessage(builtinToolSpecs.read, shutDown())).toBe(
      'Worker is shutting down and this activity did not complete in time',
    );
  });

  it('R24: a lost attempt (timeout, worker shut down) is looked up; a failure the body reported is not', () => {
    expect(isLostAttempt(heartbeatLost())).toBe(true);
    expect(isLostAttempt(hung())).toBe(true);
    expect(
      isLostAttempt(
        activityFailure(ApplicationFailure.retryable('shutting down', 'WorkerShutdown')),
      ),
    ).toBe(true);
    expect(
      isLostAttempt(activityFailure(ApplicationFailure.nonRetryable('exit 2', 'ToolFailure'))),
    ).toBe(false);
    expect(isLostAttempt(new Error('not an activity'))).toBe(false);
  });

  it("keeps the body's own error, and a safe tool's timeout, as they are", () => {
    const thrown = activityFailure(ApplicationFailure.nonRetryable('exit 2', 'ToolFailure'));
    expect(toolFailureMessage(userTool(), thrown)).toBe('exit 2');
    expect(toolFailureMessage(builtinToolSpecs.edit, heartbeatLost())).toBe(
      'executeTool timed out (activity Heartbeat timeout)',
    );
    const neverStarted = activityFailure(
      new TimeoutFailure('activity ScheduleToStart timeout', undefined, 'SCHEDULE_TO_START'),
    );
    expect(toolFailureMessage(userTool(), neverStarted)).not.toMatch(/^interrupted/);
  });
});
