/**
 * `dar prune` as a user runs it on the embedded server: a dry run by default that names what
 * would go, `--apply` to delete, clear errors for missing or bad flags, and what `dar events` and
 * `dar status` then say of a pruned job.
 */
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dar, killLeftoverDars, linesOf } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { connectToEmbeddedServer, readServerJson, stopServer } from './support/temporal.js';

const root = makeTempDir('prune');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const environment = { DAR_TASK_QUEUE: `prune-${process.pid}` };

beforeAll(() => {
  mkdirSync(workspace);
});

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('dar prune refuses a missing or malformed duration and a grace shorter than 20 minutes', async () => {
  const missing = await dar(['prune', '--state-dir', stateDir], { env: environment });
  expectExit(missing, 2);
  expect(missing.stderr).toContain('--older-than is required');
  const malformed = await dar(['prune', '--older-than', 'a month', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(malformed, 2);
  expect(malformed.stderr).toContain('--older-than must be a duration such as 30d');
  const short = await dar(
    ['prune', '--older-than', '30d', '--grace', '5m', '--state-dir', stateDir],
    {
      env: environment,
    },
  );
  expectExit(short, 2);
  expect(short.stderr).toContain('--grace must be at least 20m');
});

test('dar prune reports what would go, deletes it with --apply, and `dar events` and `dar status` then say the data of the pruned job was deleted', async () => {
  const script = writeScript(root, 'short.json', [finalTurn('All done.')]);
  const run = await dar(
    [
      'run',
      'say done',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    { env: environment, timeoutMs: 120_000 },
  );
  expectExit(run, 0);
  const listed = await dar(['list', '--json', '--state-dir', stateDir], { env: environment });
  const jobId = (JSON.parse(linesOf(listed.stdout)[0] ?? '{}') as { id?: string }).id ?? '';
  expect(jobId).not.toBe('');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  // What a worker killed in the middle of storing an object leaves: its temporary file.
  const objects = join(stateDir, 'store', 'objects');
  const objectFolder = readdirSync(objects).find((name) => /^[0-9a-f]{2}$/.test(name)) ?? '';
  const leftover = join(objects, objectFolder, '.4242-0123456789ab.tmp');
  writeFileSync(leftover, 'x'.repeat(300 * 1024));
  const twoHoursAgo = (Date.now() - 2 * 3_600_000) / 1000;
  utimesSync(leftover, twoHoursAgo, twoHoursAgo);

  const dryRun = await dar(['prune', '--older-than', '1s', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(dryRun, 0);
  expect(dryRun.stdout).toContain('Dry run: nothing was deleted (add --apply to delete).');
  expect(dryRun.stdout).toContain('Would delete 1 jobs');
  expect(dryRun.stdout).toContain(
    'Would remove 1 temporary files (0.3 MB) that writers stopped mid-write left in the store.',
  );
  expect(existsSync(leftover)).toBe(true);
  const stillThere = await dar(['events', jobId, '--json', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(stillThere, 0);
  expect(linesOf(stillThere.stdout).length).toBeGreaterThan(2);

  const applied = await dar(
    ['prune', '--older-than', '1s', '--apply', '--json', '--state-dir', stateDir],
    {
      env: environment,
    },
  );
  expectExit(applied, 0);
  const report = JSON.parse(linesOf(applied.stdout).at(-1) ?? '{}') as {
    applied: boolean;
    deletedJobs: string[];
    abandonedWrites: { count: number; bytes: number };
  };
  expect(report).toMatchObject({
    applied: true,
    deletedJobs: [jobId],
    abandonedWrites: { count: 1, bytes: 300 * 1024 },
  });
  expect(existsSync(leftover)).toBe(false);

  const events = await dar(['events', jobId, '--json', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(events, 1);
  expect(linesOf(events.stdout)).toEqual([]);
  expect(events.stderr).toContain(
    `Job ${jobId} has ended, and the job store holds nothing of it: its data was deleted (\`dar prune\`)`,
  );

  const status = await dar(['status', jobId, '--state-dir', stateDir], { env: environment });
  expectExit(status, 1);
  expect(linesOf(status.stdout)).toEqual([
    `job:        ${jobId}`,
    'workflow:   COMPLETED',
    'outcome:    completed',
  ]);
  expect(status.stderr).toContain(`Job ${jobId} has ended, and the job store holds nothing of it`);
}, 180_000);

test('a job terminated before any worker ran it is not taken for a pruned one: dar status shows it as it stands', async () => {
  const script = writeScript(root, 'never.json', [finalTurn('Never said.')]);
  const start = await dar(
    [
      'run',
      'never run',
      '--detach',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--state-dir',
      stateDir,
    ],
    { env: { DAR_TASK_QUEUE: `prune-unpolled-${process.pid}` } },
  );
  expectExit(start, 0);
  const [jobId] = linesOf(start.stdout);
  const { client, close } = await connectToEmbeddedServer(stateDir);
  try {
    await client.workflow.getHandle(jobId ?? '').terminate('no worker will come');
  } finally {
    await close();
  }
  const status = await dar(['status', jobId ?? '', '--state-dir', stateDir], { env: environment });
  expectExit(status, 0);
  expect(status.stdout).toContain('workflow:   TERMINATED');
  expect(status.stdout).toContain('phase:      starting');
  expect(status.stderr).not.toContain('holds nothing of it');
}, 120_000);
