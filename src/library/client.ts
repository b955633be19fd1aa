/** `durable-agent-runner/client`: start agent jobs and read them (events, status, transcript). */
export {
  AgentJob,
  getJob,
  startJob,
  type FollowOptions,
  type StartJobOptions,
} from '../client/job-client.js';
export { PayloadTooLargeError } from '../client/payload-limit.js';
export { EmptyMessageError, MessageTooLongError } from '../client/message-length.js';
export { JobIdError, MAXIMUM_JOB_ID_BYTES } from '../client/job-id.js';
export type {
  AgentJobInput,
  AgentJobResult,
  JobEvent,
  JobPhase,
  JobStatus,
  SequencedEvent,
} from '../workflows/job-types.js';
export type {
  AssistantMessage,
  Message,
  ToolResultMessage,
  UserMessage,
} from '../core/messages.js';
export { openJobStore, type JobStoreSettings } from '../store/open-job-store.js';
export type { JobStore } from '../store/job-store.js';
export { openConnection, type CliConnection as RunnerConnection } from '../cli/connection.js';
