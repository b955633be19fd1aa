import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJobStore, type ObjectRef } from '../../../src/store/index.js';
import { describeJobStoreContract } from '../../support/job-store-contract.js';

const folders: string[] = [];
let current = '';

afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

function objectPath(folder: string, ref: ObjectRef): string {
  const hex = ref.slice('sha256:'.length);
  return join(folder, 'objects', hex.slice(0, 2), `${hex}.json`);
}

describe('embedded (file) job store', () => {
  describeJobStoreContract({
    async open() {
      current = await mkdtemp(join(tmpdir(), 'dar-store-'));
      folders.push(current);
      return FileJobStore.open({ folder: join(current, 'store'), followIntervalMs: 50 });
    },
    async openAnother() {
      return FileJobStore.open({ folder: join(current, 'store'), followIntervalMs: 50 });
    },
    async corruptObject(ref) {
      await writeFile(objectPath(join(current, 'store'), ref), '{"amount":1000}');
    },
  });
});
