import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bashTool } from '../../../src/tools/bash.js';
import { isProcessGroupAlive } from '../../../src/tools/process-group.js';
import {
  createTemporaryFolders,
  createToolContext,
  textOf,
  type TemporaryFolders,
} from './tool-test-context.js';

let folders: TemporaryFolders;
/** Process groups a test started; any still alive at the end are killed, not left behind. */
const startedGroups: number[] = [];

beforeEach(async () => {
  folders = await createTemporaryFolders();
});
afterEach(async () => {
  for (const group of startedGroups.splice(0)) {
    if (isProcessGroupAlive(group)) process.kill(-group, 'SIGKILL');
  }
  await folders.remove();
});

async function sleep(milliseconds: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Waits until the command wrote its process group id (`$$` of a group leader) to `file`. */
async function groupIdWrittenTo(file: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const text = await readFile(join(folders.workspace, file), 'utf8').catch(() => '');
    if (text.endsWith('\n')) {
      const group = Number(text.trim());
      startedGroups.push(group);
      return group;
    }
    await sleep(50);
  }
  throw new Error(`The command never wrote ${file}`);
}

/** True once no process of the group exists (kill(-group, 0) fails with ESRCH). */
async function groupEnds(group: number, withinMilliseconds: number): Promise<boolean> {
  const deadline = Date.now() + withinMilliseconds;
  while (Date.now() < deadline) {
    if (!isProcessGroupAlive(group)) return true;
    await sleep(50);
  }
  return !isProcessGroupAlive(group);
}

/** A command that leads its group and keeps a background and a foreground child busy. */
const busyGroup = 'echo $$ > group-id; sleep 30 & sleep 30; wait';

describe('bash', () => {
  it('returns stdout and stderr together, run in the workspace', async () => {
    const result = await bashTool.execute(
      { command: 'echo out; echo err >&2; pwd' },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe(`out\nerr\n${folders.workspace}\n`);
    expect(result.details).toEqual({ exitCode: 0, outputTruncated: false });
  });

  it('says so when there is no output', async () => {
    const result = await bashTool.execute(
      { command: 'true' },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe('(no output)');
  });

  it('R16: a non-zero exit is a thrown error with the code and the output', async () => {
    await expect(
      bashTool.execute(
        { command: 'echo before failing; exit 3' },
        createToolContext(folders.workspace),
      ),
    ).rejects.toThrow('Command exited with code 3\n\nbefore failing\n');
  });

  it('keeps the last 50000 characters of a long output and says it was cut', async () => {
    const result = await bashTool.execute(
      { command: "head -c 60000 /dev/zero | tr '\\0' a; echo END" },
      createToolContext(folders.workspace),
    );
    const text = textOf(result);
    expect(text.startsWith('[Output cut: showing the last 50000 of 60004 characters]\n')).toBe(
      true,
    );
    expect(text.endsWith('aaaaEND\n')).toBe(true);
    expect(result.details).toEqual({ exitCode: 0, outputTruncated: true });
  });

  it('heartbeats while the command runs', async () => {
    const context = createToolContext(folders.workspace);
    await bashTool.execute({ command: 'sleep 1.3' }, context);
    expect(context.heartbeats).toBeGreaterThanOrEqual(1);
  });

  it('returns once the shell exits, even when a background job keeps the output open', async () => {
    const started = Date.now();
    const result = await bashTool.execute(
      { command: 'echo $$ > group-id; sleep 30 & echo done' },
      createToolContext(folders.workspace),
    );
    expect(textOf(result)).toBe('done\n');
    expect(Date.now() - started).toBeLessThan(5000);
    await groupIdWrittenTo('group-id'); // registers the leftover group for cleanup
  });

  it('R16: a timeout kills the whole process group and is a thrown error', async () => {
    const run = bashTool.execute(
      { command: `echo started; ${busyGroup}`, timeout: 0.5 },
      createToolContext(folders.workspace),
    );
    await expect(run).rejects.toThrow('Command timed out after 0.5 s\n\nstarted\n');
    const group = await groupIdWrittenTo('group-id');
    expect(await groupEnds(group, 5000)).toBe(true);
  });

  it('R21: abort kills the whole process group and throws Operation aborted', async () => {
    const controller = new AbortController();
    const run = bashTool.execute(
      { command: busyGroup },
      createToolContext(folders.workspace, controller.signal),
    );
    const settled = run.catch((error: unknown) => error);
    const group = await groupIdWrittenTo('group-id');
    expect(isProcessGroupAlive(group)).toBe(true);

    controller.abort();

    const error = await settled;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('Operation aborted');
    expect(await groupEnds(group, 5000)).toBe(true);
  });

  it('R21: escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const controller = new AbortController();
    const run = bashTool.execute(
      { command: `trap '' TERM; ${busyGroup}` },
      createToolContext(folders.workspace, controller.signal),
    );
    const settled = run.catch((error: unknown) => error);
    const group = await groupIdWrittenTo('group-id');

    controller.abort();

    expect(((await settled) as Error).message).toBe('Operation aborted');
    expect(await groupEnds(group, 5000)).toBe(true);
  });

  it('runs a command that begins with a dash as a command, not as a bash option', async () => {
    await expect(
      bashTool.execute({ command: '-x' }, createToolContext(folders.workspace)),
    ).rejects.toThrow('Command exited with code 127');
  });

  it('R21: an already aborted call does not start the command', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      bashTool.execute(
        { command: 'touch started' },
        createToolContext(folders.workspace, controller.signal),
      ),
    ).rejects.toThrow('Operation aborted');
    await expect(readFile(join(folders.workspace, 'started'))).rejects.toThrow('ENOENT');
  });
});
