import { resolve } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentJob } from '../client/job-client.js';
import {
  userMessage,
  type AgentEvent,
  type ImageContent,
  type Message,
  type QueueMode,
  type ToolExecutionMode,
} from '../core/index.js';
import {
  DEFAULT_ABORT_WAIT_MS,
  DEFAULT_KEEP_OPEN_MS,
  type DurableAgentOptions,
} from './agent-options.js';
import { openAgentRuntime, type AgentRuntime } from './agent-runtime.js';
import {
  createAgentState,
  modelName,
  toolNames,
  type AgentModel,
  type AgentToolReference,
  type DurableAgentState,
  type MutableDurableAgentState,
  type ThinkingLevel,
} from './agent-state.js';
import { settingsKey, startConversationJob, type JobSettings } from './conversation-job.js';
import { refusePiHooks } from './pi-only-options.js';
import { applyEvent, emptyAssistantMessage, failedRunEvents } from './event-state.js';
import { promptText } from './prompt-input.js';
import { readRun } from './run-events.js';
import { LiveMessages } from './live-messages.js';

/**
 * A subscriber, as Pi's: called with each event of a run, in order, and awaited before the next
 * one; `signal` is the run's abort signal.
 */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => Promise<void> | void;

/** A job of the conversation, kept open between runs. */
interface ConversationJob {
  job: AgentJob;
  /** The settings it was started with (see `settingsKey`). */
  key: string;
  /** Seq of the last event handed to listeners. */
  lastSeq: number;
  /** Seq of the last live event read (token deltas, tool output). */
  lastLiveSeq?: number;
  /** It has closed, or will (cancelled, or its run ended in an error): it takes no more prompts. */
  closed: boolean;
}

interface ActiveRun {
  promise: Promise<void>;
  resolve: () => void;
  abortController: AbortController;
  /** The job carrying the run, once the prompt was sent to it. */
  job?: ConversationJob;
  /** Its `agent_start` was read: messages from steer() and followUp() can go to the job now. */
  started: boolean;
}

type QueueKind = 'steer' | 'followUp';

/**
 * Pi's `Agent`, over durable jobs. Each run is a run of a kept-open job on Temporal, carried by
 * workers (one in this process by default): a crash of a worker, or of this program, loses
 * nothing of the run, and subscribers get every event of it, in Pi's order, read from the job
 * store. A prompt goes to the conversation's open job as a follow-up (its next run); when there
 * is none (the first prompt, or the job closed: aborted, failed, idle past `keepOpenMs`, or
 * started with other settings), a new job starts from the conversation so far.
 */
export class DurableAgent {
  private readonly stateValue: MutableDurableAgentState;
  private readonly listeners = new Set<AgentListener>();
  private readonly heldSteering: string[] = [];
  private readonly heldFollowUps: string[] = [];
  private activeRun: ActiveRun | undefined;
  private openJob: ConversationJob | undefined;
  /** `state.messages` was assigned: the open job's transcript is not the conversation any more. */
  private conversationReplaced = false;
  private runtime: Promise<AgentRuntime> | undefined;
  /** Signals go to a job one after the other, in the order they were given. */
  private signalChain: Promise<void> = Promise.resolve();

  /** Pi's queue modes, applied by the job (a change starts a new job at the next prompt). */
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  toolExecution: ToolExecutionMode;
  /** Absolute path of the folder the tools work in, as the workers see it. */
  workspace: string;
  keepOpenMs: number;
  private readonly abortWaitMs: number;

  /**
   * Pi's transport options (`streamFn`, `getApiKey`, `sessionId`, ...) are ignored: the worker
   * calls the model. Pi's hooks are refused (see `refusePiHooks`).
   */
  constructor(private readonly options: DurableAgentOptions = {}) {
    refusePiHooks(options);
    this.stateValue = createAgentState(options.initialState ?? {}, () => {
      this.conversationReplaced = true;
    });
    this.steeringMode = options.steeringMode ?? 'one-at-a-time';
    this.followUpMode = options.followUpMode ?? 'one-at-a-time';
    this.toolExecution = options.toolExecution ?? 'parallel';
    this.workspace = resolve(options.workspace ?? process.cwd());
    this.keepOpenMs = options.keepOpenMs ?? DEFAULT_KEEP_OPEN_MS;
    this.abortWaitMs = options.abortWaitMs ?? DEFAULT_ABORT_WAIT_MS;
    if (!Number.isFinite(this.abortWaitMs) || this.abortWaitMs < 0) {
      throw new Error(
        `abortWaitMs must be a number of milliseconds, 0 or more, not ${String(options.abortWaitMs)}`,
      );
    }
  }

