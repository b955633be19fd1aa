// The package's `durable-agent-runner/agent` entry: Pi's `Agent`, over durable jobs.
export { DurableAgent, Agent, type AgentListener } from './durable-agent.js';
export type {
  AgentJobConnection,
  DurableAgentOptions,
  InProcessWorkerOptions,
} from './agent-options.js';
export type {
  AgentModel,
  AgentToolReference,
  DurableAgentState,
  ThinkingLevel,
} from './agent-state.js';
export type {
  AgentEvent,
  AssistantMessage,
  Message,
  ToolResultMessage,
  UserMessage,
} from '../core/index.js';
