/**
 * The worker's side of the progress sink hands each write to the store as this realm's plain
 * objects: a workflow in a workflow thread sends them already copied over, a workflow run in
 * the worker's own thread (debug mode) sends objects of its context, which the store refuses.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { WorkflowInfo } from '@temporalio/workflow';
import { FileJobStore } from '../../../src/store/file/file-job-store.js';
import { progressSinks } from '../../../src/worker/progress-sink.js';

const PROGRESS_SOURCE = `({
  jobId: 'sink-job',
  events: [{ seq: 1, event: { type: 'agent_start' } }, { seq: 2, event: { type: 'turn_start' } }],
  transcript: { pointer: { head: null, count: 0 }, unstored: [] },
})`;

async function storedTypes(store: FileJobStore, jobId: string): Promise<string[]> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const events = await store.readEvents(jobId);
    if (events.length >= 2) return events.map((stored) => (stored.event as { type: string }).type);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [];
}

async function writeThroughSink(progress: unknown): Promise<string[]> {
  const store = await FileJobStore.open({ folder: mkdtempSync(join(tmpdir(), 'dar-sink-')) });
  const sink = progressSinks(store).jobProgress.write;
  type Progress = Parameters<typeof sink.fn>[1];
  // The SDK calls a sink function and does not wait for it; this one returns nothing.
  void sink.fn({ workflowId: 'sink-job' } as WorkflowInfo, progress as Progress);
  return storedTypes(store, 'sink-job');
}

test('a write from a workflow thread (objects of this realm) is stored as it is', async () => {
  const progress = runInNewContext(`JSON.stringify(${PROGRESS_SOURCE})`) as string;
  expect(await writeThroughSink(JSON.parse(progress))).toEqual(['agent_start', 'turn_start']);
});

test("a write from a workflow in this thread (its context's objects) is copied, then stored", async () => {
  const progress: unknown = runInNewContext(PROGRESS_SOURCE);
  expect(Object.getPrototypeOf(progress)).not.toBe(Object.prototype);
  expect(await writeThroughSink(progress)).toEqual(['agent_start', 'turn_start']);
});
