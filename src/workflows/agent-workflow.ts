import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
  CancelledFailure,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import {
  OPERATION_ABORTED,
  emptyUsage,
  modelRequestSizeError,
  runAgentLoop,
  userMessage,
  type AgentLoopEffects,
  type AssistantMessage,
  type Message,
  type ToolSpec,
  type Usage,
} from '../core/index.js';
import { modelActivityOptions, toolActivityOptions } from './activity-options.js';
import {
  eventsQuery,
  followUpSignal,
  statusQuery,
  steerSignal,
  transcriptQuery,
} from './definitions.js';
import { boundedPage } from './bounded-page.js';
import { EventLog } from './event-log.js';
import { failureMessage } from './failure-message.js';
import type { AgentJobInput, AgentJobResult, JobPhase, JobStatus } from './job-types.js';
import { jobPolicyGate } from './job-policy-gate.js';
import { resultMessages } from './result-messages.js';
import { startJobVisibility } from './job-visibility.js';

const { callModel } = proxyActivities<AgentActivities>(modelActivityOptions);

const DEFAULT_SYSTEM_PROMPT =
  'You are a careful agent working in a workspace through the tools you are given.';

function addUsage(total: Usage, usage: Usage): Usage {
  return {
    input: total.input + usage.input,
    output: total.output + usage.output,
    cacheRead: total.cacheRead + usage.cacheRead,
    cacheWrite: total.cacheWrite + usage.cacheWrite,
    totalTokens: total.totalTokens + usage.totalTokens,
    cost: {
      input: total.cost.input + usage.cost.input,
      output: total.cost.output + usage.cost.output,
      cacheRead: total.cost.cacheRead + usage.cost.cacheRead,
      cacheWrite: total.cost.cacheWrite + usage.cost.cacheWrite,
      total: total.cost.total + usage.cost.total,
    },
  };
}

function failedAssistantMessage(stopReason: 'error' | 'aborted', text: string): AssistantMessage {
  return {
    role: 'assistant',
    content: [],
    usage: emptyUsage(),
    stopReason,
    errorMessage: text,
    timestamp: Date.now(),
  };
}

/** Waits for `ready` up to `timeoutMs`; false on timeout or when the job is cancelled. */
async function waitForMessage(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  try {
    return await condition(ready, timeoutMs);
  } catch (error) {
    if (isCancellation(error)) return false;
    throw error;
  }
}

function resolveTools(names: string[], specs: Readonly<Record<string, ToolSpec>>): ToolSpec[] {
  return names.map((name) => {
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    // A bad input fails the job at once; a plain Error would retry the workflow task forever.
    if (!spec) {
      throw ApplicationFailure.nonRetryable(
        `Tool ${name} is not known to this workflow`,
        'BadInput',
      );
    }
    return spec;
  });
}

/**
 * Builds the agent workflow for a set of tool specs (the built-in ones in production; tests add
 * their own). Each turn: the model call is an activity; preflight and policy run here; every
 * prepared tool body is an activity of its own. Cancelling the workflow aborts the run (R21).
 */
