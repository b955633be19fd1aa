import type { AgentEvent, Message, ToolExecutionMode, Usage } from '../core/index.js';
import type { Policy } from '../policy/policy-file.js';

/** What starts an agent job. Plain JSON and free of secrets (R25): it is stored in history. */
export interface AgentJobInput {
  prompt: string;
  /** `provider:model-id`, e.g. `scripted:/abs/path/demo.json`. */
  model: string;
  /** Absolute path of the workspace the tools work in, as the worker sees it. */
  workspace: string;
  /** Names of the tools the model may call; each must have a spec in the workflow bundle. */
  tools: string[];
  systemPrompt?: string;
  toolExecution?: ToolExecutionMode;
  policy?: Policy;
  /**
   * Keep the job open this many milliseconds after a run ends normally, waiting for a
   * follow-up or steering message, which starts a new run. Unset: the job closes at agent_end.
   */
  keepOpenMs?: number;
  /** The batch this job belongs to (`dar batch`); published as the `DarBatchId` search attribute. */
  batchId?: string;
  /** Set by the job itself when it continues as new; users leave it out. */
  carried?: CarriedState;
}

/** A job's state handed from one run to the next by continue-as-new. */
export interface CarriedState {
  messages: Message[];
  events: SequencedEvent[];
  steering: Message[];
  followUps: Message[];
  /** Messages read from a queue before the pause, not yet in the transcript. */
  pending: Message[];
  modelCalls: number;
  runs: number;
  /** The job was waiting for a message (kept open) when it continued as new. */
  idle?: boolean;
}

export type SequencedEvent = AgentEvent & { seq: number };

export type JobPhase = 'starting' | 'model' | 'tools' | 'waiting' | 'done';

export interface JobStatus {
  phase: JobPhase;
  /** Turns started so far (model calls made or under way). */
  turns: number;
  modelCalls: number;
  /** Sequence number of the newest event; 0 before the first. */
  lastSeq: number;
  stopReason?: string | undefined;
  errorMessage?: string | undefined;
  cancelled: boolean;
  usage: Usage;
  /** How many times the job continued as new. */
  continuedAsNew: number;
}

export interface AgentJobResult {
  status: JobStatus;
  /** The transcript, or its newest part when the whole would not fit in one payload. */
  messages: Message[];
  /** How many of the oldest messages were left out of `messages` (the transcript query has all). */
  omittedMessages?: number;
}
