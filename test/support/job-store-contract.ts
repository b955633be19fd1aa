import { setTimeout as sleep } from 'node:timers/promises';
import {
  EventConflict,
  JobStoreError,
  NotJsonError,
  ObjectNotFound,
  StoreCorruptionError,
  isRetryableStoreError,
  objectRef,
  type JobStore,
  type ObjectRef,
  type StoredEvent,
} from '../../src/store/index.js';

/** What a backend's test file gives the shared contract suite. */
export interface JobStoreContractHost {
  /** A store on fresh, empty storage for one test. */
  open(): Promise<JobStore>;
  /** Another store instance on the same storage as the last `open()` (a second process). */
  openAnother(): Promise<JobStore>;
  /** Changes the stored bytes of an object behind the store's back. */
  corruptObject(ref: ObjectRef): Promise<void>;
}

/**
 * The job store contract, the same cases for every backend. Every write must be idempotent
 * (activities are retried, R24) and every read deterministic, so that the workflow can hold
 * references only.
 */
export function describeJobStoreContract(host: JobStoreContractHost): void {
  let store: JobStore;
  const opened: JobStore[] = [];

  beforeEach(async () => {
    store = await host.open();
    opened.push(store);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((each) => each.close()));
  });

  const another = async () => {
    const second = await host.openAnother();
    opened.push(second);
    return second;
  };

  describe('objects', () => {
    test('a value is stored under the sha256 of its canonical JSON and read back', async () => {
      const message = { role: 'user', content: [{ type: 'text', text: 'héllo ✓' }], n: 1.5 };
      const ref = await store.putObject(message);
      expect(ref).toBe(objectRef(message));
      expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
      await expect(store.getObject(ref)).resolves.toEqual(message);
    });

    test('putting the same value again is a no-op that returns the same ref (R24)', async () => {
      const first = await store.putObject({ a: 1 });
      const second = await store.putObject({ a: 1 });
      expect(second).toBe(first);
      await expect(store.getObject(first)).resolves.toEqual({ a: 1 });
    });

    test('concurrent puts of one value all succeed with one ref (R24)', async () => {
      const value = { text: 'x'.repeat(10_000), list: [1, 2, 3] };
      const refs = await Promise.all(Array.from({ length: 20 }, () => store.putObject(value)));
      expect(new Set(refs)).toEqual(new Set([objectRef(value)]));
      await expect(store.getObject(objectRef(value))).resolves.toEqual(value);
    });

    test('a value reads back in its own key order (a tool call keeps its arguments as sent)', async () => {
      const value = { name: 'edit', arguments: { path: 'a.txt', oldText: 'x', newText: 'y' } };
      const ref = await store.putObject(value);
      const read = await store.getObject(ref);
      expect(JSON.stringify(read)).toBe(JSON.stringify(value));
    });

    test('key order does not change the ref', async () => {
      const left = await store.putObject({ b: { y: 2, x: 1 }, a: [true, null] });
      const right = await store.putObject({ a: [true, null], b: { x: 1, y: 2 } });
      expect(right).toBe(left);
    });

    test('non-JSON values are refused, not retryable, and nothing is stored', async () => {
      for (const value of [{ n: NaN }, [undefined], { f: () => 1 }, 10n, new Date(0), Infinity]) {
        const failure = await store.putObject(value).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(NotJsonError);
        expect(isRetryableStoreError(failure)).toBe(false);
      }
    });

    test('putObjects stores a batch and returns the refs in order, duplicates included', async () => {
      const values = [{ i: 1 }, { i: 2 }, { i: 1 }, 'text', 42, null];
      const refs = await store.putObjects(values);
      expect(refs).toEqual(values.map((value) => objectRef(value)));
      await expect(store.getObjects(refs)).resolves.toEqual(values);
    });

    test('a batch with some objects stored already stores the rest, small batches and large', async () => {
      for (const size of [10, 20_000]) {
        const values = Array.from({ length: 4 }, (_, index) => ({ index, text: 'x'.repeat(size) }));
        const [first, third] = [values[0], values[2]];
        await store.putObjects([first, third]);
        const refs = await store.putObjects(values);
        expect(refs).toEqual(values.map((value) => objectRef(value)));
        await expect((await another()).getObjects(refs)).resolves.toEqual(values);
      }
    });

    test('a prepared object is named before it is stored, and stored under that name with one that names it', async () => {
      const answer = { role: 'assistant', content: [{ type: 'text', text: 'done' }] };
      const preparedAnswer = store.prepareObject(answer);
      expect(preparedAnswer.ref).toBe(objectRef(answer));
      const node = { prev: null, start: 0, entries: [{ ref: preparedAnswer.ref }] };
      const preparedNode = store.prepareObject(node);
      await expect(store.getObject(preparedAnswer.ref)).rejects.toBeInstanceOf(ObjectNotFound);
      await store.putPreparedObjects([preparedAnswer, preparedNode]);
      await store.putPreparedObjects([preparedAnswer, preparedNode]);
      const reader = await another();
      await expect(reader.getObjects([preparedNode.ref, preparedAnswer.ref])).resolves.toEqual([
        node,
        answer,
      ]);
    });

    test('a prepared object changed after it was prepared is refused, not retryable', async () => {
      const value = { turn: 1 };
      const prepared = store.prepareObject(value);
      value.turn = 2;
      const failure = await store.putPreparedObjects([prepared]).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(JobStoreError);
      expect(isRetryableStoreError(failure)).toBe(false);
      await expect(store.getObject(prepared.ref)).rejects.toBeInstanceOf(ObjectNotFound);
    });

    test('preparing a value JSON cannot carry throws NotJsonError', () => {
      expect(() => store.prepareObject({ n: Number.NaN })).toThrow(NotJsonError);
    });

    test('a batch of 1,200 objects is stored whole (more than one statement)', async () => {
      const values = Array.from({ length: 1200 }, (_, index) => ({ message: index }));
      const refs = await store.putObjects(values);
      expect(new Set(refs).size).toBe(1200);
      await expect(store.getObjects(refs)).resolves.toEqual(values);
    });

    test('an unknown ref is ObjectNotFound, not retryable', async () => {
      const missing = objectRef({ never: 'stored' });
      const failure = await store.getObject(missing).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ObjectNotFound);
      expect((failure as ObjectNotFound).ref).toBe(missing);
      expect(isRetryableStoreError(failure)).toBe(false);
      const known = await store.putObject({ known: true });
      await expect(store.getObjects([known, missing])).rejects.toBeInstanceOf(ObjectNotFound);
    });

    test('a malformed ref is refused', async () => {
      await expect(store.getObject('sha256:../../etc/passwd')).rejects.toThrow(
        'Not an object reference',
      );
    });

    test('a stored object that no longer matches its hash is an error, never data', async () => {
      const ref = await store.putObject({ amount: 100 });
      await host.corruptObject(ref);
      const failure = await store.getObject(ref).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreCorruptionError);
      expect(isRetryableStoreError(failure)).toBe(false);
    });

    test('a 5 MB object round-trips', async () => {
      const big = {
        output: 'ab\n"€'.repeat(1_000_000),
        lines: Array.from({ length: 1000 }, (_, i) => i),
      };
      const ref = await store.putObject(big);
      const back = await store.getObject(ref);
      expect(back).toEqual(big);
      expect(await store.putObject(big)).toBe(ref);
    });
  });

  describe('events', () => {
    const event = (seq: number, extra: object = {}) => ({
      seq,
      event: { type: 'message_update', seq, text: `event ${seq}`, ...extra },
    });
    const seqsOf = (events: StoredEvent[]) => events.map((stored) => stored.seq);

    test('appending the same events again is a no-op (R24: retried activity)', async () => {
      const batch = [event(1), event(2), event(3)];
      await store.appendEvents('job-a', batch);
      await store.appendEvents('job-a', batch);
      await store.appendEvents('job-a', [event(2), event(3), event(4)]);
      const stored = await store.readEvents('job-a');
      expect(stored).toEqual([event(1), event(2), event(3), event(4)]);
      expect(await store.lastSeq('job-a')).toBe(4);
    });

    test('a batch of 1,200 events is appended whole, and again as a no-op', async () => {
      const batch = Array.from({ length: 1200 }, (_, index) => event(index + 1));
      await store.appendEvents('job-a', batch);
      await store.appendEvents('job-a', batch);
      expect(await store.readEvents('job-a', { limit: 5000 })).toEqual(batch);
    });

    test('the same event with its keys in another order is the same content', async () => {
      await store.appendEvents('job-a', [{ seq: 1, event: { a: 1, b: 2 } }]);
      await store.appendEvents('job-a', [{ seq: 1, event: { b: 2, a: 1 } }]);
      expect(await store.readEvents('job-a')).toEqual([{ seq: 1, event: { a: 1, b: 2 } }]);
    });

    test('different content for a stored seq is an EventConflict and changes nothing', async () => {
      await store.appendEvents('job-a', [event(1), event(2)]);
      const failure = await store
        .appendEvents('job-a', [event(2, { text: 'other' })])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EventConflict);
      expect((failure as EventConflict).seq).toBe(2);
      expect(isRetryableStoreError(failure)).toBe(false);
      await expect(
        store.appendEvents('job-a', [event(3), event(3, { text: 'twice' })]),
      ).rejects.toBeInstanceOf(EventConflict);
      expect(await store.readEvents('job-a')).toEqual([event(1), event(2)]);
    });

    test('with replace, a differing stored seq is overwritten and the rest appended', async () => {
      await store.appendEvents('job-a', [event(1), event(2)]);
      await store.appendEvents('job-a', [event(2, { text: 'rerun' }), event(3)], {
        replace: true,
      });
      // The same content again is still a no-op.
      await store.appendEvents('job-a', [event(1)], { replace: true });
      expect(await store.readEvents('job-a')).toEqual([
        event(1),
        event(2, { text: 'rerun' }),
        event(3),
      ]);
      expect(await store.lastSeq('job-a')).toBe(3);
    });

    test('seqs must be positive integers', async () => {
      for (const seq of [0, -1, 1.5, NaN]) {
        await expect(store.appendEvents('job-a', [event(seq)])).rejects.toThrow('seq');
      }
    });

    test('jobs have separate streams; an unknown job has none', async () => {
      await store.appendEvents('job-a', [event(1)]);
      await store.appendEvents('job/b with spaces & ünïcode', [event(1, { job: 'b' })]);
      expect(await store.readEvents('job-a')).toEqual([event(1)]);
      expect(await store.readEvents('job/b with spaces & ünïcode')).toEqual([
        event(1, { job: 'b' }),
      ]);
      expect(await store.readEvents('job-never')).toEqual([]);
      expect(await store.lastSeq('job-never')).toBe(0);
    });

    test('pages by count, in seq order, after a seq', async () => {
      // Appended out of order and across the file backend's folders of 1000 seqs.
      const seqs = [3, 1, 2, 998, 999, 1000, 1001, 2500, 4, 5];
      await store.appendEvents(
        'job-a',
        seqs.map((seq) => event(seq)),
      );
      const pages: number[][] = [];
      let afterSeq = 0;
      for (;;) {
        const page = await store.readEvents('job-a', { afterSeq, limit: 3 });
        if (page.length === 0) break;
        pages.push(seqsOf(page));
        afterSeq = page.at(-1)?.seq ?? afterSeq;
      }
      expect(pages).toEqual([[1, 2, 3], [4, 5, 998], [999, 1000, 1001], [2500]]);
      expect(seqsOf(await store.readEvents('job-a', { afterSeq: 999, limit: 2 }))).toEqual([
        1000, 1001,
      ]);
      expect(await store.lastSeq('job-a')).toBe(2500);
    });

    test('pages by bytes of canonical JSON, always at least one event', async () => {
      // Each event is exactly 100 bytes of canonical JSON.
      const sized = (seq: number) => {
        const base = JSON.stringify({ pad: '', seq });
        return { seq, event: { seq, pad: 'p'.repeat(100 - base.length) } };
      };
      await store.appendEvents('job-a', [1, 2, 3, 4, 5].map(sized));
      expect(seqsOf(await store.readEvents('job-a', { maxBytes: 250 }))).toEqual([1, 2]);
      expect(seqsOf(await store.readEvents('job-a', { maxBytes: 300 }))).toEqual([1, 2, 3]);
      expect(seqsOf(await store.readEvents('job-a', { afterSeq: 2, maxBytes: 1 }))).toEqual([3]);
      expect(seqsOf(await store.readEvents('job-a', { maxBytes: 1000, limit: 4 }))).toEqual([
        1, 2, 3, 4,
      ]);
    });

    test('followEvents yields stored events, then events appended after it started', async () => {
      await store.appendEvents('job-a', [event(1), event(2)]);
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const stored of store.followEvents('job-a', 1, controller.signal)) {
          seen.push(stored.seq);
          if (stored.seq === 4) controller.abort();
        }
      })();
      await sleep(300);
      await store.appendEvents('job-a', [event(3)]);
      await sleep(300);
      await store.appendEvents('job-a', [event(4), event(5)]);
      await following;
      expect(seen).toEqual([2, 3, 4]);
    });

    test('followEvents sees appends made by another store instance', async () => {
      const writer = await another();
      const controller = new AbortController();
      const seen: StoredEvent[] = [];
      const following = (async () => {
        for await (const stored of store.followEvents('job-a', 0, controller.signal)) {
          seen.push(stored);
          if (seen.length === 2) controller.abort();
        }
      })();
      await sleep(200);
      await writer.appendEvents('job-a', [event(1), event(2)]);
      await following;
      expect(seen).toEqual([event(1), event(2)]);
    });

    test('followEvents waits for a missing seq that a slower writer appends late', async () => {
      // The hosts open stores with gapWaitMs 500.
      await store.appendEvents('job-a', [event(1), event(3)]);
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const stored of store.followEvents('job-a', 0, controller.signal)) {
          seen.push(stored.seq);
          if (stored.seq === 3) controller.abort();
        }
      })();
      await sleep(200);
      expect(seen).toEqual([1]);
      await store.appendEvents('job-a', [event(2)]);
      await following;
      expect(seen).toEqual([1, 2, 3]);
    });

    test('followEvents goes past a seq that stays missing', async () => {
      await store.appendEvents('job-a', [event(1), event(2), event(4), event(5)]);
      const controller = new AbortController();
      const seen: number[] = [];
      const started = Date.now();
      for await (const stored of store.followEvents('job-a', 0, controller.signal)) {
        seen.push(stored.seq);
        if (stored.seq === 5) controller.abort();
      }
      expect(seen).toEqual([1, 2, 4, 5]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    });

    test('followEvents ends quietly when aborted while it waits', async () => {
      const controller = new AbortController();
      const following = (async () => {
        const seen: StoredEvent[] = [];
        for await (const stored of store.followEvents('job-quiet', 0, controller.signal)) {
          seen.push(stored);
        }
        return seen;
      })();
      await sleep(200);
      controller.abort();
      await expect(following).resolves.toEqual([]);
    });

    test('two store instances appending the same events concurrently store them once', async () => {
      const second = await another();
      const batch = Array.from({ length: 50 }, (_, index) => event(index + 1));
      await Promise.all([
        store.appendEvents('job-a', batch),
        second.appendEvents('job-a', batch),
        store.appendEvents('job-a', batch.slice(10, 30)),
        second.appendEvents('job-a', batch.slice(25)),
      ]);
      expect(await second.readEvents('job-a')).toEqual(batch);
    });

    test('two writers of different content for one seq: exactly one wins', async () => {
      const second = await another();
      for (let seq = 1; seq <= 10; seq += 1) {
        const results = await Promise.allSettled([
          store.appendEvents('job-a', [event(seq, { writer: 'first' })]),
          second.appendEvents('job-a', [event(seq, { writer: 'second' })]),
        ]);
        const failures = results.filter((result) => result.status === 'rejected');
        expect(failures).toHaveLength(1);
        expect((failures[0] as PromiseRejectedResult).reason).toBeInstanceOf(EventConflict);
        const [stored] = await store.readEvents('job-a', { afterSeq: seq - 1, limit: 1 });
        const winner = results[0]?.status === 'fulfilled' ? 'first' : 'second';
        expect(stored).toEqual(event(seq, { writer: winner }));
      }
    });
  });

  describe('records', () => {
    test('an unknown record is undefined; the last write wins', async () => {
      expect(await store.getRecord('tool-journal', 'call-1')).toBeUndefined();
      await store.putRecord('tool-journal', 'call-1', { state: 'started' });
      expect(await store.getRecord('tool-journal', 'call-1')).toEqual({ state: 'started' });
      await store.putRecord('tool-journal', 'call-1', { state: 'finished', exitCode: 0 });
      expect(await store.getRecord('tool-journal', 'call-1')).toEqual({
        state: 'finished',
        exitCode: 0,
      });
    });

    test('a record written not durably reads back the same, and a durable write replaces it', async () => {
      await store.putRecord('job-status', 'job-1', { phase: 'model' }, { durable: false });
      expect(await store.getRecord('job-status', 'job-1')).toEqual({ phase: 'model' });
      expect(await (await another()).getRecord('job-status', 'job-1')).toEqual({ phase: 'model' });
      await store.putRecord('job-status', 'job-1', { phase: 'done' });
      expect(await store.getRecord('job-status', 'job-1')).toEqual({ phase: 'done' });
    });

    test('namespaces and keys are separate; another instance reads the same records', async () => {
      await store.putRecord('a', 'key/with/slashes', 1);
      await store.putRecord('b', 'key/with/slashes', 2);
      await store.putRecord('a', 'other', [3]);
      const second = await another();
      expect(await second.getRecord('a', 'key/with/slashes')).toBe(1);
      expect(await second.getRecord('b', 'key/with/slashes')).toBe(2);
      expect(await second.getRecord('a', 'other')).toEqual([3]);
    });
  });

  describe('live stream', () => {
    const delta = (text: string) => ({ type: 'message_update', delta: text });

    test('the store numbers live events 1, 2, 3 ... in order; pages after a seq', async () => {
      expect(await store.appendLiveEvents('job-live', [delta('a'), delta('b')])).toEqual([1, 2]);
      expect(await store.appendLiveEvents('job-live', [delta('c')])).toEqual([3]);
      expect(await store.appendLiveEvents('job-live', [])).toEqual([]);
      const all = await store.readLiveEvents('job-live');
      expect(all).toEqual([
        { seq: 1, event: delta('a') },
        { seq: 2, event: delta('b') },
        { seq: 3, event: delta('c') },
      ]);
      expect(await store.readLiveEvents('job-live', { afterSeq: 1, limit: 1 })).toEqual([
        { seq: 2, event: delta('b') },
      ]);
      expect(await store.readLiveEvents('another-job')).toEqual([]);
      // The job's own event stream is separate.
      expect(await store.readEvents('job-live')).toEqual([]);
    });

    test('dropped live events are gone and their seqs are never given again', async () => {
      await store.appendLiveEvents('job-drop', [delta('a'), delta('b'), delta('c')]);
      await store.dropLiveEvents('job-drop', 2);
      expect(await store.readLiveEvents('job-drop')).toEqual([{ seq: 3, event: delta('c') }]);
      await store.dropLiveEvents('job-drop', 3);
      expect(await store.readLiveEvents('job-drop')).toEqual([]);
      const second = await another();
      expect(await second.appendLiveEvents('job-drop', [delta('d')])).toEqual([4]);
      expect(await store.readLiveEvents('job-drop')).toEqual([{ seq: 4, event: delta('d') }]);
    });

    test('concurrent writers get distinct gapless seqs, each in its order, never seen with a gap', async () => {
      const second = await another();
      const writers = [store, second, store, second].map(async (writer, index) => {
        const seqs: number[] = [];
        for (let batch = 0; batch < 10; batch += 1) {
          const events = [0, 1].map((item) => ({ writer: index, n: batch * 2 + item }));
          seqs.push(...(await writer.appendLiveEvents('job-race', events)));
        }
        return seqs;
      });
      let writing = true;
      const gapsSeen: number[][] = [];
      const reader = (async () => {
        while (writing) {
          const seqs = (await second.readLiveEvents('job-race')).map((stored) => stored.seq);
          if (seqs.some((seq, index) => seq !== index + 1)) gapsSeen.push(seqs);
          await sleep(1);
        }
      })();
      const results = await Promise.all(writers);
      writing = false;
      await reader;
      expect(gapsSeen).toEqual([]);
      const stored = await store.readLiveEvents('job-race');
      expect(stored.map((entry) => entry.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      for (const [index, seqs] of results.entries()) {
        expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
        const mine = stored.filter((entry) => (entry.event as { writer: number }).writer === index);
        expect(mine.map((entry) => (entry.event as { n: number }).n)).toEqual(
          Array.from({ length: 20 }, (_, i) => i),
        );
      }
    });

    test('a live event JSON cannot carry is refused', async () => {
      await expect(store.appendLiveEvents('job-bad', [{ n: Number.NaN }])).rejects.toThrow();
      await expect(store.dropLiveEvents('job-bad', -1)).rejects.toThrow();
      expect(await store.readLiveEvents('job-bad')).toEqual([]);
    });
  });

  test('a closed store refuses calls', async () => {
    await store.close();
    await expect(store.putObject({ a: 1 })).rejects.toThrow('closed');
    await store.close();
  });
}
