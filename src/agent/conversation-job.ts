import { startJob, type AgentJob } from '../client/job-client.js';
import { emptyUsage, type Message, type QueueMode, type ToolExecutionMode } from '../core/index.js';
import { appendToTranscript } from '../transcript/transcript-nodes.js';
import type { AgentJobInput, CarriedState } from '../workflows/job-types.js';
import type { AgentRuntime } from './agent-runtime.js';

/** What a job of the conversation is started with; a change of any of it needs a new job. */
export interface JobSettings {
  model: string;
  systemPrompt?: string;
  tools: string[];
  workspace: string;
  toolExecution: ToolExecutionMode;
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  keepOpenMs: number;
}

/** The same settings, as one comparable text. */
export function settingsKey(settings: JobSettings): string {
  return JSON.stringify(settings);
}

/**
 * Starts a kept-open job whose first run answers `prompt` after the conversation `history`.
 * With no history it is a plain job (its input's `prompt`). With history, the messages are
 * stored as a transcript in the job store and the job starts from it the way a job continued
 * as new does: idle, with the prompt queued as a follow-up, which starts its first run at once.
 * No workflow change is needed for it, and the job's events and transcript read as any job's.
 */
export async function startConversationJob(
  runtime: AgentRuntime,
  settings: JobSettings,
  history: readonly Message[],
  prompt: Message & { role: 'user' },
  workflowId: string,
): Promise<AgentJob> {
  const input: AgentJobInput = {
    prompt: typeof prompt.content === 'string' ? prompt.content : '',
    model: settings.model,
    workspace: settings.workspace,
    tools: settings.tools,
    ...(settings.systemPrompt ? { systemPrompt: settings.systemPrompt } : {}),
    toolExecution: settings.toolExecution,
    steeringMode: settings.steeringMode,
    followUpMode: settings.followUpMode,
    keepOpenMs: settings.keepOpenMs,
  };
  if (history.length > 0) {
    // As plain JSON (a message a program built may hold `undefined` fields, which the store refuses).
    const messages = JSON.parse(JSON.stringify(history)) as Message[];
    const transcript = await appendToTranscript(runtime.store, { head: null, count: 0 }, messages);
    const carried: CarriedState = {
      transcript,
      steering: [],
      followUps: [prompt],
      pending: [],
      modelCalls: 0,
      runs: 0,
      lastSeq: 0,
      usage: emptyUsage(),
      runStart: transcript.count,
      idle: true,
    };
    input.carried = carried;
  }
  return startJob(runtime.client, input, {
    workflowId,
    taskQueue: runtime.taskQueue,
    store: runtime.store,
    ...(runtime.workflowType === undefined ? {} : { workflowType: runtime.workflowType }),
  });
}
