import type { Message, Usage } from '../core/index.js';
import { emptyUsage } from '../core/index.js';
import type { JobApproval } from './approval-types.js';
import type { BudgetExceeded, JobBudget } from './job-budget.js';
import type {
  CarriedState,
  CompactedContext,
  ContextTokens,
  JobPhase,
  TranscriptPointer,
} from './job-types.js';

/**
 * Everything a job knows between turns, as one plain-JSON object. It is control state: the
 * transcript itself is in the job store (`transcript` points at it); `messages` holds this
 * run's messages in their thin form (an assistant message keeps its tool calls and a reference
 * to the stored whole; a tool result keeps a reference to its stored content).
 */
export interface JobState {
  /** This workflow run's messages (since the last continue-as-new), thin. */
  messages: Message[];
  /** Transcript position of `messages[0]`. */
  base: number;
  /** The part of the transcript already in the store. */
  transcript: TranscriptPointer;
  /** Steering messages queued by signals, not yet injected (R20). */
  steering: Message[];
  /** Follow-up messages queued by signals, not yet injected (R20). */
  followUps: Message[];
  phase: JobPhase;
  /** Model calls made or under way, across continue-as-new. */
  modelCalls: number;
  /** How many times the job continued as new before this run. */
  runs: number;
  /** Tokens and cost so far, across continue-as-new. */
  usage: Usage;
  /** Sequence number of the last event numbered. */
  lastSeq: number;
  /** Transcript position where the current run (agent_start .. agent_end) began. */
  runStart: number;
  /** Workflow time (ms since the epoch) when the job's first run started. */
  startedAt: number;
  /** The job's budget (from its input), if any. */
  budget?: JobBudget;
  /** Set when the job's budget (or its batch's) stopped it. */
  budgetExceeded?: BudgetExceeded;
  /** Set when the job's batch spent its budget: the job stops at its next turn boundary. */
  batchStop?: BudgetExceeded;
  /** The model's context, once compacted; unset, the model gets the whole transcript. */
  modelContext?: CompactedContext;
  /** The size of the model's context, for deciding when to compact. */
  contextTokens: ContextTokens;
  /** The model's context window as the model activity reported it. */
  contextWindow?: number;
  /** Model calls made to summarise the context (each takes a call index after the turns'). */
  compactionCalls: number;
  /** Compactions done (summary calls that gave a summary). */
  compactions: number;
  /**
   * Estimated tokens of stored tool results not counted yet (0: no estimate), by content
   * reference: until a batch's result messages are appended, the state's only mention of them.
   */
  storedResultTokens: Record<string, number>;
  /** Calls waiting for a human decision, and the last few decided (R22). */
  approvals: JobApproval[];
  /**
   * The stored model setup (system prompt and tools) this run's calls send by reference: held
   * here so that the job names it to a pruner (`heldObjectsOf`), which must keep it.
   */
  setupRef?: string;
}

/**
 * The state a run starts from: the carried state after continue-as-new, else an empty one.
 * `runStartedAt` is this run's start, used as the job's when nothing was carried.
 */
export function initialJobState(carried: CarriedState | undefined, runStartedAt: number): JobState {
  const transcript = carried?.transcript ?? { head: null, count: 0 };
  return {
    messages: [],
    base: transcript.count,
    transcript,
    steering: carried?.steering ?? [],
    followUps: carried?.followUps ?? [],
    phase: 'starting',
    modelCalls: carried?.modelCalls ?? 0,
    runs: carried?.runs ?? 0,
    usage: carried?.usage ?? emptyUsage(),
    lastSeq: carried?.lastSeq ?? 0,
    runStart: carried?.runStart ?? 0,
    startedAt: carried?.startedAt ?? runStartedAt,
    ...(carried?.batchStop ? { batchStop: carried.batchStop } : {}),
    contextTokens: carried?.contextTokens ?? { tokens: 0, countedTo: transcript.count },
    compactionCalls: carried?.compactionCalls ?? 0,
    compactions: carried?.compactions ?? 0,
    storedResultTokens: {},
    approvals: carried?.approvals ?? [],
    ...(carried?.modelContext ? { modelContext: carried.modelContext } : {}),
    ...(carried?.contextWindow === undefined ? {} : { contextWindow: carried.contextWindow }),
  };
}

/** How many messages the transcript has, stored or not. */
export function transcriptLength(state: JobState): number {
  return state.base + state.messages.length;
}

/** The messages not yet in the store, in order. */
export function unstoredMessages(state: JobState): Message[] {
  return state.messages.slice(state.transcript.count - state.base);
}

/**
 * Takes a newer stored transcript. Several writers (the model activity, the progress recorder)
 * store it; any pointer covering more messages is a valid one for the same transcript.
 */
export function advanceTranscript(state: JobState, pointer: TranscriptPointer): void {
  if (pointer.count > state.transcript.count) state.transcript = pointer;
}

/** Model calls of the job so far, turns and summaries: the next call's index. */
export function modelCallsMade(state: JobState): number {
  return state.modelCalls + state.compactionCalls;
}
