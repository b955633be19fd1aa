/**
 * The console's job stream carries the live stream too (issue 12 item 4): token deltas and bash
 * output lines reach the job page while they happen, each message's id is the cursor of both
 * streams (`SEQ:LIVESEQ`), and a page that reconnects with it gets the rest with no gap and no
 * duplicate. The final `message_end` comes after the deltas it replaces (R3's order). A real
 * dev server and worker, a fake OpenAI-compatible server streaming SSE with delays.
 */
import { startConsoleServer, type ConsoleServer } from '../../../src/console/console-server.js';
import type { EventView } from '../../../src/console/event-view.js';
import type { SequencedLiveEvent } from '../../../src/live/live-events.js';
import { bearer, readEventStream, type StreamMessage } from '../../support/console-harness.js';
import { sseReply } from '../providers/fake-model-server.js';
import { chatStream } from '../providers/openai-chat-stream.js';
import { ProviderRig, randomKey } from '../providers/provider-rig.js';

let rig: ProviderRig;
let web: ConsoleServer;
const MODEL = 'openai-compatible:stream-model';

beforeAll(async () => {
  rig = await ProviderRig.start('console-live');
  web = await startConsoleServer({ client: rig.environment.client, store: rig.store });
});

afterAll(async () => {
  await web?.close();
  await rig?.stop();
});

beforeEach(() => {
  rig.fake.reset();
  rig.setEnv({
    DAR_OPENAI_BASE_URL: `${rig.fake.url}/v1`,
    DAR_OPENAI_API_KEY: randomKey(),
    DAR_STREAMING: undefined,
    DAR_STREAM_RETENTION: undefined,
  });
});

type Item = { kind: 'event'; event: EventView } | { kind: 'live'; event: SequencedLiveEvent };

function itemsOf(messages: StreamMessage[]): Item[] {
  return messages.flatMap((message): Item[] => {
    if (message.event === 'job-event') {
      return [{ kind: 'event', event: JSON.parse(message.data) as EventView }];
    }
    if (message.event === 'live-event') {
      return [{ kind: 'live', event: JSON.parse(message.data) as SequencedLiveEvent }];
    }
    return [];
  });
}

function textDeltas(items: Item[], callIndex: number): string {
  return items
    .flatMap((item) =>
      item.kind === 'live' &&
      item.event.type === 'message_update' &&
      item.event.callIndex === callIndex &&
      item.event.assistantMessageEvent.type === 'text_delta'
        ? [item.event.assistantMessageEvent.delta]
        : [],
    )
    .join('');
}

function ended(messages: StreamMessage[]): boolean {
  return itemsOf(messages).some((item) => item.kind === 'event' && item.event.type === 'agent_end');
}

function eventsPath(jobId: string): string {
  return `/api/jobs/${encodeURIComponent(jobId)}/events`;
}

test('R3: the page gets the answer as it is written and bash lines as they come, before the final events', async () => {
  const command = 'for i in 1 2 3; do echo "line-$((i * 11))"; sleep 0.3; done';
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        text: ['Heron ', 'over ', 'water'],
        toolCalls: [{ id: 'call_c', name: 'bash', argumentChunks: [JSON.stringify({ command })] }],
      }),
      { delayMs: 150 },
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Otter ', 'done'] }), { delayMs: 150 }),
  );
  const { job } = await rig.startJob(MODEL, 'count');
  const stream = await readEventStream(web, eventsPath(job.workflowId), bearer(web), ended, 60_000);
  const items = itemsOf(stream.messages);

  expect(textDeltas(items, 0)).toBe('Heron over water');
  expect(textDeltas(items, 1)).toBe('Otter done');
  // The deltas of call 0 come before its message_end; nothing of it comes after.
  const firstEnd = items.findIndex(
    (item) =>
      item.kind === 'event' &&
      item.event.type === 'message_end' &&
      (item.event.message as { role?: string }).role === 'assistant',
  );
  const lastDelta = items.findLastIndex(
    (item) =>
      item.kind === 'live' && item.event.type === 'message_update' && item.event.callIndex === 0,
  );
  expect(lastDelta).toBeGreaterThanOrEqual(0);
  expect(lastDelta).toBeLessThan(firstEnd);

  // Bash lines arrive as live tool updates before the tool's end event.
  const toolEnd = items.findIndex(
    (item) => item.kind === 'event' && item.event.type === 'tool_execution_end',
  );
  const output = items
    .slice(0, toolEnd)
    .flatMap((item) =>
      item.kind === 'live' && item.event.type === 'tool_execution_update'
        ? item.event.partialResult.content.map((block) => block.text)
        : [],
    )
    .join('');
  expect(output).toBe('line-11\nline-22\nline-33\n');

  // Ids are both cursors, never going back.
  const ids = stream.messages.flatMap((message) =>
    message.id === undefined ? [] : [message.id.split(':').map(Number)],
  );
  for (const [index, [seq = 0, liveSeq = 0]] of ids.entries()) {
    const [previousSeq = 0, previousLive = 0] = ids[index - 1] ?? [0, 0];
    expect(seq).toBeGreaterThanOrEqual(previousSeq);
    expect(liveSeq).toBeGreaterThanOrEqual(previousLive);
  }
}, 90_000);

test('a page that reconnects with its last id (SEQ:LIVESEQ) misses no delta and gets none twice', async () => {
  const words = ['one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight'];
  rig.fake.reply(sseReply(chatStream({ finishReason: 'stop', text: words }), { delayMs: 200 }));
  const { job } = await rig.startJob(MODEL, 'count');
  const first = await readEventStream(
    web,
    eventsPath(job.workflowId),
    bearer(web),
    (messages) => textDeltas(itemsOf(messages), 0).includes('two'),
    30_000,
  );
  const lastId = first.messages.at(-1)?.id ?? '';
  expect(lastId).toMatch(/^\d+:\d+$/);
  const second = await readEventStream(
    web,
    eventsPath(job.workflowId),
    { ...bearer(web), 'Last-Event-ID': lastId },
    ended,
    60_000,
  );
  const before = textDeltas(itemsOf(first.messages), 0);
  const after = textDeltas(itemsOf(second.messages), 0);
  expect(after).not.toBe('');
  expect(before + after).toBe(words.join(''));
  const seqs = [...itemsOf(first.messages), ...itemsOf(second.messages)].flatMap((item) =>
    item.kind === 'event' ? [item.event.seq] : [],
  );
  expect(seqs).toEqual(seqs.map((_, index) => index + 1));
}, 90_000);

test.each(['3:x', '99999999999999999999', '1:99999999999999999999'])(
  'an after parameter that is not SEQ or SEQ:LIVESEQ of safe integers (%s) is refused',
  async (after) => {
    const { job } = await rig.startJob(MODEL, 'count');
    await job.cancel();
    const answer = await readEventStream(
      web,
      `${eventsPath(job.workflowId)}?after=${after}`,
      bearer(web),
      () => true,
      10_000,
    );
    expect(answer.status).toBe(400);
  },
);
