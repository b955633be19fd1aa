import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AgentWorker } from '../../../src/worker/agent-worker-group.js';
import type { AgentJob } from '../../../src/client/job-client.js';
import type { AssistantMessage, Message, ToolResultMessage } from '../../../src/core/index.js';
import type { ProviderFactory } from '../../../src/providers/registry.js';
import type { JobStore } from '../../../src/store/job-store.js';
import type { AgentJobInput, AgentJobResult } from '../../../src/workflows/job-types.js';
import {
  createTestWorker,
  folderText,
  jobInput,
  openTestStore,
  startTestJob,
  temporaryFolder,
  uniqueName,
} from '../../support/agent-harness.js';
import { startDevServer } from '../../support/temporal-server.js';
import { FakeModelServer } from './fake-model-server.js';

/**
 * What every provider test file needs: a real Temporal dev server, a worker of the test
 * workflows (in this process, so the `callModel` activity reads this process's environment),
 * and a fake model API. Environment variables set through {@link ProviderRig.setEnv} are put
 * back when the rig stops.
 */
export class ProviderRig {
  private readonly savedEnv = new Map<string, string | undefined>();
  private workerRun: Promise<void> | undefined;

  private constructor(
    readonly environment: TestWorkflowEnvironment,
    readonly worker: AgentWorker,
    readonly fake: FakeModelServer,
    readonly taskQueue: string,
    readonly store: JobStore,
    readonly storeFolder: string,
  ) {}

  /** Everything the job store holds, as text. */
  storeText(): string {
    return folderText(this.storeFolder);
  }

  /** `providers`: model providers of the test's own, beside the built-in ones. */
  static async start(
    name: string,
    providers?: Readonly<Record<string, ProviderFactory>>,
  ): Promise<ProviderRig> {
    const environment = await startDevServer();
    const taskQueue = uniqueName(name);
    const storeFolder = temporaryFolder('dar-store-');
    const store = await openTestStore(storeFolder);
    const worker = await createTestWorker(environment, taskQueue, store, {}, providers);
    const fake = await FakeModelServer.start();
    const rig = new ProviderRig(environment, worker, fake, taskQueue, store, storeFolder);
    rig.workerRun = worker.run();
    return rig;
  }

  setEnv(values: Record<string, string | undefined>): void {
    for (const [key, value] of Object.entries(values)) {
      if (!this.savedEnv.has(key)) this.savedEnv.set(key, process.env[key]);
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }

  /** Starts a job with `model` in a fresh workspace folder (`input`: more of the job's input). */
  async startJob(
    model: string,
    prompt = 'do the task',
    input: Partial<AgentJobInput> = {},
  ): Promise<{ job: AgentJob; folder: string }> {
    const folder = temporaryFolder('dar-provider-');
    const job = await startTestJob(
      { environment: this.environment, taskQueue: this.taskQueue, store: this.store },
      jobInput({ ...input, model, workspace: folder, prompt }),
    );
    return { job, folder };
  }

  async stop(): Promise<void> {
    this.worker.shutdown();
    await this.workerRun;
    await this.fake.close();
    await this.environment.teardown();
    await this.store.close();
    for (const [key, value] of this.savedEnv) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

export async function resultOf(job: AgentJob): Promise<AgentJobResult & { messages: Message[] }> {
  return job.result();
}

export function assistantMessages(messages: Message[]): AssistantMessage[] {
  return messages.filter((message): message is AssistantMessage => message.role === 'assistant');
}

export function toolResults(messages: Message[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

export function textOfResult(result: ToolResultMessage | undefined): string {
  return (result?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

export function randomKey(): string {
  return `sk-test-${crypto.randomUUID().replaceAll('-', '')}`;
}

/**
 * The workflow's full history as one searchable text: the JSON of every event, with every
 * binary payload decoded as UTF-8 and every base64-looking string decoded too.
 */
export async function historyText(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  const decoded: string[] = [];
  const json = JSON.stringify(history, (_key, value: unknown) => {
    if (ArrayBuffer.isView(value)) {
      const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      decoded.push(bytes.toString('utf8'));
      return bytes.toString('base64');
    }
    if (typeof value === 'string' && value.length >= 8 && /^[A-Za-z0-9+/]+=*$/.test(value)) {
      decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    }
    return value;
  });
  return [json, ...decoded].join('\n');
}