  /**
   * Calls `listener` with every event of every run, in order, awaited (as Pi). `agent_end` is a
   * run's last event; the agent is idle once its listeners have settled. Returns the unsubscribe.
   */
  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The current state. Assigning `tools` or `messages` copies the array given. */
  get state(): DurableAgentState {
    return this.stateValue;
  }

  /** The abort signal of the current run, if any. */
  get signal(): AbortSignal | undefined {
    return this.activeRun?.abortController.signal;
  }

  /** The workflow id of the conversation's current job, once one started (`dar status ID` reads it). */
  get jobId(): string | undefined {
    return this.openJob?.job.workflowId;
  }

  setSystemPrompt(prompt: string): void {
    this.stateValue.systemPrompt = prompt;
  }

  setModel(model: AgentModel): void {
    this.stateValue.model = model;
  }

  setThinkingLevel(level: ThinkingLevel): void {
    this.stateValue.thinkingLevel = level;
  }

  setTools(tools: AgentToolReference[]): void {
    this.stateValue.tools = tools;
  }

  replaceMessages(messages: Message[]): void {
    this.stateValue.messages = messages;
  }

  appendMessage(message: Message): void {
    this.stateValue.messages = [...this.stateValue.messages, message];
  }

  clearMessages(): void {
    this.stateValue.messages = [];
  }

  /**
   * A message to put in before the next model call of the current run (Pi's steering). While no
   * run has started, it is held and sent when the next run starts.
   */
  steer(message: string | Message): void {
    this.enqueue('steer', promptText(message));
  }

  /** A message that starts another turn when the run would stop (Pi's follow-up); held as `steer`'s. */
  followUp(message: string | Message): void {
    this.enqueue('followUp', promptText(message));
  }

  /** Drops the held steering messages (those sent to a running job are the job's). */
  clearSteeringQueue(): void {
    this.heldSteering.length = 0;
  }

  clearFollowUpQueue(): void {
    this.heldFollowUps.length = 0;
  }

  clearAllQueues(): void {
    this.clearSteeringQueue();
    this.clearFollowUpQueue();
  }

  /** Whether messages are held for the next run. */
  hasQueuedMessages(): boolean {
    return this.heldSteering.length + this.heldFollowUps.length > 0;
  }

  /**
   * Aborts the current run: its job is cancelled (running tools are stopped) and the run ends
   * with an `aborted` assistant message and `agent_end`, as Pi's. When the job has not ended
   * after `abortWaitMs` (no worker is there to cancel it), the run ends here all the same. The
   * next prompt starts a new job from the conversation.
   */
  abort(): void {
    const run = this.activeRun;
    if (!run) return;
    run.abortController.abort();
    if (run.job) this.cancel(run.job);
  }

  /** Resolves when the current run has ended and its `agent_end` listeners have settled. */
  waitForIdle(): Promise<void> {
    return this.activeRun?.promise ?? Promise.resolve();
  }

  /** Clears the conversation, the run state and the held messages. */
  reset(): void {
    if (this.activeRun) {
      throw new Error('Agent is already processing. Wait for completion before resetting.');
    }
    this.stateValue.messages = [];
    this.stateValue.isStreaming = false;
    this.stateValue.streamingMessage = undefined;
    this.stateValue.pendingToolCalls = new Set<string>();
    this.stateValue.errorMessage = undefined;
    this.clearAllQueues();
  }

  /**
   * Runs the agent on a prompt: a text, or one user message of text. Resolves when the run has
   * ended (`agent_end` and its listeners), as Pi's.
   */
  async prompt(input: string | Message | Message[], images?: ImageContent[]): Promise<void> {
    if (this.activeRun) {
      throw new Error(
        'Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.',
      );
    }
    const text = promptText(input, images);
    await this.runWithLifecycle((run) => this.runPrompt(run, text));
  }

