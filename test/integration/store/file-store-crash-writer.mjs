// Appends events and objects to an embedded store without end, until it is killed; prints
// "writing" once it has started. Arguments: <built store module> <folder>
const [storeModule, folder] = process.argv.slice(2);
const { FileJobStore } = await import(storeModule);
const store = await FileJobStore.open({ folder });
let seq = 0;
let announced = false;
for (;;) {
  const batch = Array.from({ length: 10 }, () => {
    seq += 1;
    return { seq, event: { type: 'message_update', seq, text: 'x'.repeat(2000) } };
  });
  await Promise.all([
    store.appendEvents('job-crash', batch),
    store.putObject({ message: seq, text: 'y'.repeat(20_000) }),
  ]);
  if (!announced) {
    announced = true;
    console.log('writing');
  }
}
