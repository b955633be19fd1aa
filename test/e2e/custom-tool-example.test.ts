/**
 * `examples/custom-tool` installs this package the way a user's project does (`npm pack`, then
 * `npm install` of the tarball into a copy of the example, outside this checkout), compiles its
 * TypeScript against the package's emitted types, and runs a job with its own tool on a real
 * dev server with the scripted model. Needs the build (`npm run build`), like every e2e test.
 */
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer } from '../support/temporal-server.js';
import { REPO_ROOT, darEnvironment } from './support/dar.js';
import { makeTempDir, removeDir } from './support/files.js';

const run = promisify(execFile);
const root = makeTempDir('custom-tool-example');
const project = join(root, 'project');
let environment: TestWorkflowEnvironment | undefined;

async function inProject(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(command, args, {
    cwd: project,
    env: { ...darEnvironment(), ...env },
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

beforeAll(async () => {
  environment = await startDevServer();
}, 120_000);

afterAll(async () => {
  await environment?.teardown();
  removeDir(root);
});

test('the example project installs the packed package, builds against its types and runs a job with its own tool', async () => {
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', root], {
    cwd: REPO_ROOT,
    timeout: 120_000,
  });
  const tarball = readdirSync(root).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack made no tarball');
  cpSync(join(REPO_ROOT, 'examples', 'custom-tool'), project, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|\.dar)$/.test(source),
  });
  // A word count only the tool's body can know.
  const words = 7 + Math.floor(Math.random() * 20);
  writeFileSync(
    join(project, 'workspace', 'notes.txt'),
    `${Array.from({ length: words }, (_, index) => `word${index}`).join(' ')}\n`,
  );
  await inProject('npm', [
    'install',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    join(root, tarball),
  ]);
  await inProject(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', '.']);
  const { stdout } = await inProject(process.execPath, [join('dist', 'main.js')], {
    TEMPORAL_ADDRESS: environment?.address ?? '',
    DAR_STATE_DIR: join(project, '.dar'),
    DAR_TASK_QUEUE: `custom-tool-example-${process.pid}`,
  });
  expect(stdout).toContain(`tool word_count: notes.txt has ${words} words`);
  expect(stdout).toContain('assistant: I counted the words.');
}, 600_000);
