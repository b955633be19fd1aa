// The worker/CLI-side entry to Temporal: where it is, and the embedded server when it is local.
// Settings are a module of their own: a command that only reads the job store resolves them
// without loading Temporal's client and worker (`./connect.js`).
export * from './connection-settings.js';
export {
  connectClient,
  connectNativeConnection,
  type ConnectOptions,
  type TemporalClientConnection,
  type TemporalWorkerConnection,
} from './connect.js';
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
