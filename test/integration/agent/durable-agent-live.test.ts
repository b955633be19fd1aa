/**
 * `DurableAgent` subscribers get Pi's token events (issues 12 and 14): between an assistant
 * message's `message_start` and its `message_end`, a `message_update` for each delta the model
 * streamed, with Pi's `assistantMessageEvent` and the partial message so far, read from the job
 * store's live stream; bash output lines come as Pi's `tool_execution_update`. A real dev server
 * and worker, a fake OpenAI-compatible server streaming SSE with delays.
 */
import { DurableAgent } from '../../../src/agent/index.js';
import type { AgentEvent } from '../../../src/core/index.js';
import { temporaryFolder } from '../../support/agent-harness.js';
import { sseReply } from '../providers/fake-model-server.js';
import { chatStream } from '../providers/openai-chat-stream.js';
import { ProviderRig, randomKey } from '../providers/provider-rig.js';
import { eventShape, promptWithOneToolCall } from './pi-event-order.js';

let rig: ProviderRig;
const agents: DurableAgent[] = [];

beforeAll(async () => {
  rig = await ProviderRig.start('durable-agent-live');
});

afterAll(async () => {
  for (const agent of agents) await agent.close();
  await rig?.stop();
});

beforeEach(() => {
  rig.fake.reset();
  rig.setEnv({
    DAR_OPENAI_BASE_URL: `${rig.fake.url}/v1`,
    DAR_OPENAI_API_KEY: randomKey(),
    DAR_STREAMING: undefined,
  });
});

function makeAgent(): DurableAgent {
  const agent = new DurableAgent({
    initialState: { model: 'openai-compatible:stream-model', tools: ['bash'] },
    workspace: temporaryFolder('dar-agent-live-'),
    connection: {
      client: rig.environment.client,
      store: rig.store,
      taskQueue: rig.taskQueue,
    },
    keepOpenMs: 1_000,
  });
  agents.push(agent);
  return agent;
}

function assistantText(event: AgentEvent): string {
  if (!('message' in event) || event.message.role !== 'assistant') return '';
  return event.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

test("subscribers get Pi's message_update token events between message_start and message_end, in order", async () => {
  const command = 'for i in 1 2; do echo "tick-$((i * 5))"; sleep 0.3; done';
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        text: ['Badger ', 'digs ', 'deep'],
        toolCalls: [{ id: 'call_d', name: 'bash', argumentChunks: [JSON.stringify({ command })] }],
      }),
      { delayMs: 150 },
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Mole ', 'agrees'] }), { delayMs: 150 }),
  );
  const agent = makeAgent();
  const seen: AgentEvent[] = [];
  const streamingDuringUpdates: string[] = [];
  agent.subscribe((event) => {
    seen.push(event);
    if (event.type === 'message_update') {
      streamingDuringUpdates.push(
        assistantText({ ...event, message: agent.state.streamingMessage! }),
      );
    }
  });
  await agent.prompt('dig');

  // Pi's order around the updates, as without them.
  expect(seen.filter((event) => !event.type.endsWith('_update')).map(eventShape)).toEqual(
    promptWithOneToolCall,
  );
  // Each assistant message: message_start, then its updates, then message_end; no second start.
  const assistantShapes = seen
    .filter(
      (event) =>
        event.type.startsWith('message_') &&
        'message' in event &&
        event.message.role === 'assistant',
    )
    .map((event) => event.type);
  const starts = assistantShapes.filter((type) => type === 'message_start').length;
  expect(starts).toBe(2);
  expect(assistantShapes.filter((type) => type === 'message_end').length).toBe(2);
  const firstEnd = assistantShapes.indexOf('message_end');
  expect(assistantShapes[0]).toBe('message_start');
  expect(assistantShapes.slice(1, firstEnd).every((type) => type === 'message_update')).toBe(true);
  expect(firstEnd).toBeGreaterThan(2);
  const secondStart = assistantShapes.indexOf('message_start', firstEnd);
  expect(
    assistantShapes.slice(secondStart + 1, -1).every((type) => type === 'message_update'),
  ).toBe(true);

  // Pi's shapes: text deltas, in order, adding up to the answer; the partial message grows.
  const updates = seen.filter((event) => event.type === 'message_update');
  const firstCall = updates.slice(0, firstEnd - 1);
  const deltas = firstCall.flatMap((event) => {
    const inner = event.assistantMessageEvent as {
      type: string;
      delta?: string;
      partial?: unknown;
    };
    expect(inner.partial).toEqual(event.message);
    return inner.type === 'text_delta' ? [inner.delta ?? ''] : [];
  });
  expect(deltas.join('')).toBe('Badger digs deep');
  const partialTexts = firstCall.map(assistantText);
  expect(partialTexts.at(-1)).toBe('Badger digs deep');
  for (const [index, partial] of partialTexts.entries()) {
    expect(partial.startsWith(partialTexts[index - 1] ?? '')).toBe(true);
  }
  expect(
    firstCall.some(
      (event) =>
        (event.assistantMessageEvent as { type: string }).type === 'toolcall_end' &&
        'content' in event.message &&
        JSON.stringify(event.message.content).includes('"name":"bash"'),
    ),
  ).toBe(true);
  // The state's streaming message is the partial message at each update.
  expect(streamingDuringUpdates.at(-1)).toBe('Mole agrees');

  // Bash lines as Pi's tool_execution_update, the output so far, between start and end.
  const toolEvents = seen.filter((event) => event.type.startsWith('tool_execution_'));
  expect(toolEvents[0]?.type).toBe('tool_execution_start');
  expect(toolEvents.at(-1)?.type).toBe('tool_execution_end');
  const lastUpdate = toolEvents.filter((event) => event.type === 'tool_execution_update').at(-1);
  expect(lastUpdate).toMatchObject({
    toolCallId: 'call_d',
    toolName: 'bash',
    args: { command },
    partialResult: { content: [{ type: 'text', text: 'tick-5\ntick-10\n' }] },
  });

  // The final messages are the job's.
  expect(agent.state.messages.map((message) => message.role)).toEqual([
    'user',
    'assistant',
    'toolResult',
    'assistant',
  ]);
  expect(assistantText({ type: 'message_end', message: agent.state.messages[3]! })).toBe(
    'Mole agrees',
  );
}, 90_000);
