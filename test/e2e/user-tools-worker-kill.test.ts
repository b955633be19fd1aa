/**
 * A job whose one turn calls a Pi tool and a `defineTool` tool, both from a module given to
 * `dar worker --tools`, and tools of two MCP servers (the "everything" server published on npm,
 * run over stdio twice: once with its long operation declared `replaySafe`, once without)
 * survives a SIGKILL of that worker in the middle of the calls. A new worker finishes the job:
 * the replay-safe tools are run again and answer; the unsafe ones (every user and MCP tool unless
 * it says otherwise) are not run again and read as interrupted; the MCP call that had finished
 * keeps its result. Every call gets exactly one result (R4, R24).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ToolResultMessage } from '../../src/core/index.js';
import { FileJobStore } from '../../src/store/file/file-job-store.js';
import { INTERRUPTED_TOOL_CALL } from '../../src/workflows/tool-failure-message.js';
import { dar, describeResult, killLeftoverDars, linesOf, startDar } from './support/dar.js';
import { finalTurn, makeTempDir, removeDir, writeScript } from './support/files.js';
import { waitForCompletedJob } from './support/jobs.js';
import {
  connectToEmbeddedServer,
  jobResult,
  readServerJson,
  stopServer,
} from './support/temporal.js';
import { waitFor } from './support/wait.js';

const root = makeTempDir('user-tools-kill');
const stateDir = join(root, 'state');
const workspace = join(root, 'workspace');
const toolModule = new URL('./support/held-tools.mjs', import.meta.url).pathname;
const everythingServer = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
const mcpConfig = join(root, 'mcp.json');
writeFileSync(
  mcpConfig,
  JSON.stringify({
    servers: {
      everything: {
        command: process.execPath,
        args: [everythingServer, 'stdio'],
        replaySafe: ['trigger-long-running-operation'],
      },
      slow: { command: process.execPath, args: [everythingServer, 'stdio'] },
    },
  }),
);
const options = {
  stateDir,
  env: { DAR_TASK_QUEUE: `user-tools-kill-${process.pid}`, DAR_MCP_CONFIG: mcpConfig },
};
/** Long enough to be under way when the worker dies, whatever the machine's load. */
const longOperation = { duration: 12, steps: 12 };

function startedCalls(): string[] {
  try {
    return linesOf(readFileSync(join(workspace, 'calls.log'), 'utf8'));
  } catch {
    return [];
  }
}

afterAll(async () => {
  await killLeftoverDars();
  await stopServer(stateDir);
  expect(readServerJson(stateDir)).toBeUndefined();
  removeDir(root);
});

test('R4, R24: a turn of Pi, user and MCP tools survives a worker SIGKILL; each call gets exactly one result', async () => {
  mkdirSync(workspace);
  const script = writeScript(root, 'script.json', [
    {
      content: [
        { type: 'toolCall', id: 'pi-1', name: 'hold_pi', arguments: { workspace } },
        { type: 'toolCall', id: 'safe-1', name: 'hold_safe', arguments: {} },
        {
          type: 'toolCall',
          id: 'mcp-safe-1',
          name: 'everything__trigger-long-running-operation',
          arguments: longOperation,
        },
        {
          type: 'toolCall',
          id: 'mcp-unsafe-1',
          name: 'slow__trigger-long-running-operation',
          arguments: longOperation,
        },
        {
          type: 'toolCall',
          id: 'mcp-echo-1',
          name: 'everything__echo',
          arguments: { message: 'hi' },
        },
      ],
      stopReason: 'toolUse',
    },
    finalTurn('Done after the crash.'),
  ]);
  const started = await dar(
    [
      'run',
      'hold on',
      '--detach',
      '--model',
      `scripted:${script}`,
      '--workspace',
      workspace,
      '--tools',
      [
        'read',
        toolModule,
        'everything__trigger-long-running-operation',
        'slow__trigger-long-running-operation',
        'everything__echo',
      ].join(','),
    ],
    { ...options, timeoutMs: 120_000 },
  );
  if (started.code !== 0) throw new Error(`dar run failed: ${describeResult(started)}`);
  const jobId = linesOf(started.stdout)[0] ?? '';

  const doomed = startDar(['worker', '--tools', toolModule], { ...options, timeoutMs: 170_000 });
  await waitFor(
    'both tools started',
    () => {
      if (!doomed.isRunning) throw new Error(`The worker exited:\n${doomed.stderr}`);
      return startedCalls().length === 2;
    },
    { timeoutMs: 120_000 },
  );
  // The quick MCP call has finished (its end is stored) before the worker dies.
  const store = await FileJobStore.open({ folder: join(stateDir, 'store') });
  try {
    await waitFor(
      'the echo call to end',
      async () =>
        (await store.readEvents(jobId)).some(
          ({ event }) =>
            (event as { type?: string; toolCallId?: string }).type === 'tool_execution_end' &&
            (event as { toolCallId?: string }).toolCallId === 'mcp-echo-1',
        ),
      { timeoutMs: 60_000 },
    );
  } finally {
    await store.close();
  }
  doomed.signal('SIGKILL');
  await doomed.done;
  writeFileSync(join(workspace, 'release'), '');

  // The lost calls are noticed by their heartbeat timeouts (3 s for hold_safe, the default 30 s
  // for the Pi tool, which declares none).
  const resumed = startDar(['worker', '--tools', toolModule], { ...options, timeoutMs: 170_000 });
  await waitForCompletedJob(jobId, options, 150_000);
  resumed.signal('SIGTERM');
  await resumed.done;

  const { client, close } = await connectToEmbeddedServer(stateDir);
  let results: ToolResultMessage[];
  try {
    const result = await jobResult(client, stateDir, jobId);
    results = result.messages.filter(
      (message): message is ToolResultMessage => message.role === 'toolResult',
    );
  } finally {
    await close();
  }
  const text = (message: ToolResultMessage | undefined) =>
    (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
  expect(results.map((message) => message.toolCallId)).toEqual([
    'pi-1',
    'safe-1',
    'mcp-safe-1',
    'mcp-unsafe-1',
    'mcp-echo-1',
  ]);
  const [pi, safe, mcpSafe, mcpUnsafe, echo] = results;
  expect(pi?.isError).toBe(true);
  expect(text(pi).startsWith(INTERRUPTED_TOOL_CALL)).toBe(true);
  expect(safe?.isError).toBe(false);
  expect(text(safe)).toBe('released (safe)');
  // The declared-safe MCP call ran again on the new worker's connection and finished.
  expect({ isError: mcpSafe?.isError, text: text(mcpSafe) }).toEqual({
    isError: false,
    text: expect.stringContaining('Long running operation completed') as string,
  });
  // The same call on the server without replaySafe was under way: it is not sent again.
  expect(mcpUnsafe?.isError).toBe(true);
  expect(text(mcpUnsafe).startsWith(INTERRUPTED_TOOL_CALL)).toBe(true);
  expect({ isError: echo?.isError, text: text(echo) }).toEqual({
    isError: false,
    text: 'Echo: hi',
  });
  // The Pi tool ran once; the replay-safe one ran again on the new worker.
  expect(startedCalls().sort()).toEqual(['start pi-1', 'start safe-1', 'start safe-1']);
}, 400_000);
