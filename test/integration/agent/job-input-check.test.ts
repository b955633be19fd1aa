import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { jobEnding } from '../../../src/client/job-ending.js';
import type { AgentJobInput } from '../../../src/workflows/job-types.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  useAgentTestServer,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('input-check');

const WORKFLOW_TASK_FAILED = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED;

/** Starts a job as an API client would, skipping the CLI's checks, and returns how it failed. */
async function failureOf(input: unknown) {
  const job = await startTestJob(server, input as AgentJobInput);
  const error: unknown = await job.handle.result().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  const history = await job.handle.fetchHistory();
  const taskFailures = (history.events ?? []).filter(
    (event) => event.eventType === WORKFLOW_TASK_FAILED,
  );
  return { error, taskFailures: taskFailures.length, ending: await jobEnding(job) };
}

function validInput(): AgentJobInput {
  const folder = temporaryFolder();
  return jobInput({
    model: scriptedModel(folder, [{ stopReason: 'stop', content: [text('ok')] }]),
    workspace: folder,
  });
}

test.each<[string, (input: AgentJobInput) => unknown, RegExp]>([
  [
    'a relative workspace',
    (input) => ({ ...input, workspace: 'relative/dir' }),
    /workspace: must be an absolute path/,
  ],
  ['an unknown field', (input) => ({ ...input, colour: 'blue' }), /colour: is not a known field/],
  [
    'a tools list that is not an array',
    (input) => ({ ...input, tools: 'read' }),
    /tools: must be array/,
  ],
  [
    'a policy pattern that is not a regular expression',
    (input) => ({
      ...input,
      policy: { rules: [{ tool: 'bash', argument: 'command', pattern: '(', reason: 'x' }] },
    }),
    /rules\[0\]\.pattern/,
  ],
  [
    'an unknown tool',
    (input) => ({ ...input, tools: ['read', 'teleport'] }),
    /Tool teleport is not known/,
  ],
])(
  'a job with %s fails at once as BadInput, with no workflow task failure',
  async (_, change, reason) => {
    const { error, taskFailures, ending } = await failureOf(change(validInput()));
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('BadInput');
    expect(cause?.message).toMatch(reason);
    expect(taskFailures).toBe(0);
    expect(ending.status).toBe('failed');
    expect(ending.error).toMatch(reason);
  },
);

test('a well-formed job returns its outcome, decided by the workflow', async () => {
  const job = await startTestJob(server, validInput());
  const ending = await jobEnding(job);
  expect(ending).toMatchObject({ status: 'completed', text: 'ok' });
  // The result stays small: the text is read from the stored final message.
  expect(ending.result?.outcome).toEqual({ status: 'completed', text: '' });
  expect(ending.result?.finalMessageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
});

test('an input with a problem in each of 200,000 elements fails as BadInput with a bounded message', async () => {
  const { error, taskFailures } = await failureOf({
    ...validInput(),
    tools: Array.from({ length: 200_000 }, () => 5),
  });
  const cause = (error as WorkflowFailedError).cause;
  expect((cause as ApplicationFailure).type).toBe('BadInput');
  expect(cause?.message).toMatch(/^Bad job input: tools\.0: must be string; .*; and 199980 more$/);
  expect(cause?.message.length).toBeLessThan(10_000);
  expect(taskFailures).toBe(0);
});
