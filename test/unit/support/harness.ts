import {
  runAgentLoop,
  type AgentHooks,
  type AgentLoopEffects,
  type AgentTranscript,
  type AssistantMessage,
  type Message,
  type ModelRequest,
  type PreparedToolCall,
  type ToolExecutionMode,
  type ToolExecutionResult,
  type ToolSpec,
} from '../../../src/core/index.js';
import { recordingSink, type EventSink } from './event-sink.js';
import { text, user } from './messages.js';
import { scriptedModel, type ScriptedModel } from './scripted-model.js';

export type ToolBody = (
  call: PreparedToolCall,
  onUpdate: (partialResult: unknown) => void,
) => Promise<ToolExecutionResult>;

export interface HarnessOptions extends AgentHooks {
  answers: (AssistantMessage | ((request: ModelRequest) => AssistantMessage))[];
  tools: ToolSpec[];
  /** Bodies by tool name; a tool without one answers `ok <id>` with its args as details. */
  bodies?: Record<string, ToolBody>;
  toolExecution?: ToolExecutionMode;
  /** Successive answers of `takeSteeringMessages` (then empty). */
  steering?: Message[][];
  /** Successive answers of `takeFollowUpMessages` (then empty). */
  followUps?: Message[][];
}

export interface Harness {
  effects: AgentLoopEffects;
  sink: EventSink;
  model: ScriptedModel;
  transcript: AgentTranscript;
  /** Every prepared call that reached `executeTool`, in call order. */
  executed: PreparedToolCall[];
  reads: { steering: number; followUps: number };
  abort(): void;
  run(prompts?: Message[]): ReturnType<typeof runAgentLoop>;
}

export function agentHarness(options: HarnessOptions): Harness {
  let aborted = false;
  let clock = 1000;
  const sink = recordingSink();
  const model = scriptedModel(options.answers);
  const executed: PreparedToolCall[] = [];
  const transcript: AgentTranscript = { messages: [] };
  const steering = [...(options.steering ?? [])];
  const followUps = [...(options.followUps ?? [])];
  const reads = { steering: 0, followUps: 0 };
  const effects: AgentLoopEffects = {
    callModel: (request) => model.callModel(request),
    async executeTool(call, onUpdate) {
      executed.push(call);
      const body = options.bodies?.[call.tool.name];
      if (body) return body(call, onUpdate);
      return { content: [text(`ok ${call.toolCall.id}`)], details: { args: call.args } };
    },
    emit: (event) => sink.emit(event),
    isAborted: () => aborted,
    now: () => (clock += 1),
    takeSteeringMessages() {
      reads.steering += 1;
      return steering.shift() ?? [];
    },
    takeFollowUpMessages() {
      reads.followUps += 1;
      return followUps.shift() ?? [];
    },
  };
  const { beforeToolCall, afterToolCall, shouldStopAfterTurn } = options;
  return {
    effects,
    sink,
    model,
    transcript,
    executed,
    reads,
    abort: () => {
      aborted = true;
    },
    run: (prompts = [user('go')]) =>
      runAgentLoop(
        prompts,
        transcript,
        {
          systemPrompt: 'You are a test.',
          tools: options.tools,
          toolExecution: options.toolExecution,
          beforeToolCall,
          afterToolCall,
          shouldStopAfterTurn,
        },
        effects,
      ),
  };
}
