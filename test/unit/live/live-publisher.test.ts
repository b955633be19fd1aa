import {
  FULL_PACE_CHARACTERS,
  LivePublisher,
  TOOL_UPDATE_CHARACTERS,
} from '../../../src/live/live-publisher.js';
import type { LiveEvent } from '../../../src/live/live-events.js';
import type { LiveEventStore } from '../../../src/store/live-events.js';
import { outputLines } from '../../../src/tools/output-lines.js';

/** A live store in memory that records each write, optionally slow or failing. */
function recordingStore(options: { delayMs?: number; fail?: boolean; hang?: boolean } = {}) {
  const writes: unknown[][] = [];
  let seq = 0;
  const store: LiveEventStore = {
    async appendLiveEvents(_jobId, events) {
      if (options.hang) await new Promise(() => undefined);
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (options.fail) throw new Error('database down');
      writes.push(JSON.parse(JSON.stringify(events)) as unknown[]);
      return events.map(() => (seq += 1));
    },
    readLiveEvents: () => Promise.resolve([]),
    dropLiveEvents: () => Promise.resolve(),
  };
  return { store, writes };
}

/** A bash call's output update. */
const update = (text: string): LiveEvent => ({
  type: 'tool_execution_update',
  attempt: 1,
  toolCallId: 'call',
  toolName: 'bash',
  partialResult: { content: [{ type: 'text', text }] },
});

/** The text of each tool update written, in order. */
function toolTexts(writes: unknown[][]): string[] {
  return writes
    .flat()
    .map(
      (event) =>
        (event as { partialResult: { content: { text: string }[] } }).partialResult.content[0]
          ?.text ?? '',
    );
}

const delta = (text: string, contentIndex = 0): LiveEvent => ({
  type: 'message_update',
  callIndex: 0,
  attempt: 1,
  assistantMessageEvent: { type: 'text_delta', contentIndex, delta: text },
});

test('a fast stream is batched: a thousand tokens cost a few writes, joined in order', async () => {
  const { store, writes } = recordingStore({ delayMs: 5 });
  const publisher = new LivePublisher({ store, jobId: 'job', intervalMs: 50 });
  const tokens = Array.from({ length: 1000 }, (_, index) => `t${index} `);
  for (const token of tokens) publisher.publish(delta(token));
  await publisher.close();
  expect(writes.length).toBeLessThanOrEqual(3);
  const text = writes
    .flat()
    .map((event) => (event as { assistantMessageEvent: { delta: string } }).assistantMessageEvent)
    .map((inner) => inner.delta)
    .join('');
  expect(text).toBe(tokens.join(''));
  expect(publisher.firstSeq).toBe(1);
});

test('deltas of different content blocks stay separate events, in order', async () => {
  const { store, writes } = recordingStore();
  const publisher = new LivePublisher({ store, jobId: 'job', intervalMs: 1_000 });
  publisher.publish(delta('a', 0)); // written at once: nothing was written before
  publisher.publish(delta('b', 0));
  publisher.publish(delta('c', 1));
  publisher.publish(delta('d', 1));
  await publisher.close();
  const blocks = writes
    .flat()
    .map((event) => (event as { assistantMessageEvent: unknown }).assistantMessageEvent);
  expect(blocks).toEqual([
    { type: 'text_delta', contentIndex: 0, delta: 'a' },
    { type: 'text_delta', contentIndex: 0, delta: 'b' },
    { type: 'text_delta', contentIndex: 1, delta: 'cd' },
  ]);
});

test('a failing store never throws into the caller; the failure is reported once', async () => {
  const { store } = recordingStore({ fail: true });
  const failures: unknown[] = [];
  const publisher = new LivePublisher({
    store,
    jobId: 'job',
    intervalMs: 1,
    onFailure: (error) => failures.push(error),
  });
  for (let index = 0; index < 20; index += 1) {
    publisher.publish(delta(`x${index}`));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await expect(publisher.close()).resolves.toBeUndefined();
  expect(failures).toHaveLength(1);
  expect(publisher.lost).toBeGreaterThan(0);
  expect(publisher.firstSeq).toBeUndefined();
});

test('close gives up on a store that does not answer', async () => {
  const { store } = recordingStore({ hang: true });
  const publisher = new LivePublisher({ store, jobId: 'job' });
  publisher.publish(delta('a'));
  const started = Date.now();
  await publisher.close(200);
  expect(Date.now() - started).toBeLessThan(1_000);
});

test('tool output joined in one batch is bounded, keeping its end', async () => {
  const { store, writes } = recordingStore();
  const publisher = new LivePublisher({ store, jobId: 'job', intervalMs: 1_000 });
  publisher.publish(update('first\n'));
  for (let index = 0; index < 2_000; index += 1) publisher.publish(update(`line ${index}\n`));
  await publisher.close();
  const texts = toolTexts(writes);
  expect(texts[0]).toBe('first\n');
  const joined = texts[1] ?? '';
  expect(joined.length).toBeLessThan(TOOL_UPDATE_CHARACTERS + 100);
  expect(joined).toMatch(/^\[… \d+ characters skipped\]\n/);
  expect(joined.endsWith('line 1999\n')).toBe(true);
});

test('command output is passed on in whole lines', () => {
  const seen: string[] = [];
  const lines = outputLines((text) => seen.push(text));
  lines.push('ab');
  lines.push('c\nde');
  lines.push('f\ng\n');
  lines.push('tail');
  lines.end();
  expect(seen).toEqual(['abc\n', 'def\ng\n', 'tail']);
});

test('a tool that prints without pause: past the full pace, one bounded update per slow interval, still showing its end', async () => {
  const { store, writes } = recordingStore();
  const publisher = new LivePublisher({
    store,
    jobId: 'job',
    intervalMs: 10,
    slowIntervalMs: 500,
  });
  const until = Date.now() + 3_000;
  let line = 0;
  while (Date.now() < until) {
    for (let index = 0; index < 20; index += 1) {
      line += 1;
      publisher.publish(update(`${String(line).padStart(8, '0')} ${'y'.repeat(391)}\n`));
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await publisher.close();
  const texts = toolTexts(writes);
  const written = texts.reduce((sum, text) => sum + text.length, 0);
  // About 2 MB a second was printed; what was stored stops growing fast past the full pace.
  expect(line * 400).toBeGreaterThan(3 * FULL_PACE_CHARACTERS);
  expect(written).toBeLessThan(FULL_PACE_CHARACTERS + 10 * (TOOL_UPDATE_CHARACTERS + 100));
  expect(written).toBeGreaterThanOrEqual(FULL_PACE_CHARACTERS);
  expect(texts.at(-1)?.endsWith(`${String(line).padStart(8, '0')} ${'y'.repeat(391)}\n`)).toBe(
    true,
  );
});