  /**
   * Goes on from the conversation: after an assistant message, with the first held steering (or
   * else follow-up) message; after a user message (a run that failed before the model answered),
   * with that message again, in a new job. A job's run starts from a user message, so a
   * conversation that ends with a tool result cannot be continued.
   */
  async continue(): Promise<void> {
    if (this.activeRun) {
      throw new Error('Agent is already processing. Wait for completion before continuing.');
    }
    const last = this.stateValue.messages.at(-1);
    if (!last) throw new Error('No messages to continue from');
    if (last.role === 'toolResult') {
      throw new Error(
        'A durable agent cannot continue from a tool result: a run starts from a user message',
      );
    }
    let text: string;
    if (last.role === 'assistant') {
      const queued = this.heldSteering.shift() ?? this.heldFollowUps.shift();
      if (queued === undefined) throw new Error('Cannot continue from message role: assistant');
      text = queued;
    } else {
      text = promptText(last);
      // The run puts it back (its message_end), after the messages before it.
      this.stateValue.messages = this.stateValue.messages.slice(0, -1);
    }
    await this.runWithLifecycle((run) => this.runPrompt(run, text));
  }

  /**
   * Closes the conversation's idle job (cancelled: nothing waits for it any more), stops the
   * in-process worker and closes the connections. Call it once the agent is idle.
   */
  async close(): Promise<void> {
    if (this.activeRun) {
      throw new Error('Agent is processing: wait for it (waitForIdle) or abort it before closing.');
    }
    const open = this.openJob;
    if (open && !open.closed) {
      open.closed = true;
      await open.job.cancel().catch(() => undefined);
    }
    await this.signalChain;
    const runtime = this.runtime;
    this.runtime = undefined;
    if (runtime) await (await runtime).close();
  }

  private connect(): Promise<AgentRuntime> {
    if (!this.runtime) {
      const opening = openAgentRuntime(this.options);
      // A failed connection is tried again at the next prompt.
      opening.catch(() => {
        if (this.runtime === opening) this.runtime = undefined;
      });
      this.runtime = opening;
    }
    return this.runtime;
  }

  private jobSettings(): JobSettings {
    const model = modelName(this.stateValue.model);
    if (!model) throw new Error('No model: set state.model (provider:model-id) before prompting');
    return {
      model,
      ...(this.stateValue.systemPrompt ? { systemPrompt: this.stateValue.systemPrompt } : {}),
      tools: toolNames(this.stateValue.tools),
      workspace: this.workspace,
      toolExecution: this.toolExecution,
      steeringMode: this.steeringMode,
      followUpMode: this.followUpMode,
      keepOpenMs: this.keepOpenMs,
    };
  }

  private enqueue(kind: QueueKind, text: string): void {
    const run = this.activeRun;
    if (run?.job && run.started && !run.job.closed) {
      this.send(run.job, kind, text);
      return;
    }
    (kind === 'steer' ? this.heldSteering : this.heldFollowUps).push(text);
  }

  private send(target: ConversationJob, kind: QueueKind, text: string): void {
    this.signalChain = this.signalChain
      .then(() => (kind === 'steer' ? target.job.steer(text) : target.job.followUp(text)))
      // The job closed as it came: held for the next run.
      .catch(() => {
        (kind === 'steer' ? this.heldSteering : this.heldFollowUps).push(text);
      });
  }

  private cancel(target: ConversationJob): void {
    target.closed = true;
    void target.job.cancel().catch(() => undefined);
  }

  /** The run of one prompt: sent to the open job or a new one, read until its `agent_end`. */
  private async runPrompt(run: ActiveRun, text: string): Promise<void> {
    // Checked first: a prompt without a model fails without connecting.
    const settings = this.jobSettings();
    const runtime = await this.connect();
    const key = settingsKey(settings);
    let target = await this.deliver(runtime, settings, key, text);
    for (;;) {
      run.job = target;
      if (run.abortController.signal.aborted) this.cancel(target);
      const current = target;
      const reading = await readRun(
        current.job,
        current.lastSeq,
        async (event) => {
          if (event.type === 'agent_start') this.startedRun(run, current);
          await this.processEvent(event);
        },
        {
          live: {
            afterLiveSeq: current.lastLiveSeq ?? 0,
            messages: new LiveMessages(() => emptyAssistantMessage(this.stateValue.model)),
          },
          abandon: { signal: run.abortController.signal, waitMs: this.abortWaitMs },
        },
      );
      current.lastSeq = reading.lastSeq;
      current.lastLiveSeq = reading.lastLiveSeq;
      if (reading.ended) {
        // A job closes after a run that failed or was aborted (its keep-open is for runs that end well).
        const last = this.stateValue.messages.at(-1);
        if (last?.role === 'assistant' && ['error', 'aborted'].includes(last.stopReason)) {
          current.closed = true;
        }
        return;
      }
      current.closed = true;
      if (run.abortController.signal.aborted) throw new Error('Operation aborted');
      if (reading.started) {
        throw new Error(`Job ${current.job.workflowId} closed before its run ended`);
      }
      // The job closed as the prompt came (its keep-open time ran out): a new job takes it.
      target = await this.startJob(runtime, settings, key, text);
    }
  }

