// A second process for the embedded store's concurrency test: opens the store in a folder,
// waits until a shared start time, then writes. Prints what it saw as one JSON line.
// Arguments: <built store module> <folder> <writer name> <start time, ms since epoch>
import { setTimeout as sleep } from 'node:timers/promises';

const [storeModule, folder, writer, startAt] = process.argv.slice(2);
const { FileJobStore, EventConflict } = await import(storeModule);
const store = await FileJobStore.open({ folder });
await sleep(Math.max(0, Number(startAt) - Date.now()));

const shared = Array.from({ length: 200 }, (_, index) => ({
  seq: index + 1,
  event: { type: 'message_update', seq: index + 1 },
}));
const objects = Array.from({ length: 50 }, (_, index) => ({
  message: index,
  text: 'm'.repeat(500),
}));
const [refs] = await Promise.all([
  store.putObjects(objects),
  store.appendEvents('job-shared', shared.slice(0, 120)),
  store.appendEvents('job-shared', shared.slice(80)),
]);

// Contested seqs: each writer claims every one with its own content; one must win each.
const lost = [];
for (let seq = 1; seq <= 100; seq += 1) {
  try {
    await store.appendEvents('job-contested', [{ seq, event: { writer } }]);
  } catch (error) {
    if (!(error instanceof EventConflict)) throw error;
    lost.push(seq);
  }
}
console.log(JSON.stringify({ writer, refs, lost }));
await store.close();
