/**
 * `DurableAgent` (Pi's `Agent` over durable jobs) on a real dev server, with a scripted model:
 * subscribers get Pi's events in Pi's order, a prompt after a run goes on in the same job,
 * steer and followUp reach the running job (R20), abort cancels it (R21) and the conversation
 * goes on in a new job, waitForIdle waits for the agent_end listeners.
 */
import { DurableAgent } from '../../../src/agent/index.js';
import type { Message } from '../../../src/core/index.js';
import { eventShape, promptWithOneToolCall } from './pi-event-order.js';
import {
  scriptedModel,
  temporaryFolder,
  text,
  toolCall,
  useAgentTestServer,
} from '../../support/agent-harness.js';

const server = useAgentTestServer('durable-agent');
const agents: DurableAgent[] = [];

afterAll(async () => {
  for (const agent of agents) await agent.close();
});

function makeAgent(model: string, workspace: string, keepOpenMs = 60_000): DurableAgent {
  const agent = new DurableAgent({
    initialState: { model, tools: ['ls', 'bash'], systemPrompt: 'You help.' },
    workspace,
    connection: {
      client: server.environment.client,
      store: server.store,
      taskQueue: server.taskQueue,
    },
    keepOpenMs,
  });
  agents.push(agent);
  return agent;
}

/** Each event as its type, with the role of a message event's message. */
function texts(messages: Message[]): string[] {
  return messages.map((message) => {
    if (message.role === 'toolResult') return `toolResult:${message.toolName}`;
    if (typeof message.content === 'string') return `${message.role}:${message.content}`;
    const parts = message.content.map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'toolCall'
          ? `call ${block.name}`
          : block.type,
    );
    return `${message.role}:${parts.join(' ')}`;
  });
}

test('subscribers get a prompt with a tool call as Pi emits it, in order; the state follows the events', async () => {
  const folder = temporaryFolder();
  const agent = makeAgent(
    scriptedModel(folder, [
      { stopReason: 'toolUse', content: [toolCall('call-1', 'ls', {})] },
      { stopReason: 'stop', content: [text('Listed.')] },
      { stopReason: 'stop', content: [text('Second answer.')] },
    ]),
    folder,
  );
  const seen: string[] = [];
  const pendingAtStart: string[][] = [];
  const unsubscribe = agent.subscribe((event) => {
    seen.push(eventShape(event));
    if (event.type === 'tool_execution_start')
      pendingAtStart.push([...agent.state.pendingToolCalls]);
  });

  await agent.prompt('list the folder');

  expect(seen).toEqual(promptWithOneToolCall);
  expect(pendingAtStart).toEqual([['call-1']]);
  expect(texts(agent.state.messages)).toEqual([
    'user:list the folder',
    'assistant:call ls',
    'toolResult:ls',
    'assistant:Listed.',
  ]);
  expect(agent.state.isStreaming).toBe(false);
  expect(agent.state.pendingToolCalls.size).toBe(0);
  expect(agent.state.errorMessage).toBeUndefined();

  // The next prompt is the same job's next run, on the same transcript.
  const firstJob = agent.jobId;
  seen.length = 0;
  await agent.prompt({ role: 'user', content: [{ type: 'text', text: 'and now?' }], timestamp: 1 });
  expect(agent.jobId).toBe(firstJob);
  expect(seen[0]).toBe('agent_start');
  expect(seen.at(-1)).toBe('agent_end');
  expect(texts(agent.state.messages).slice(4)).toEqual([
    'user:and now?',
    'assistant:Second answer.',
  ]);

  unsubscribe();
  seen.length = 0;
  agent.reset();
  expect(agent.state.messages).toEqual([]);
  expect(seen).toEqual([]);
}, 60_000);

test('R20: steer() reaches the running job before its next model call, followUp() after it would stop, in one run', async () => {
  const folder = temporaryFolder();
  const agent = makeAgent(
    scriptedModel(folder, [
      { stopReason: 'toolUse', content: [toolCall('slow', 'bash', { command: 'sleep 2' })] },
      { stopReason: 'stop', content: [text('Steered.')] },
      { stopReason: 'stop', content: [text('Followed up.')] },
    ]),
    folder,
  );
  // Held until the run starts, then sent after the prompt.
  agent.followUp('then this');
  expect(agent.hasQueuedMessages()).toBe(true);
  const types: string[] = [];
  agent.subscribe((event) => {
    types.push(event.type);
    if (event.type === 'tool_execution_start') agent.steer('change course');
  });

  await agent.prompt('start');

  expect(agent.hasQueuedMessages()).toBe(false);
  expect(texts(agent.state.messages)).toEqual([
    'user:start',
    'assistant:call bash',
    'toolResult:bash',
    'user:change course',
    'assistant:Steered.',
    'user:then this',
    'assistant:Followed up.',
  ]);
  expect(types.filter((type) => type === 'agent_start')).toHaveLength(1);
  expect(types.filter((type) => type === 'agent_end')).toHaveLength(1);
}, 60_000);

