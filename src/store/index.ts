// The job store (data plane): worker and client side. Workflow code imports only
// `references.js` and `canonical-json.js`, which have no Node imports.
export * from './references.js';
export { canonicalJson, NotJsonError } from './canonical-json.js';
export { objectRef } from './object-ref.js';
export type { JobStore } from './job-store.js';
export type { LiveEventStore } from './live-events.js';
export type { FollowOptions } from './follow-events.js';
export * from './store-errors.js';
export { FileJobStore, type FileJobStoreOptions } from './file/file-job-store.js';
export { PostgresJobStore, type PostgresJobStoreOptions } from './postgres/postgres-job-store.js';
export {
  jobStoreSettingsFromEnvironment,
  openJobStore,
  type JobStoreSettings,
} from './open-job-store.js';
