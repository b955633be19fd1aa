/**
 * `dar prune` as a user runs it on the embedded server: a dry run by default that names what
 * would go, `--apply` to delete, clear errors for missing or bad flags, and what `dar events` and
 * `dar status` then say of a pruned job. Last, `dar prune --apply` SIGKILLed at its worst
 * moments: nothing it must keep is lost, a reader still finds an object it held aside, and the
 * next prune finishes the work.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { JOB_STATUS_RECORD } from '../../src/activities/job-status-record.js';
import { FileJobStore } from '../../src/store/file/file-job-store.js';
import type { ObjectRef } from '../../src/store/references.js';
import {
  PAUSE_PRUNE_AFTER_JOB_STREAMS,
  PAUSE_PRUNE_OBJECT_ASIDE,
} from '../../src/tools/test-pause.js';
import { dar, killLeftoverDars, linesOf, startDar } from './support/dar.js';
import { expectExit } from './support/expect-exit.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { connectToEmbeddedServer, readServerJson, stopServer } from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('prune');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const objectsFolder = join(stateDir, 'store', 'objects');
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

test('dar prune refuses a missing or malformed duration and a grace shorter than 20 minutes, zero included', async () => {
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
  const none = await dar(
    ['prune', '--older-than', '0d', '--grace', '0s', '--state-dir', stateDir],
    {
      env: environment,
    },
  );
  expectExit(none, 2);
  expect(none.stderr).toContain('--grace must be at least 20m, not 0s');
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
  // Zero is a duration: every job that has ended.
  const everyEnded = await dar(['prune', '--older-than', '0d', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(everyEnded, 0);
  expect(everyEnded.stdout).toContain('Would delete 1 jobs that have ended (events,');
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

  // --follow says the same, not that the job ended without an agent_end.
  const followed = await dar(['events', jobId, '--follow', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(followed, 1);
  expect(linesOf(followed.stdout)).toEqual([]);
  expect(linesOf(followed.stderr)).toEqual([
    `Job ${jobId} has ended, and the job store holds nothing of it: its data was deleted (\`dar prune\`), or its workers used another store (DAR_STORE_URL).`,
  ]);

  const status = await dar(['status', jobId, '--state-dir', stateDir], { env: environment });
  expectExit(status, 1);
  expect(linesOf(status.stdout)).toEqual([
    `job:        ${jobId}`,
    'workflow:   COMPLETED',
    'outcome:    completed',
  ]);
  expect(status.stderr).toContain(`Job ${jobId} has ended, and the job store holds nothing of it`);
}, 180_000);

test('a job no worker runs holds the object cutoff back and dar prune names it; terminated before any worker ran it, it is not taken for a pruned one', async () => {
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
  // Running, and no worker answers for it: it holds the object cutoff back, and prune says so.
  const held = await dar(['prune', '--older-than', '30d', '--state-dir', stateDir], {
    env: environment,
  });
  expectExit(held, 0);
  expect(held.stdout).toContain(
    `Objects put since running workflow ${jobId ?? ''} started (less the grace) are kept while ` +
      'it runs; a job stops holding them back once it waits for a message or an approval.',
  );
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

/** The stored objects, in place and held aside, by file name. */
function objectFiles(): { inPlace: string[]; aside: string[] } {
  const inPlace = readdirSync(objectsFolder)
    .filter((name) => /^[0-9a-f]{2}$/.test(name))
    .flatMap((folder) => readdirSync(join(objectsFolder, folder)))
    .filter((name) => name.endsWith('.json'));
  const removing = join(objectsFolder, 'removing');
  const aside = existsSync(removing) ? readdirSync(removing) : [];
  return { inPlace: inPlace.sort(), aside };
}

/** Runs `dar prune --apply` held at `pause`, and SIGKILLs it there. */
async function pruneKilledAt(pause: string): Promise<void> {
  const marker = join(root, `held-${pause}`);
  const prune = startDar(['prune', '--older-than', '1s', '--apply', '--state-dir', stateDir], {
    env: { ...environment, [pause]: marker },
  });
  await waitFor(`dar prune held at ${pause}`, () => {
    if (!prune.isRunning) throw new Error(`dar prune ended:\n${prune.stderr}`);
    return existsSync(marker) && readFileSync(marker, 'utf8').length > 0;
  });
  prune.signal('SIGKILL');
  await prune.done;
}

test('a prune killed after deleting a job streams, then one killed with an object held aside: readers lose nothing they could read, and the next prune finishes', async () => {
  const script = writeScript(root, 'crash.json', [finalTurn('All done.')]);
  const jobId = `prune-crash-${process.pid}`;
  const run = await dar(
    ['run', 'say done', '--model', `scripted:${script}`, '--workspace', workspace, '--id', jobId],
    { env: environment, stateDir, timeoutMs: 120_000 },
  );
  expectExit(run, 0);
  // The store's objects, as a store used for weeks holds them: older than any grace (the
  // earlier tests' jobs are deleted, so none of them is kept).
  const twoDaysAgo = (Date.now() - 2 * 86_400_000) / 1000;
  const stored = objectFiles().inPlace;
  expect(stored.length).toBeGreaterThan(0);
  for (const name of stored) {
    utimesSync(join(objectsFolder, name.slice(0, 2), name), twoDaysAgo, twoDaysAgo);
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));

  // Killed after the job's streams went: its status record still lists it, no object went.
  await pruneKilledAt(PAUSE_PRUNE_AFTER_JOB_STREAMS);
  const store = await FileJobStore.open({ folder: join(stateDir, 'store') });
  try {
    expect(await store.readEvents(jobId)).toEqual([]);
    expect(await store.getRecord(JOB_STATUS_RECORD, jobId)).toMatchObject({ phase: 'done' });
    expect(objectFiles()).toEqual({ inPlace: stored, aside: [] });

    // Killed with an object moved aside: the job is deleted now, and the object still reads.
    await pruneKilledAt(PAUSE_PRUNE_OBJECT_ASIDE);
    expect(await store.getRecord(JOB_STATUS_RECORD, jobId)).toBeUndefined();
    const { inPlace, aside } = objectFiles();
    expect(aside).toHaveLength(1);
    expect(inPlace).toEqual(stored.filter((name) => name !== aside[0]));
    const heldRef: ObjectRef = `sha256:${(aside[0] ?? '').replace(/\.json$/, '')}`;
    await expect(store.getObject(heldRef)).resolves.toBeDefined();

    // The next prune puts the held object back, judges it again and removes every object.
    const finished = await dar(
      ['prune', '--older-than', '1s', '--apply', '--json', '--state-dir', stateDir],
      { env: environment },
    );
    expectExit(finished, 0);
    const report = JSON.parse(linesOf(finished.stdout).at(-1) ?? '{}') as {
      deletedJobs: string[];
      removedObjects: { count: number };
    };
    expect(report.deletedJobs).toEqual([]);
    expect(report.removedObjects.count).toBe(stored.length);
    expect(objectFiles()).toEqual({ inPlace: [], aside: [] });
  } finally {
    await store.close();
  }
}, 180_000);
