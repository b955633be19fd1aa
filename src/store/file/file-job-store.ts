import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { mapWithConcurrency } from '../concurrency.js';
import { pollEvents, type FollowOptions } from '../follow-events.js';
import type { JobStore } from '../job-store.js';
import { checkJobId, checkRef } from '../store-arguments.js';
import { JobStoreError } from '../store-errors.js';
import type { StoreMaintenance } from '../store-maintenance.js';
import { preparePlainObject, putPreparedPlainObjects } from '../prepared-objects.js';
import type {
  AppendEventsOptions,
  EventToAppend,
  JsonValue,
  ObjectRef,
  PreparedObject,
  PutRecordOptions,
  ReadEventsOptions,
  StoredEvent,
} from '../references.js';
import { fileFailure } from './file-errors.js';
import { FileEvents } from './file-events.js';
import { FileLiveEvents } from './file-live-events.js';
import { FileMaintenance } from './file-maintenance.js';
import { FileObjects } from './file-objects.js';
import { FileRecords } from './file-records.js';

export interface FileJobStoreOptions {
  /** The store's folder (`objects/`, `events/`, `records/`, `live/` go inside); created if missing. */
  folder: string;
  /** How `followEvents` polls. */
  follow?: FollowOptions;
  /**
   * Flush every file to disk before it becomes visible (default true). False is for
   * throwaway stores (tests): after a power loss, a file may then be empty.
   */
  flushWrites?: boolean;
}

/** Files read or written at once by the batched methods. */
const FILE_CONCURRENCY = 16;

/**
 * The embedded job store: plain files under one folder, safe for several processes on the
 * same machine (every write is a rename or an exclusive link, no locks). See `FileObjects`,
 * `FileEvents` and `FileRecords` for the layout.
 */
export class FileJobStore implements JobStore {
  readonly folder: string;
  private readonly objects: FileObjects;
  private readonly events: FileEvents;
  private readonly records: FileRecords;
  private readonly live: FileLiveEvents;
  private readonly follow: FollowOptions;
  private closed = false;

  private constructor(options: FileJobStoreOptions) {
    this.folder = resolve(options.folder);
    const flush = options.flushWrites ?? true;
    this.objects = new FileObjects(join(this.folder, 'objects'), flush);
    this.events = new FileEvents(join(this.folder, 'events'), flush);
    this.records = new FileRecords(join(this.folder, 'records'), flush);
    this.live = new FileLiveEvents(join(this.folder, 'live'));
    this.follow = options.follow ?? {};
  }

  static async open(options: FileJobStoreOptions): Promise<FileJobStore> {
    const store = new FileJobStore(options);
    try {
      await mkdir(store.folder, { recursive: true });
    } catch (error) {
      throw fileFailure(error, `create the job store folder ${store.folder}`);
    }
    return store;
  }

  async putObject(value: unknown): Promise<ObjectRef> {
    this.checkOpen();
    return this.objects.put(value);
  }

  async putObjects(values: readonly unknown[]): Promise<ObjectRef[]> {
    this.checkOpen();
    return mapWithConcurrency(values, FILE_CONCURRENCY, (value) => this.objects.put(value));
  }

  prepareObject(value: unknown): PreparedObject {
    this.checkOpen();
    return preparePlainObject(value);
  }

  async putPreparedObjects(objects: readonly PreparedObject[]): Promise<void> {
    await putPreparedPlainObjects(this, objects);
  }

  async getObject(ref: ObjectRef): Promise<JsonValue> {
    this.checkOpen();
    return this.objects.get(ref);
  }

  async getObjects(refs: readonly ObjectRef[]): Promise<JsonValue[]> {
    this.checkOpen();
    refs.forEach(checkRef);
    return mapWithConcurrency(refs, FILE_CONCURRENCY, (ref) => this.objects.get(ref));
  }

  async appendEvents(
    jobId: string,
    events: readonly EventToAppend[],
    options?: AppendEventsOptions,
  ): Promise<void> {
    this.checkOpen();
    return this.events.append(jobId, events, options);
  }

  async readEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    this.checkOpen();
    return this.events.read(jobId, options);
  }

  async lastSeq(jobId: string): Promise<number> {
    this.checkOpen();
    return this.events.lastSeq(jobId);
  }

  followEvents(jobId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    this.checkOpen();
    checkJobId(jobId);
    return pollEvents(
      (cursor) => this.readEvents(jobId, { afterSeq: cursor }),
      afterSeq,
      signal,
      this.follow,
    );
  }

  async appendLiveEvents(jobId: string, events: readonly unknown[]): Promise<number[]> {
    this.checkOpen();
    return this.live.append(jobId, events);
  }

  async readLiveEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    this.checkOpen();
    return this.live.read(jobId, options);
  }

  async dropLiveEvents(jobId: string, upToSeq: number): Promise<void> {
    this.checkOpen();
    return this.live.drop(jobId, upToSeq);
  }

  async putRecord(
    namespace: string,
    key: string,
    value: unknown,
    options?: PutRecordOptions,
  ): Promise<void> {
    this.checkOpen();
    return this.records.put(namespace, key, value, options?.durable ?? true);
  }

  async getRecord(namespace: string, key: string): Promise<JsonValue | undefined> {
    this.checkOpen();
    return this.records.get(namespace, key);
  }

  maintenance(): StoreMaintenance {
    this.checkOpen();
    return new FileMaintenance(this.objects, {
      records: join(this.folder, 'records'),
      events: join(this.folder, 'events'),
      live: join(this.folder, 'live'),
    });
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private checkOpen(): void {
    if (this.closed) throw new JobStoreError('The job store is closed');
  }
}
