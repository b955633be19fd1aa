import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, UserMessage } from '../../../src/core/index.js';
import { estimateMessageTokens } from '../../../src/compaction/token-estimate.js';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import type { ObjectRef } from '../../../src/store/references.js';
import { loadTranscriptFrom } from '../../../src/transcript/model-context.js';
import {
  appendToTranscript,
  loadTranscript,
  thinUserMessage,
  type TranscriptNode,
} from '../../../src/transcript/transcript-nodes.js';
import { countNewMessages } from '../../../src/workflows/context-tokens.js';
import { initialJobState } from '../../../src/workflows/job-state.js';

async function openStore() {
  const store = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-thin-')) });
  const read = (ref: ObjectRef) => store.getObject(ref);
  return { store, read };
}

const whole: UserMessage = { role: 'user', content: 'f'.repeat(40_000), timestamp: 7 };

test('a thin user message keeps no content, its timestamp and the whole message’s estimate', async () => {
  const { store } = await openStore();
  const ref = await store.putObject(whole);
  const thin = thinUserMessage(whole, ref);
  expect(thin).toEqual({
    role: 'user',
    content: '',
    timestamp: 7,
    ref,
    estimatedTokens: estimateMessageTokens(whole),
  });
  expect(thin.estimatedTokens).toBe(10_000);
  expect(JSON.stringify(thin).length).toBeLessThan(200);
});

test('a thin user message is stored in the transcript by reference and read back whole', async () => {
  const { store, read } = await openStore();
  const thin = thinUserMessage(whole, await store.putObject(whole));
  const small: Message = { role: 'user', content: 'small', timestamp: 8 };
  const pointer = await appendToTranscript(store, { head: null, count: 0 }, [thin, small]);

  const node = (await read(pointer.head as ObjectRef)) as unknown as TranscriptNode;
  expect(node.entries).toEqual([{ ref: thin.ref }, small]);
  expect(await loadTranscript(read, pointer)).toEqual([whole, small]);
  // Not stored yet (the model activity's unstored messages): read back whole as well.
  expect(
    await loadTranscriptFrom(read, { pointer: { head: null, count: 0 }, unstored: [thin] }, 0),
  ).toEqual([whole]);
});

test('the context estimate counts a thin user message as the whole one', async () => {
  const { store } = await openStore();
  const state = initialJobState(undefined, 0);
  state.messages.push(thinUserMessage(whole, await store.putObject(whole)));
  countNewMessages(state);
  expect(state.contextTokens).toEqual({ tokens: 10_000, countedTo: 1 });
});
