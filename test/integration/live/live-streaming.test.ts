import type { AgentJob } from '../../../src/client/job-client.js';
import type { SequencedLiveEvent } from '../../../src/live/live-events.js';
import type { SequencedEvent } from '../../../src/workflows/job-types.js';
import { sseReply, type SseEvent } from '../providers/fake-model-server.js';
import { chatStream } from '../providers/openai-chat-stream.js';
import { ProviderRig, historyText, randomKey, resultOf } from '../providers/provider-rig.js';

/**
 * Live streaming (issue 12): token deltas and bash output reach followers through the job
 * store's live stream while the model streams and the command runs, outside Temporal history
 * (R23: history stays what the workflow decides). A real dev server, a real worker, and a fake
 * OpenAI-compatible server streaming SSE with delays.
 */

let rig: ProviderRig;
const MODEL = 'openai-compatible:stream-model';

beforeAll(async () => {
  rig = await ProviderRig.start('live-streaming');
});

afterAll(async () => {
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

interface Followed {
  /** Everything in arrival order: job events and live events. */
  all: (SequencedEvent | SequencedLiveEvent)[];
  live: SequencedLiveEvent[];
}

async function followJob(
  job: AgentJob,
  options: {
    afterSeq?: number;
    afterLiveSeq?: number;
    stopWhen?: (seen: Followed) => boolean;
  } = {},
): Promise<Followed & { lastSeq: number; lastLiveSeq: number }> {
  const seen: Followed = { all: [], live: [] };
  const controller = new AbortController();
  let lastSeq = options.afterSeq ?? 0;
  let lastLiveSeq = options.afterLiveSeq ?? 0;
  const check = () => {
    if (options.stopWhen?.(seen)) controller.abort();
  };
  try {
    await job.follow(
      (event) => {
        seen.all.push(event);
        lastSeq = event.seq;
        check();
      },
      {
        afterSeq: lastSeq,
        signal: controller.signal,
        live: {
          afterLiveSeq: lastLiveSeq,
          onLive: (event) => {
            seen.all.push(event);
            seen.live.push(event);
            lastLiveSeq = event.liveSeq;
            check();
          },
        },
      },
    );
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { ...seen, lastSeq, lastLiveSeq };
}

function textDeltas(live: SequencedLiveEvent[], attempt?: number): string {
  return live
    .flatMap((event) =>
      event.type === 'message_update' &&
      event.assistantMessageEvent.type === 'text_delta' &&
      (attempt === undefined || event.attempt === attempt)
        ? [event.assistantMessageEvent.delta]
        : [],
    )
    .join('');
}

test('deltas and bash output lines arrive in order, tagged, before the final events; history holds none', async () => {
  const command = 'for i in 1 2 3; do echo "row-$((i * 7))"; sleep 0.3; done';
  rig.fake.reply(
    sseReply(
      chatStream({
        finishReason: 'tool_calls',
        text: ['Zebra ', 'crossing ', 'ahead'],
        toolCalls: [
          {
            id: 'call_b',
            name: 'bash',
            argumentChunks: ['{"command":', JSON.stringify(command), '}'],
          },
        ],
      }),
      { delayMs: 120 },
    ),
    sseReply(chatStream({ finishReason: 'stop', text: ['Quokka ', 'done'] }), { delayMs: 120 }),
  );
  const { job } = await rig.startJob(MODEL, 'count');
  const followed = await followJob(job);

  // Call 0 (turn 1): its text, in order, with Pi's shapes, before its message_end.
  const first = followed.live.filter(
    (event) => event.type === 'message_update' && event.callIndex === 0,
  );
  expect(textDeltas(first)).toBe('Zebra crossing ahead');
  expect(first.every((event) => event.type === 'message_update' && event.turn === 1)).toBe(true);
  expect(first.every((event) => event.type === 'message_update' && event.attempt === 1)).toBe(true);
  const types = first.map((event) =>
    event.type === 'message_update' ? event.assistantMessageEvent.type : event.type,
  );
  expect(types[0]).toBe('start');
  expect(types).toEqual(
    expect.arrayContaining([
      'text_start',
      'text_delta',
      'text_end',
      'toolcall_start',
      'toolcall_delta',
    ]),
  );
  const argumentText = first
    .flatMap((event) =>
      event.type === 'message_update' && event.assistantMessageEvent.type === 'toolcall_delta'
        ? [event.assistantMessageEvent.delta]
        : [],
    )
    .join('');
  expect(JSON.parse(argumentText)).toEqual({ command });
  const firstEnd = followed.all.findIndex(
    (event) => event.type === 'message_end' && 'seq' in event && event.message.role === 'assistant',
  );
  const lastDelta = followed.all.indexOf(first.at(-1) as SequencedLiveEvent);
  expect(lastDelta).toBeLessThan(firstEnd);

  // Bash output: the lines as they came, before tool_execution_end.
  const updates = followed.live.filter((event) => event.type === 'tool_execution_update');
  expect(updates.length).toBeGreaterThanOrEqual(2); // the lines came 0.3 s apart
  expect(
    updates
      .map((event) => event.partialResult.content.map((block) => block.text).join(''))
      .join(''),
  ).toBe('row-7\nrow-14\nrow-21\n');
  expect(updates.every((event) => event.toolCallId === 'call_b' && event.turn === 1)).toBe(true);
  const toolEnd = followed.all.findIndex((event) => event.type === 'tool_execution_end');
  expect(followed.all.indexOf(updates.at(-1) as SequencedLiveEvent)).toBeLessThan(toolEnd);

  // Call 1 (turn 2).
  const second = followed.live.filter(
    (event) => event.type === 'message_update' && event.callIndex === 1,
  );
  expect(textDeltas(second)).toBe('Quokka done');
  expect(second.every((event) => event.type === 'message_update' && event.turn === 2)).toBe(true);

  // Live seqs are increasing, none twice.
  const seqs = followed.live.map((event) => event.liveSeq);
  expect(seqs).toEqual([...new Set(seqs)].sort((left, right) => left - right));

  await resultOf(job);
  // History holds neither the answers' text nor the command's output: only the store does.
  const history = await historyText(job.handle);
  for (const word of ['Zebra', 'crossing', 'Quokka', 'row-14', 'text_delta', 'message_update']) {
    expect(history).not.toContain(word);
  }
  // The job ended: its live stream is dropped (DAR_STREAM_RETENTION defaults to drop).
  await waitFor(async () => (await rig.store.readLiveEvents(job.workflowId)).length === 0);
});

test('a stream that fails half way with a 503 is retried; followers are told the partial answer is void', async () => {
  const failing = chatStream({ finishReason: 'stop', text: ['Partial ', 'yak ', 'text'] });
  const cut: SseEvent[] = [
    ...failing.slice(0, 3),
    { data: JSON.stringify({ error: { message: 'HTTP 503 Service Unavailable', code: 503 } }) },
  ];
  rig.fake.reply(
    sseReply(cut, { delayMs: 150 }),
    sseReply(chatStream({ finishReason: 'stop', text: ['Whole ', 'answer'] }), { delayMs: 100 }),
  );
  const { job } = await rig.startJob(MODEL, 'answer');
  const followed = await followJob(job);
  const result = await resultOf(job);

  expect(rig.fake.requests).toHaveLength(2);
  expect(textDeltas(followed.live, 1)).toBe('Partial yak ');
  expect(textDeltas(followed.live, 2)).toBe('Whole answer');
  const voided = followed.live.filter((event) => event.type === 'message_void');
  expect(voided).toEqual([
    expect.objectContaining({ type: 'message_void', callIndex: 0, attempt: 1, turn: 1 }),
  ]);
  // The void comes after the first attempt's deltas and before the second's.
  const voidAt = followed.live.indexOf(voided[0] as SequencedLiveEvent);
  const attemptOf = (event: SequencedLiveEvent) =>
    event.type === 'message_update' ? event.attempt : undefined;
  expect(followed.live.slice(0, voidAt).every((event) => attemptOf(event) === 1)).toBe(true);
  expect(followed.live.slice(voidAt + 1).every((event) => attemptOf(event) === 2)).toBe(true);
  // The final message is the second attempt's alone.
  const final = result.messages.filter((message) => message.role === 'assistant');
  expect(final.map((message) => message.content)).toEqual([
    [{ type: 'text', text: 'Whole answer' }],
  ]);
});

test('a follower that disconnects resumes from its cursor with no gap and no duplicate', async () => {
  const words = Array.from({ length: 14 }, (_, index) => `w${index} `);
  rig.fake.reply(sseReply(chatStream({ finishReason: 'stop', text: words }), { delayMs: 120 }));
  const { job } = await rig.startJob(MODEL, 'talk');
  const before = await followJob(job, {
    stopWhen: (seen) => textDeltas(seen.live).split(' ').length > 4,
  });
  expect(before.all.some((event) => event.type === 'agent_end')).toBe(false);
  // A moment away: deltas are written meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const after = await followJob(job, {
    afterSeq: before.lastSeq,
    afterLiveSeq: before.lastLiveSeq,
  });
  expect(textDeltas(before.live) + textDeltas(after.live)).toBe(words.join(''));
  const liveSeqs = [...before.live, ...after.live].map((event) => event.liveSeq);
  expect(new Set(liveSeqs).size).toBe(liveSeqs.length);
  const seqs = [...before.all, ...after.all].flatMap((event) =>
    'seq' in event ? [event.seq] : [],
  );
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
  await resultOf(job);
});

async function waitFor(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