export function makeAgentWorkflow(toolSpecs: Readonly<Record<string, ToolSpec>>) {
  return async function agentJob(input: AgentJobInput): Promise<AgentJobResult> {
    const carried = input.carried;
    const tools = resolveTools(input.tools, toolSpecs);
    const transcript = { messages: carried?.messages ?? [] };
    const log = new EventLog(carried?.events ?? []);
    const steering: Message[] = carried?.steering ?? [];
    const followUps: Message[] = carried?.followUps ?? [];
    let phase: JobPhase = 'starting';
    let modelCalls = carried?.modelCalls ?? 0;
    // Search attributes DarPhase, DarTurns, DarBatchId (patched: old histories replay as before).
    const publish = startJobVisibility(input.batchId);

    const root = CancellationScope.current();
    const isAborted = () => root.consideredCancelled;
    const lastAssistant = () =>
      transcript.messages.findLast(
        (message): message is AssistantMessage => message.role === 'assistant',
      );
    const status = (): JobStatus => ({
      phase,
      turns: modelCalls,
      modelCalls,
      lastSeq: log.lastSeq,
      stopReason: phase === 'done' ? lastAssistant()?.stopReason : undefined,
      errorMessage: phase === 'done' ? lastAssistant()?.errorMessage : undefined,
      cancelled: isAborted(),
      usage: transcript.messages.reduce(
        (total, message) => (message.role === 'assistant' ? addUsage(total, message.usage) : total),
        emptyUsage(),
      ),
      continuedAsNew: carried?.runs ?? 0,
    });

    setHandler(steerSignal, (text) => {
      steering.push(userMessage(text, Date.now()));
    });
    setHandler(followUpSignal, (text) => {
      followUps.push(userMessage(text, Date.now()));
    });
    setHandler(statusQuery, status);
    setHandler(eventsQuery, (afterSeq, limit) => log.after(afterSeq, limit));
    setHandler(transcriptQuery, (from = 0) => boundedPage(transcript.messages, from, Infinity));

    const effects: AgentLoopEffects = {
      emit: (event) => log.append(event),
      isAborted,
      now: () => Date.now(),
      takeSteeringMessages: () => steering.splice(0),
      takeFollowUpMessages: () => followUps.splice(0),
      async callModel(request) {
        const tooLarge = modelRequestSizeError(request); // Temporal would refuse it (limits.ts)
        if (tooLarge !== undefined) return failedAssistantMessage('error', tooLarge);
        phase = 'model';
        modelCalls += 1;
        publish(phase, modelCalls);
        try {
          return await callModel({ model: input.model, request });
        } catch (error) {
          // R21: an aborted call; R2: a call that failed for good ends the run as an error.
          if (isCancellation(error)) return failedAssistantMessage('aborted', OPERATION_ABORTED);
          return failedAssistantMessage('error', failureMessage(error));
        }
      },
      async executeTool(call) {
        phase = 'tools';
        publish(phase, modelCalls);
        const { executeTool } = proxyActivities<AgentActivities>(toolActivityOptions(call.tool));
        try {
          return await executeTool({
            toolName: call.tool.name,
            toolCallId: call.toolCall.id,
            args: call.args,
            workspace: input.workspace,
            idempotencyKey: `${workflowInfo().workflowId}/${call.toolCall.id}`,
          });
        } catch (error) {
          throw new Error(failureMessage(error), { cause: error });
        }
      },
    };

    const config = {
      systemPrompt: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      tools,
      toolExecution: input.toolExecution ?? 'parallel',
      beforeToolCall: jobPolicyGate(input),
    };
    const continueAsNewWith = async (pending: Message[], idle: boolean): Promise<never> => {
      // Long job: hand the whole state to a fresh run before history grows too large.
      await condition(allHandlersFinished);
      return continueAsNew<typeof agentJob>({
        ...input,
        carried: {
          messages: transcript.messages,
          events: log.all(),
          steering: steering.splice(0),
          followUps: followUps.splice(0),
          pending,
          modelCalls,
          runs: (carried?.runs ?? 0) + 1,
          ...(idle ? { idle } : {}),
        },
      });
    };

    let prompts = carried ? carried.pending : [userMessage(input.prompt, Date.now())];
    let resume = carried !== undefined;
    let idle = carried?.idle ?? false;
    for (;;) {
      if (!idle) {
        const outcome = await runAgentLoop(prompts, transcript, config, effects, {
          resume,
          shouldPause: () => workflowInfo().continueAsNewSuggested,
        });
        if (outcome.paused) await continueAsNewWith(outcome.paused.pending, false);
        if (input.keepOpenMs === undefined || isAborted() || outcome.stopReason === 'error') break;
      }
      idle = false;
      if (workflowInfo().continueAsNewSuggested) await continueAsNewWith([], true);
      // A kept-open job waits for the next message; it starts a new run (agent_start again).
      phase = 'waiting';
      publish(phase, modelCalls);
      const arrived = await waitForMessage(
        () => steering.length + followUps.length > 0,
        input.keepOpenMs ?? 0,
      );
      if (!arrived) break;
      prompts = [...steering.splice(0), ...followUps.splice(0)];
      resume = false;
    }

    phase = 'done';
    publish(phase, modelCalls);
    if (isAborted()) throw new CancelledFailure('Agent job cancelled');
    return { status: status(), ...resultMessages(transcript.messages) };
  };
}