test('R21: abort() cancels the job: the running tool ends aborted, then agent_end, and the next prompt goes on from the conversation in a new job', async () => {
  const folder = temporaryFolder();
  const agent = makeAgent(
    scriptedModel(folder, [
      { stopReason: 'toolUse', content: [toolCall('long', 'bash', { command: 'sleep 60' })] },
    ]),
    folder,
  );
  const types: string[] = [];
  agent.subscribe((event) => {
    types.push(event.type);
    if (event.type === 'tool_execution_start') agent.abort();
  });
  const started = Date.now();
  await agent.prompt('run for long');

  expect(Date.now() - started).toBeLessThan(40_000);
  // R21: the running tool's call ends as `Operation aborted`, no new turn starts, agent_end.
  expect(types.slice(-2)).toEqual(['turn_end', 'agent_end']);
  const last = agent.state.messages.at(-1);
  expect(last?.role === 'toolResult' && last.isError).toBe(true);
  expect(JSON.stringify(last?.content)).toContain('Operation aborted');
  expect(agent.state.isStreaming).toBe(false);
  const abortedJob = agent.jobId;

  // A new job, on the conversation so far (the new model script starts from its first answer).
  agent.state.model = scriptedModel(folder, [{ stopReason: 'stop', content: [text('Back.')] }]);
  const before = agent.state.messages.length;
  await agent.prompt('again');
  expect(agent.jobId).not.toBe(abortedJob);
  expect(texts(agent.state.messages.slice(before))).toEqual(['user:again', 'assistant:Back.']);
  // The new job's transcript is the whole conversation.
  const { getJob } = await import('../../../src/client/job-client.js');
  const transcript = await getJob(
    server.environment.client,
    agent.jobId ?? '',
    server.store,
  ).transcript();
  expect(texts(transcript)).toEqual(texts(agent.state.messages));
}, 90_000);

test('R21: abort() with no worker to end the job: the run ends here after abortWaitMs, aborted, with agent_end; the cancellation stays recorded for the next worker', async () => {
  const folder = temporaryFolder();
  const abortWaitMs = 1_500;
  const agent = new DurableAgent({
    initialState: {
      model: scriptedModel(folder, [{ stopReason: 'stop', content: [text('Never.')] }]),
      tools: ['ls'],
    },
    workspace: folder,
    // A task queue that no worker polls: the job is started, and nothing runs it.
    connection: {
      client: server.environment.client,
      store: server.store,
      taskQueue: `${server.taskQueue}-unpolled`,
    },
    abortWaitMs,
  });
  agents.push(agent);
  const types: string[] = [];
  agent.subscribe((event) => {
    types.push(event.type);
  });
  const prompting = agent.prompt('nobody will answer');
  const deadline = Date.now() + 20_000;
  while (agent.jobId === undefined) {
    if (Date.now() > deadline) throw new Error('the job was not started');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const abortedAt = Date.now();
  agent.abort();
  await prompting;

  const waitedMs = Date.now() - abortedAt;
  expect(waitedMs).toBeGreaterThanOrEqual(abortWaitMs - 100);
  expect(waitedMs).toBeLessThan(abortWaitMs + 10_000);
  expect(types.slice(-2)).toEqual(['turn_end', 'agent_end']);
  expect(agent.state.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' });
  expect(agent.state.isStreaming).toBe(false);
  const history = await server.environment.client.workflow
    .getHandle(agent.jobId ?? '')
    .fetchHistory();
  const recorded = (history.events ?? []).map(
    (event) => event.workflowExecutionCancelRequestedEventAttributes,
  );
  expect(recorded.some((attributes) => attributes !== undefined && attributes !== null)).toBe(true);
}, 60_000);

test('waitForIdle resolves once the agent_end listeners have settled; prompting during a run is refused', async () => {
  const folder = temporaryFolder();
  const agent = makeAgent(
    scriptedModel(folder, [{ stopReason: 'stop', content: [text('Done.')] }]),
    folder,
  );
  let endListenerDone = false;
  agent.subscribe(async (event) => {
    if (event.type !== 'agent_end') return;
    await new Promise((resolve) => setTimeout(resolve, 300));
    endListenerDone = true;
  });
  const running = agent.prompt('hello');
  expect(agent.state.isStreaming).toBe(true);
  await expect(agent.prompt('too soon')).rejects.toThrow('Agent is already processing a prompt');
  await agent.waitForIdle();
  expect(endListenerDone).toBe(true);
  expect(agent.state.isStreaming).toBe(false);
  await running;
}, 60_000);

test('a prompt after the job closed (idle past keepOpenMs) or after a change of settings goes on from the conversation in a new job', async () => {
  const folder = temporaryFolder();
  const workspace = temporaryFolder();
  // Each job's model calls take the script from its first answer.
  const agent = makeAgent(
    scriptedModel(folder, [
      { stopReason: 'stop', content: [text('One.')] },
      { stopReason: 'stop', content: [text('Two.')] },
    ]),
    workspace,
    1500,
  );
  await agent.prompt('first');
  await agent.prompt('second');
  const firstJob = agent.jobId;
  const { getJob } = await import('../../../src/client/job-client.js');
  // The job closes once it has waited 1.5 s for a prompt.
  await getJob(server.environment.client, firstJob ?? '', server.store).result();

  await agent.prompt('third');
  const secondJob = agent.jobId;
  expect(secondJob).not.toBe(firstJob);

  // Another system prompt: another job.
  agent.setSystemPrompt('You help differently.');
  await agent.prompt('fourth');
  expect(agent.jobId).not.toBe(secondJob);
  const expected = [
    'user:first',
    'assistant:One.',
    'user:second',
    'assistant:Two.',
    'user:third',
    'assistant:One.',
    'user:fourth',
    'assistant:One.',
  ];
  expect(texts(agent.state.messages)).toEqual(expected);
  const transcript = await getJob(
    server.environment.client,
    agent.jobId ?? '',
    server.store,
  ).transcript();
  expect(texts(transcript)).toEqual(expected);
}, 90_000);
