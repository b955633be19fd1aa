import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBatchFile } from '../../../src/batch/task-file.js';
import { formatEvent } from '../../../src/cli/event-format.js';
import { emptyUsage, type AssistantMessage, type Message } from '../../../src/core/index.js';
import { parseCompactionFlags } from '../../../src/job-input/compaction-flags.js';
import { UsageError } from '../../../src/job-input/usage-error.js';
import { compactionLimits } from '../../../src/workflows/compaction-settings.js';
import { countModelAnswer, countNewMessages } from '../../../src/workflows/context-tokens.js';
import { jobInputProblems } from '../../../src/workflows/job-input-schema.js';
import { initialJobState } from '../../../src/workflows/job-state.js';

test('limits: the job setting, else the window the model activity reported; defaults fit small windows', () => {
  expect(compactionLimits(undefined, undefined)).toBeUndefined();
  expect(compactionLimits({ reserveTokens: 10 }, undefined)).toBeUndefined();
  expect(compactionLimits(undefined, 200_000)).toEqual({
    contextWindow: 200_000,
    reserveTokens: 16_384,
    keepRecentTokens: 20_000,
  });
  expect(compactionLimits(undefined, 8000)).toEqual({
    contextWindow: 8000,
    reserveTokens: 2000,
    keepRecentTokens: 2000,
  });
  expect(
    compactionLimits({ contextWindow: 1000, reserveTokens: 10, keepRecentTokens: 5 }, 200_000),
  ).toEqual({ contextWindow: 1000, reserveTokens: 10, keepRecentTokens: 5 });
  expect(compactionLimits({ enabled: false, contextWindow: 1000 }, 200_000)).toBeUndefined();
});

test('job input: compaction is checked at entry (known keys, whole numbers)', () => {
  const input = { prompt: 'p', model: 'scripted:x', workspace: '/w', tools: [] };
  expect(jobInputProblems({ ...input, compaction: { contextWindow: 1000 } })).toEqual([]);
  expect(jobInputProblems({ ...input, compaction: { window: 1000 } })).toEqual([
    'compaction.window: is not a known field',
  ]);
  expect(jobInputProblems({ ...input, compaction: { contextWindow: 1.5 } })).toHaveLength(1);
});

test('dar run flags: --context-window N, --no-compaction', () => {
  expect(parseCompactionFlags({})).toBeUndefined();
  expect(parseCompactionFlags({ contextWindow: '32000' })).toEqual({ contextWindow: 32_000 });
  expect(parseCompactionFlags({ noCompaction: true })).toEqual({ enabled: false });
  expect(() => parseCompactionFlags({ contextWindow: '32k' })).toThrow(UsageError);
  expect(() => parseCompactionFlags({ contextWindow: '0' })).toThrow(UsageError);
  expect(() => parseCompactionFlags({ contextWindow: '10', noCompaction: true })).toThrow(
    UsageError,
  );
});

test('batch lines take a compaction object', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dar-compaction-batch-'));
  writeFileSync(
    join(folder, 'script.json'),
    JSON.stringify([{ content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' }]),
  );
  const file = join(folder, 'tasks.jsonl');
  const line = { prompt: 'p', model: 'scripted:script.json', workspace: '.' };
  const [task] = parseBatchFile(
    file,
    JSON.stringify({ ...line, compaction: { contextWindow: 4000 } }),
    {},
  );
  expect(task?.input.compaction).toEqual({ contextWindow: 4000 });
  expect(() => parseBatchFile(file, JSON.stringify({ ...line, compaction: 5 }), {})).toThrow(
    /compaction/,
  );
});

function answer(input: number, output: number, stopReason: AssistantMessage['stopReason']) {
  return {
    role: 'assistant' as const,
    content: [],
    usage: { ...emptyUsage(), input, output },
    stopReason,
    timestamp: 0,
  };
}

test('context size: the last answer measured, the messages since estimated (stored results as their activity reported)', () => {
  const state = initialJobState(undefined, 0);
  const prompt: Message = { role: 'user', content: 'x'.repeat(400), timestamp: 0 };
  state.messages.push(prompt);
  countNewMessages(state);
  expect(state.contextTokens).toEqual({ tokens: 100, countedTo: 1 });

  countModelAnswer(state, answer(120, 30, 'toolUse'), 999);
  expect(state.contextTokens).toEqual({ tokens: 150, countedTo: 2 });
  state.messages.push(answer(120, 30, 'toolUse'));
  state.storedResultTokens.ref1 = 500;
  state.messages.push({
    role: 'toolResult',
    toolCallId: 'c',
    toolName: 'bash',
    content: [],
    contentRef: 'ref1',
    isError: false,
    timestamp: 0,
  });
  countNewMessages(state);
  expect(state.contextTokens).toEqual({ tokens: 650, countedTo: 3 });
  // Counted once.
  countNewMessages(state);
  expect(state.contextTokens.tokens).toBe(650);

  // A provider that reports no usage: the activity's estimate; a failed call changes nothing.
  countModelAnswer(state, answer(0, 0, 'stop'), 777);
  expect(state.contextTokens).toEqual({ tokens: 777, countedTo: 4 });
  countModelAnswer(state, answer(5, 5, 'error'), 1);
  expect(state.contextTokens).toEqual({ tokens: 777, countedTo: 4 });
});

test('dar events prints a compaction as one line', () => {
  expect(
    formatEvent(
      {
        type: 'compaction',
        summarised: { start: 0, end: 5 },
        tokensBefore: 910,
        tokensAfter: 120,
        contextWindow: 1000,
        summaryRef: 'ref',
        seq: 3,
      },
      2,
    ),
  ).toBe('context compacted: messages 0-4 summarised (about 910 tokens, now 120, window 1000)');
  expect(
    formatEvent(
      {
        type: 'compaction',
        summarised: { start: 0, end: 1 },
        tokensBefore: 910,
        tokensAfter: 162,
        contextWindow: 1000,
        summaryRef: 'ref',
        seq: 3,
      },
      2,
    ),
  ).toBe('context compacted: message 0 summarised (about 910 tokens, now 162, window 1000)');
});
