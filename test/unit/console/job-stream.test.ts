import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { followJobStream, type JobStreamItem } from '../../../src/console/job-stream.js';
import type { JobStore } from '../../../src/store/job-store.js';
import { openJobStore } from '../../../src/store/open-job-store.js';
import type { ObjectRef } from '../../../src/store/references.js';

/**
 * The console's event stream views a run's end without reading its transcript: a run of
 * thousands of turns would be loaded whole, for each viewer, only to be counted. Real file store;
 * the objects are counted as they are read.
 */
let store: JobStore;

beforeAll(async () => {
  store = await openJobStore({ folder: mkdtempSync(join(tmpdir(), 'dar-console-stream-')) });
});
afterAll(() => store.close());

test('agent_end, turn_end and a message_start that names its role are viewed without a read', async () => {
  const head = await store.putObject({ messages: 'a transcript node nobody should read' });
  await store.appendEvents('job', [
    { seq: 1, event: { type: 'message_start', message: { role: 'assistant', ref: head } } },
    {
      seq: 2,
      event: {
        type: 'turn_end',
        message: { role: 'assistant', ref: head },
        toolResults: [
          { role: 'toolResult', ref: head },
          { role: 'toolResult', ref: head },
        ],
      },
    },
    { seq: 3, event: { type: 'agent_end', messagesRange: { start: 4, end: 4004, head } } },
  ]);
  const reads: ObjectRef[] = [];
  const read = (ref: ObjectRef) => {
    reads.push(ref);
    return store.getObject(ref);
  };
  const stop = new AbortController();
  const items: JobStreamItem[] = [];
  for await (const item of followJobStream(
    store,
    read,
    'job',
    { seq: 0, liveSeq: 0 },
    stop.signal,
  )) {
    items.push(item);
    if (items.length === 3) stop.abort();
  }
  expect(items).toEqual([
    { kind: 'event', view: { type: 'message_start', seq: 1, role: 'assistant' } },
    { kind: 'event', view: { type: 'turn_end', seq: 2, toolResultCount: 2 } },
    { kind: 'event', view: { type: 'agent_end', seq: 3, messageCount: 4000 } },
  ]);
  expect(reads).toEqual([]);
});
