// A second process for the embedded store's pruning race: waits until a shared start time, then
// stores objects that are already there again, one at a time, in a shuffled order. Prints, as one
// JSON line, the indexes whose put returned: each of those must survive a concurrent prune.
// Arguments: <built store module> <folder> <object count> <start time, ms since epoch>
import { setTimeout as sleep } from 'node:timers/promises';

const [storeModule, folder, count, startAt] = process.argv.slice(2);
const { FileJobStore } = await import(storeModule);
const store = await FileJobStore.open({ folder, flushWrites: false });
const order = Array.from({ length: Number(count) }, (_, index) => index);
for (let index = order.length - 1; index > 0; index -= 1) {
  const other = Math.floor(Math.random() * (index + 1));
  [order[index], order[other]] = [order[other], order[index]];
}
await sleep(Math.max(0, Number(startAt) - Date.now()));
const stored = [];
for (const index of order.slice(0, order.length / 2)) {
  await store.putObject({ index, text: 'x'.repeat(200) });
  stored.push(index);
}
console.log(JSON.stringify({ stored }));
await store.close();
