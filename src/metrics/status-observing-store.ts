import { JOB_STATUS_RECORD } from '../activities/job-status-record.js';
import type { JobStore } from '../store/job-store.js';
import type { StoreMaintenance } from '../store/store-maintenance.js';
import type {
  AppendEventsOptions,
  EventToAppend,
  JsonValue,
  ObjectRef,
  PreparedObject,
  PutRecordOptions,
  ReadEventsOptions,
  StoredEvent,
} from '../store/references.js';
import type { AgentMetrics } from './agent-metrics.js';

/**
 * The worker's job store, passing each job status it writes (every progress flush writes one)
 * to {@link AgentMetrics}: that is where jobs' phases and turns are seen. Stores as the inner
 * store does; a status is counted once its write succeeded.
 */
export class StatusObservingStore implements JobStore {
  constructor(
    private readonly inner: JobStore,
    private readonly metrics: AgentMetrics,
  ) {}

  async putRecord(
    namespace: string,
    key: string,
    value: unknown,
    options?: PutRecordOptions,
  ): Promise<void> {
    await this.inner.putRecord(namespace, key, value, options);
    if (namespace !== JOB_STATUS_RECORD || typeof value !== 'object' || value === null) return;
    const { phase, turns } = value as { phase?: unknown; turns?: unknown };
    if (typeof phase === 'string' && typeof turns === 'number') {
      this.metrics.observeJobStatus(key, phase, turns);
    }
  }

  putObject(value: unknown): Promise<ObjectRef> {
    return this.inner.putObject(value);
  }
  putObjects(values: readonly unknown[]): Promise<ObjectRef[]> {
    return this.inner.putObjects(values);
  }
  prepareObject(value: unknown): PreparedObject {
    return this.inner.prepareObject(value);
  }
  putPreparedObjects(objects: readonly PreparedObject[]): Promise<void> {
    return this.inner.putPreparedObjects(objects);
  }
  getObject(ref: ObjectRef): Promise<JsonValue> {
    return this.inner.getObject(ref);
  }
  getObjects(refs: readonly ObjectRef[]): Promise<JsonValue[]> {
    return this.inner.getObjects(refs);
  }
  appendEvents(
    jobId: string,
    events: readonly EventToAppend[],
    options?: AppendEventsOptions,
  ): Promise<void> {
    return this.inner.appendEvents(jobId, events, options);
  }
  readEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    return this.inner.readEvents(jobId, options);
  }
  lastSeq(jobId: string): Promise<number> {
    return this.inner.lastSeq(jobId);
  }
  followEvents(jobId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    return this.inner.followEvents(jobId, afterSeq, signal);
  }
  getRecord(namespace: string, key: string): Promise<JsonValue | undefined> {
    return this.inner.getRecord(namespace, key);
  }
  appendLiveEvents(jobId: string, events: readonly unknown[]): Promise<number[]> {
    return this.inner.appendLiveEvents(jobId, events);
  }
  readLiveEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    return this.inner.readLiveEvents(jobId, options);
  }
  dropLiveEvents(jobId: string, upToSeq: number): Promise<void> {
    return this.inner.dropLiveEvents(jobId, upToSeq);
  }
  maintenance(): StoreMaintenance | undefined {
    return this.inner.maintenance?.();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
