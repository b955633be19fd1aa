// The worker/CLI-side entry to Temporal: where it is, and the embedded server when it is local.
export * from './connection-settings.js';
export {
  DevServerError,
  devServerSearchAttributeArgs,
  ensureDevServer,
  findRunningDevServer,
  runDevServerForeground,
  stopDevServer,
  type DevServerEndpoint,
  type DevServerOptions,
  type ForegroundOptions,
} from './dev-server.js';
export { findTemporalBinary, type FoundTemporalBinary } from './temporal-binary.js';
export { obtainTemporalBinary } from './temporal-download.js';
