import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileJobStore,
  PostgresJobStore,
  StoreSettingsError,
  jobStoreSettingsFromEnvironment,
  openJobStore,
} from '../../../src/store/index.js';

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dar-store-open-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

test('without DAR_STORE_URL (or with it empty) the embedded store opens in the folder', async () => {
  for (const environment of [{}, { DAR_STORE_URL: '' }, { DAR_STORE_URL: '  ' }]) {
    const store = await openJobStore(
      jobStoreSettingsFromEnvironment(join(folder, 'store'), environment),
    );
    expect(store).toBeInstanceOf(FileJobStore);
    expect((store as FileJobStore).folder).toBe(join(folder, 'store'));
    await store.close();
  }
});

test('postgres:// and postgresql:// select PostgreSQL without connecting yet', async () => {
  for (const url of [
    'postgres://dar:secret@127.0.0.1:1/dar',
    'postgresql://db.internal/dar?sslmode=require',
  ]) {
    const store = await openJobStore({ url, folder });
    expect(store).toBeInstanceOf(PostgresJobStore);
    await store.close();
  }
});

test.each([
  ['another scheme', 'mysql://dar:secret@localhost/dar', 'must start with postgres://'],
  ['a path', '/var/lib/dar/store', 'is not a URL'],
  ['a bad port', 'postgres://dar:secret@localhost:notaport/dar', 'is not a URL'],
  ['no host', 'postgres:///dar', 'names no host'],
])(
  'a malformed DAR_STORE_URL (%s) is a clear error that hides the password',
  async (_case, url, message) => {
    const failure = await openJobStore({ url, folder }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreSettingsError);
    expect((failure as Error).message).toContain(message);
    expect((failure as Error).message).not.toContain('secret');
  },
);
