import type { Client, WorkflowHandle } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../worker/task-queue.js';
import {
  eventsQuery,
  followUpSignal,
  statusQuery,
  steerSignal,
  transcriptQuery,
} from '../workflows/definitions.js';
import type { AgentJobInput, JobStatus, SequencedEvent } from '../workflows/job-types.js';
import type { Message } from '../core/index.js';

export const AGENT_WORKFLOW_TYPE = 'agentJob';

export interface StartJobOptions {
  workflowId?: string;
  taskQueue?: string;
  /** Workflow type to start; tests use workflows built with extra tools. */
  workflowType?: string;
}

/** A typed handle on one agent job. */
export class AgentJob {
  constructor(readonly handle: WorkflowHandle) {}

  get workflowId(): string {
    return this.handle.workflowId;
  }

  status(): Promise<JobStatus> {
    return this.handle.query(statusQuery);
  }

  /**
   * One page of events after `afterSeq`: at most `limit`, and fewer when the page passes ~1 MiB
   * of JSON, so a short page does not mean there are no more (see `allEvents`).
   */
  events(afterSeq = 0, limit?: number): Promise<SequencedEvent[]> {
    return limit === undefined
      ? this.handle.query(eventsQuery, afterSeq)
      : this.handle.query(eventsQuery, afterSeq, limit);
  }

  /** Every event after `afterSeq` so far, read page by page until a page is empty. */
  async allEvents(afterSeq = 0): Promise<SequencedEvent[]> {
    const events: SequencedEvent[] = [];
    let seq = afterSeq;
    for (;;) {
      const page = await this.events(seq);
      const last = page.at(-1);
      if (!last) return events;
      events.push(...page);
      seq = last.seq;
    }
  }

  /** The whole transcript, read page by page (each query answer stays under ~1 MiB). */
  async transcript(): Promise<Message[]> {
    const messages: Message[] = [];
    for (;;) {
      const page = await this.handle.query(transcriptQuery, messages.length);
      if (page.length === 0) return messages;
      messages.push(...page);
    }
  }

  steer(text: string): Promise<void> {
    return this.handle.signal(steerSignal, text);
  }

  followUp(text: string): Promise<void> {
    return this.handle.signal(followUpSignal, text);
  }

  /** Cancelling is aborting (R21): running tools are stopped, the run ends with agent_end. */
  cancel(): Promise<void> {
    return this.handle.cancel().then(() => undefined);
  }

  /**
   * Calls `onEvent` for each event after `afterSeq`, in order, until `agent_end` (or `until`
   * says stop). Polls the events query; a job that continues as new keeps its numbering.
   */
  async follow(
    onEvent: (event: SequencedEvent) => void | Promise<void>,
    options: { afterSeq?: number; pollMs?: number; signal?: AbortSignal } = {},
  ): Promise<SequencedEvent | undefined> {
    let afterSeq = options.afterSeq ?? 0;
    const pollMs = options.pollMs ?? 200;
    for (;;) {
      options.signal?.throwIfAborted();
      const events = await this.events(afterSeq);
      for (const event of events) {
        await onEvent(event);
        afterSeq = event.seq;
        if (event.type === 'agent_end') return event;
      }
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

export function startJob(
  client: Client,
  input: AgentJobInput,
  options: StartJobOptions = {},
): Promise<AgentJob> {
  return client.workflow
    .start(options.workflowType ?? AGENT_WORKFLOW_TYPE, {
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId: options.workflowId ?? `agent-${crypto.randomUUID()}`,
      args: [input],
    })
    .then((handle) => new AgentJob(handle));
}

export function getJob(client: Client, workflowId: string): AgentJob {
  return new AgentJob(client.workflow.getHandle(workflowId));
}
