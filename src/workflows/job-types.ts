import type { AgentEvent, Message, QueueMode, ToolExecutionMode, Usage } from '../core/index.js';
import type { Policy } from '../policy/policy-file.js';
import type { BudgetExceeded, JobBudget } from './job-budget.js';
import type { CompactionSettings } from './compaction-settings.js';
import type { ApprovalEvent, JobApproval } from './approval-types.js';
import type { JobOutcome } from './job-outcome.js';
import type { LegacyCarriedState } from './legacy/job-types.js';

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
  /**
   * How many queued steering messages go in before each model call: `one-at-a-time` (Pi's
   * default, and this release's for new jobs) or `all`. Jobs started by an earlier release
   * keep `all`.
   */
  steeringMode?: QueueMode;
  /** How many queued follow-up messages start the next turn; as `steeringMode`. */
  followUpMode?: QueueMode;
  policy?: Policy;
  /**
   * Keep the job open this many milliseconds after a run ends normally, waiting for a
   * follow-up or steering message, which starts a new run. Unset: the job closes at agent_end.
   */
  keepOpenMs?: number;
  /**
   * Limits on the whole job (across kept-open runs and continue-as-new). A reached limit ends
   * the job at the next turn boundary, never during a tool body; the outcome is `failed` with
   * `budgetExceeded` set.
   */
  budget?: JobBudget;
  /**
   * Compaction of the model's context: near the model's context window, older turns are
   * summarised by a model call and later calls send the summary and the recent turns; the
   * transcript keeps every message. Defaults in {@link CompactionSettings}.
   */
  compaction?: CompactionSettings;
  /** The batch this job belongs to (`dar batch`); published as the `DarBatchId` search attribute. */
  batchId?: string;
  /**
   * Set by the job itself when it continues as new; users leave it out. `DurableAgent` also sets
   * it to start a job from a conversation it holds (a stored transcript, the prompt queued as a
   * follow-up, `idle`), the way a job continued as new while waiting goes on.
   */
  carried?: CarriedState | LegacyCarriedState;
}

/**
 * Where a job's transcript is in the job store: `head` is the newest transcript node (each node
 * holds some messages and a reference to the node before it), `count` the messages it covers.
 * Plain JSON, a few hundred bytes whatever the length of the job.
 */
export interface TranscriptPointer {
  head: string | null;
  count: number;
}

/**
 * The model's context after compaction: the stored summary message (a user message) stands for
 * the transcript before `keptFrom`, and the transcript from `keptFrom` on follows it.
 */
export interface CompactedContext {
  summaryRef: string;
  /** Transcript position of the first message sent as it is. */
  keptFrom: number;
}

/** What the job knows of the size of the model's context, for deciding when to compact. */
export interface ContextTokens {
  /** Tokens of the context up to transcript position `countedTo`: measured, plus estimates. */
  tokens: number;
  countedTo: number;
}

/**
 * A job's state handed from one run to the next by continue-as-new: references and counters,
 * never the transcript or the events, so it stays small whatever the length of the job.
 */
export interface CarriedState {
  transcript: TranscriptPointer;
  /**
   * The queues and `pending` hold each message itself while they are small together, and each
   * user message in its thin form (stored, by reference) past that (`carried-messages.ts`).
   */
  steering: Message[];
  followUps: Message[];
  /** Messages read from a queue before the pause, not yet in the transcript. */
  pending: Message[];
  modelCalls: number;
  runs: number;
  /** Sequence number of the last event written. */
  lastSeq: number;
  /** Tokens and cost so far. */
  usage: Usage;
  /** Transcript position where the current run (agent_start .. agent_end) began. */
  runStart: number;
  /** The job was waiting for a message (kept open) when it continued as new. */
  idle?: boolean;
  /** Workflow time (ms since the epoch) when the job's first run started; for the wall-time budget. */
  startedAt?: number;
  /** The batch's budget was spent (a stop not yet reached when the job continued as new). */
  batchStop?: BudgetExceeded;
  /** Set once the job compacted the model's context. */
  modelContext?: CompactedContext;
  contextTokens?: ContextTokens;
  /** The model's context window as the model activity reported it. */
  contextWindow?: number;
  /** Model calls made to summarise the context. */
  compactionCalls?: number;
  /** Compactions done. */
  compactions?: number;
  /**
   * The job's approvals (R22): those waiting for a decision and the last few decided (so that a
   * late second decision is told it came too late). Set only when there are some.
   */
  approvals?: JobApproval[];
}

/**
 * A job's own event beside Pi's: the model's context was compacted. The transcript keeps every
 * message; from now on the model gets the summary in place of positions `[start, end)`.
 */
// A type, not an interface: readers treat events as plain records.
export type CompactionEvent = {
  type: 'compaction';
  /**
   * Transcript positions summarised by this compaction; the summary also carries the previous
   * summary (of the positions before `start`), so it stands for everything before `end`.
   */
  summarised: { start: number; end: number };
  /** The context as estimated before (what passed the threshold) and after. */
  tokensBefore: number;
  tokensAfter: number;
  contextWindow: number;
  /** The stored summary message; readers get its text as `summary`. */
  summaryRef: string;
  summary?: string;
};

/** Every event of a job's stream. */
export type JobEvent = AgentEvent | CompactionEvent | ApprovalEvent;

export type SequencedEvent = JobEvent & { seq: number };

/** `approval`: at least one tool call waits for a human decision (R22). */
export type JobPhase = 'starting' | 'model' | 'tools' | 'approval' | 'waiting' | 'done';

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
  /** The job's budget, when it has one; with `startedAt` (ms since the epoch) for wall time. */
  budget?: JobBudget;
  startedAt?: number;
  /** Set when the budget stopped the job. */
  budgetExceeded?: BudgetExceeded;
  /**
   * Times the model's context was compacted. Every summary call, one that failed too, counts in
   * `modelCalls` and `usage`, never in `turns`.
   */
  compactions?: number;
  /** Tool calls waiting for a human decision now (R22); unset when none. */
  pendingApprovals?: number;
}

/**
 * What a job returns: small whatever its length. The transcript stays in the job store
 * (`transcript`); `AgentJob.transcript()` reads it. Jobs of the first release returned the
 * messages themselves (`messages`) and no outcome.
 */
export interface AgentJobResult {
  status: JobStatus;
  /** How the run ended; its `text` is filled in by the client from the final message. */
  outcome?: JobOutcome;
  transcript?: TranscriptPointer;
  /** The store reference of the last assistant message, when it is stored. */
  finalMessageRef?: string;
  /** A first-release job's transcript, or its newest part when the whole would not fit. */
  messages?: Message[];
  /** How many of the oldest messages a first-release result left out of `messages`. */
  omittedMessages?: number;
}