  /** The run began in the job: held messages go to it now, after the prompt. */
  private startedRun(run: ActiveRun, target: ConversationJob): void {
    run.started = true;
    for (const text of this.heldSteering.splice(0)) this.send(target, 'steer', text);
    for (const text of this.heldFollowUps.splice(0)) this.send(target, 'followUp', text);
  }

  /** Sends the prompt to the open job as a follow-up, or starts a new job with it. */
  private async deliver(
    runtime: AgentRuntime,
    settings: JobSettings,
    key: string,
    text: string,
  ): Promise<ConversationJob> {
    const open = this.openJob;
    if (open && !open.closed && !this.conversationReplaced && open.key === key) {
      try {
        await open.job.followUp(text);
        return open;
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        open.closed = true;
      }
    }
    return this.startJob(runtime, settings, key, text);
  }

  private async startJob(
    runtime: AgentRuntime,
    settings: JobSettings,
    key: string,
    text: string,
  ): Promise<ConversationJob> {
    const previous = this.openJob;
    // An idle job whose settings or conversation are not the current ones any more.
    if (previous && !previous.closed) {
      previous.closed = true;
      await previous.job.cancel().catch(() => undefined);
    }
    const prefix = this.options.jobIdPrefix ?? 'agent';
    const job = await startConversationJob(
      runtime,
      settings,
      this.stateValue.messages,
      userMessage(text, Date.now()),
      `${prefix}-${crypto.randomUUID()}`,
    );
    this.conversationReplaced = false;
    const started: ConversationJob = { job, key, lastSeq: 0, closed: false };
    this.openJob = started;
    return started;
  }

  private async runWithLifecycle(executor: (run: ActiveRun) => Promise<void>): Promise<void> {
    if (this.activeRun) throw new Error('Agent is already processing.');
    let resolveRun = () => {};
    const promise = new Promise<void>((resolvePromise) => {
      resolveRun = resolvePromise;
    });
    const run: ActiveRun = {
      promise,
      resolve: resolveRun,
      abortController: new AbortController(),
      started: false,
    };
    this.activeRun = run;
    this.stateValue.isStreaming = true;
    this.stateValue.streamingMessage = undefined;
    this.stateValue.errorMessage = undefined;
    try {
      await executor(run);
    } catch (error) {
      await this.handleRunFailure(error, run.abortController.signal.aborted);
    } finally {
      this.finishRun();
    }
  }

  /** A run that could not be read to its end reports it as Pi does: a failed assistant message. */
  private async handleRunFailure(error: unknown, aborted: boolean): Promise<void> {
    for (const event of failedRunEvents(this.stateValue.model, error, aborted)) {
      await this.processEvent(event);
    }
  }

  private finishRun(): void {
    this.stateValue.isStreaming = false;
    this.stateValue.streamingMessage = undefined;
    this.stateValue.pendingToolCalls = new Set<string>();
    this.activeRun?.resolve();
    this.activeRun = undefined;
  }

  /** Updates the state for an event (as Pi's agent does), then awaits each listener in turn. */
  private async processEvent(event: AgentEvent): Promise<void> {
    applyEvent(this.stateValue, event);
    const signal = this.activeRun?.abortController.signal ?? new AbortController().signal;
    for (const listener of this.listeners) await listener(event, signal);
  }
}

/** Pi's name for it: a Pi program changes its import and keeps its code. */
export { DurableAgent as Agent };
