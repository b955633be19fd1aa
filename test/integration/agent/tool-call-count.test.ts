/**
 * R4 against Temporal's limit on pending activities: an answer with 2,100 tool calls used to
 * schedule 2,100 activities in one workflow task, which the server refuses (at most 2,000
 * pending), so the task failed on every retry and the job was stuck for good. Now the calls past
 * `MAXIMUM_TOOL_CALLS_PER_ANSWER` are answered with an error result and the job goes on, in
 * parallel and in sequential mode. Real dev server, real `ls` tool bodies.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  MAXIMUM_TOOL_CALLS_PER_ANSWER,
  type Message,
  type ToolExecutionMode,
  type ToolResultMessage,
} from '../../../src/core/index.js';
import {
  jobInput,
  scriptedModel,
  startTestJob,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';
import { summarizeHistory } from '../../support/history-checks.js';

const server = useAgentTestServer('tool-call-count');

const CALLS = 2100;

async function runManyCalls(mode: ToolExecutionMode) {
  const folder = temporaryFolder('dar-many-calls-');
  const workspace = join(folder, 'workspace');
  mkdirSync(workspace);
  const calls = Array.from({ length: CALLS }, (_, index) =>
    toolCall(`call-${index + 1}`, 'ls', {}),
  );
  const model = scriptedModel(folder, [
    { stopReason: 'toolUse', content: [text('listing'), ...calls] },
    { stopReason: 'stop', content: [text('done')] },
  ]);
  const input = jobInput({ model, workspace, tools: ['ls'] });
  input.toolExecution = mode;
  const job = await startTestJob(server, input);
  return { job, result: await job.result() };
}

function toolResults(messages: Message[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

test.each<ToolExecutionMode>(['parallel', 'sequential'])(
  'R4: an answer with 2,100 tool calls (%s): the first 128 run, the rest get an error result, the job ends',
  async (mode) => {
    const { job, result } = await runManyCalls(mode);
    expect(result.status.phase).toBe('done');
    expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'stop' });

    const results = toolResults(result.messages);
    expect(results.map((message) => message.toolCallId)).toEqual(
      Array.from({ length: CALLS }, (_, index) => `call-${index + 1}`),
    );
    const ran = results.slice(0, MAXIMUM_TOOL_CALLS_PER_ANSWER);
    const refused = results.slice(MAXIMUM_TOOL_CALLS_PER_ANSWER);
    expect(ran.filter((message) => message.isError)).toEqual([]);
    expect(refused.every((message) => message.isError)).toBe(true);
    const first = refused[0]?.content[0];
    expect(first?.type === 'text' ? first.text : '').toContain(
      `it is call ${MAXIMUM_TOOL_CALLS_PER_ANSWER + 1} of ${CALLS} in one answer ` +
        `(limit ${MAXIMUM_TOOL_CALLS_PER_ANSWER} calls per answer)`,
    );

    const history = await summarizeHistory(job.handle);
    // In parallel, 128 quick calls may complete while a workflow task is in flight: past 100
    // buffered events the server closes that task (FORCE_CLOSE_COMMAND, cause 17) and the next
    // one takes them all, as for any workflow with that fan-out. Nothing else may fail a task.
    const allowed = mode === 'parallel' ? /^failed \(cause 17\)/ : /^$/;
    expect(history.workflowTaskProblemReasons.filter((reason) => !allowed.test(reason))).toEqual(
      [],
    );
    const toolBodies = history.activityAttempts.filter(
      (activity) => activity.activityType === 'executeToolWithStore',
    );
    expect(toolBodies).toHaveLength(MAXIMUM_TOOL_CALLS_PER_ANSWER);
  },
  240_000,
);
