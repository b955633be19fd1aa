import { jest } from '@jest/globals';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// No CLI installed anywhere, and the SDK's download is simulated: this runs without internet
// and never downloads for real.
const createLocal = jest.fn<(options: unknown) => Promise<{ teardown: () => Promise<void> }>>();
jest.unstable_mockModule('../../../src/server/temporal-binary.js', () => ({
  findTemporalBinary: () => undefined,
}));
jest.unstable_mockModule('@temporalio/testing', () => ({
  TestWorkflowEnvironment: { createLocal },
}));
const { obtainTemporalBinary } = await import('../../../src/server/temporal-download.js');

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dar-download-'));
  createLocal.mockReset();
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function writeExecutable(path: string): void {
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
}

test('a failed download says how to install the CLI', async () => {
  createLocal.mockRejectedValue(new Error('dns error: failed to lookup address information'));
  const attempt = obtainTemporalBinary(join(folder, 'bin'));
  await expect(attempt).rejects.toThrow(/dns error/);
  await expect(attempt).rejects.toThrow(/npm run temporal:install.*TEMPORAL_CLI_PATH/);
});

test('uses the executable the SDK left in the download folder', async () => {
  const downloadDir = join(folder, 'bin');
  const teardown = jest.fn(async () => {});
  createLocal.mockImplementation(async () => {
    writeExecutable(join(downloadDir, 'temporal-cli-sdk-typescript-1.24.0'));
    return { teardown };
  });
  const progress: string[] = [];
  const binary = await obtainTemporalBinary(downloadDir, {
    onProgress: (line) => progress.push(line),
  });
  expect(binary).toBe(join(downloadDir, 'temporal-cli-sdk-typescript-1.24.0'));
  expect(createLocal).toHaveBeenCalledWith({
    server: { executable: { type: 'cached-download', downloadDir } },
  });
  expect(teardown).toHaveBeenCalled();
  expect(progress).toHaveLength(1);
});

test('an earlier download is reused without downloading again', async () => {
  const downloadDir = join(folder, 'bin');
  mkdirSync(join(downloadDir, 'temporal-partial'), { recursive: true });
  writeExecutable(join(downloadDir, 'temporal-cli-sdk-typescript-1.24.0'));
  expect(await obtainTemporalBinary(downloadDir)).toBe(
    join(downloadDir, 'temporal-cli-sdk-typescript-1.24.0'),
  );
  expect(createLocal).not.toHaveBeenCalled();
});

test('a download that leaves nothing usable is an error too', async () => {
  createLocal.mockResolvedValue({ teardown: async () => {} });
  await expect(obtainTemporalBinary(join(folder, 'bin'))).rejects.toThrow(
    /left no executable there.*npm run temporal:install/,
  );
});

test('a download that stops making progress gives up at its limit, saying how to install the CLI', async () => {
  createLocal.mockReturnValue(new Promise(() => undefined));
  const attempt = obtainTemporalBinary(join(folder, 'bin'), { downloadLimitMs: 300 });
  await expect(attempt).rejects.toThrow(/the download did not finish in 300 ms/);
  await expect(attempt).rejects.toThrow(/npm run temporal:install.*TEMPORAL_CLI_PATH/);
});
