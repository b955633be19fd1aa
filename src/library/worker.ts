/** `durable-agent-runner/worker`: a worker that runs agent jobs, with your own tools. */
export { createAgentWorker, type AgentWorkerOptions } from '../worker/agent-worker.js';
export { AgentWorker } from '../worker/agent-worker-group.js';
export { DEFAULT_TASK_QUEUE } from '../worker/task-queue.js';
export { workflowBundlerOptions } from '../worker/workflow-bundler-options.js';
export type { ModelPacing, ProviderPacing } from '../worker/model-pacing.js';
export {
  createProviderPauses,
  sharedProviderPauses,
  type ProviderPauses,
} from '../activities/provider-pauses.js';
export type { RequestTurn } from '../activities/learned-rate.js';
export { openJobStore, type JobStoreSettings } from '../store/open-job-store.js';
export type { JobStore } from '../store/job-store.js';
export { FileJobStore, type FileJobStoreOptions } from '../store/file/file-job-store.js';
export { openConnection, type CliConnection as RunnerConnection } from '../cli/connection.js';
export type { ProviderFactory } from '../providers/registry.js';
export type { ModelCallContext, ModelProvider } from '../providers/model-provider.js';
export { modelIdleTimeoutFrom, watchIdle, type IdleWatch } from '../providers/model-idle.js';
export type { ModelRequest } from '../core/effects.js';
export { connectMcpServers, mcpToolName, type McpServers } from '../tools/mcp/mcp-tools.js';
export {
  McpConfigError,
  parseMcpConfig,
  readMcpConfigFile,
  type McpConfig,
  type McpHttpServer,
  type McpServerConfig,
  type McpStdioServer,
} from '../tools/mcp/mcp-config.js';
export { McpServerConnection } from '../tools/mcp/mcp-connection.js';
export { McpToolError } from '../tools/mcp/mcp-result.js';
