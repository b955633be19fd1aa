import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, Connection } from '@temporalio/client';
import { connectClient } from '../../../src/server/connect.js';
import { AGENT_WORKFLOW_TYPE } from '../../../src/client/job-client.js';

/** The repository root and the real `dar` command (built into dist/ by `npm test`). */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DAR = join(REPO_ROOT, 'bin', 'dar.js');

export function temporaryFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** This process's environment without anything pointing `dar` at another Temporal or folder. */
function darEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('TEMPORAL_') && key !== 'TEMPORAL_CLI_PATH') continue;
    if (key.startsWith('DAR_')) continue;
    env[key] = value;
  }
  return env;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A `node bin/dar.js ...` child with its output collected as it comes. */
export class DarChild {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly done: Promise<Finished>;

  constructor(args: string[], timeoutMs = 90_000) {
    this.child = spawn(process.execPath, [DAR, ...args], {
      cwd: REPO_ROOT,
      env: darEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(this);
    this.child.stdout?.setEncoding('utf8').on('data', (text: string) => (this.stdout += text));
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => (this.stderr += text));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    this.done = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        clearTimeout(timer);
        running.delete(this);
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }
}

const running = new Set<DarChild>();

export function dar(args: string[], timeoutMs?: number): Promise<Finished> {
  return new DarChild(args, timeoutMs).done;
}

/** SIGKILLs the `dar` children of this test file that still run. */
export async function killLeftovers(): Promise<void> {
  const leftovers = [...running];
  for (const child of leftovers) child.child.kill('SIGKILL');
  await Promise.all(leftovers.map((child) => child.done));
}

/** Stops the embedded server a test's `dar` commands started in `stateDir`. */
export function stopServer(stateDir: string): void {
  spawnSync(process.execPath, [DAR, 'server', 'stop', '--state-dir', stateDir], {
    cwd: REPO_ROOT,
    env: darEnvironment(),
    stdio: 'ignore',
  });
}

export async function waitFor<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A client of the embedded server of `stateDir` (started by the `dar` commands). */
export async function embeddedClient(
  stateDir: string,
): Promise<{ client: Client; connection: Connection }> {
  const { client, connection } = await connectClient({ kind: 'embedded', stateDir });
  return { client, connection };
}

/** Every workflow of a batch, through the list filter on `DarBatchId`. */
export async function batchWorkflows(
  client: Client,
  batchId: string,
): Promise<{ workflowId: string; status: string; runId: string }[]> {
  const rows = [];
  const query = `WorkflowType = '${AGENT_WORKFLOW_TYPE}' AND DarBatchId = '${batchId}'`;
  for await (const execution of client.workflow.list({ query })) {
    rows.push({
      workflowId: execution.workflowId,
      status: execution.status.name,
      runId: execution.runId,
    });
  }
  return rows;
}

export interface ScriptedTask {
  id: string;
  /** Model calls in its script. */
  modelCalls: number;
}

/**
 * A batch file of `count` tasks, each with a script of its own: a bash call that appends the
 * task id to `marks/<id>` (so a rerun tool body would show), then a final answer. Each model
 * answer takes `delayMs`.
 */
export function writeScriptedBatch(
  folder: string,
  count: number,
  delayMs: number,
): { file: string; marks: string; tasks: ScriptedTask[] } {
  const marks = join(folder, 'marks');
  const scripts = join(folder, 'scripts');
  mkdirSync(marks, { recursive: true });
  mkdirSync(scripts, { recursive: true });
  const tasks: ScriptedTask[] = [];
  const lines: string[] = [];
  for (let index = 1; index <= count; index += 1) {
    const id = `task-${index}`;
    const script = [
      {
        content: [
          {
            type: 'toolCall',
            id: `${id}-bash`,
            name: 'bash',
            arguments: { command: `echo ${id} >> marks/${id}` },
          },
        ],
        stopReason: 'toolUse',
        delayMs,
      },
      { content: [{ type: 'text', text: `${id} done` }], stopReason: 'stop', delayMs },
    ];
    writeFileSync(join(scripts, `${id}.json`), JSON.stringify(script));
    lines.push(
      JSON.stringify({
        id,
        prompt: `Do task ${index}`,
        model: `scripted:scripts/${id}.json`,
        tools: ['bash'],
      }),
    );
    tasks.push({ id, modelCalls: script.length });
  }
  const file = join(folder, 'tasks.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, marks, tasks };
}

/** The results file's lines, parsed. */
export function readResults(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
