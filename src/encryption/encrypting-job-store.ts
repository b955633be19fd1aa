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
import type { EncryptionKeyring } from './encryption-keys.js';
import { openJson, sealJson } from './sealed-json.js';

/**
 * A job store that encrypts what it keeps: every object (messages, tool results), event, live
 * event (token deltas, bash output lines) and record goes to the inner store sealed with the keyring's current key (see `sealJson`), and
 * comes back decrypted with the key it names. What stays in clear: job ids, event seqs, record
 * namespaces and keys, and object references, which are hashes of the sealed records (not of
 * the plaintext). Values written before encryption was turned on read as they are.
 *
 * A reference depends on the key: after a rotation the same value is stored again under a new
 * reference (the old one keeps reading). Every process reading or writing the store must have
 * the same keys.
 */
export class EncryptingJobStore implements JobStore {
  // Every method is async: a value that cannot be stored rejects, as the contract says.
  constructor(
    private readonly inner: JobStore,
    private readonly keyring: EncryptionKeyring,
  ) {}

  async putObject(value: unknown): Promise<ObjectRef> {
    return this.inner.putObject(this.seal(value));
  }

  async putObjects(values: readonly unknown[]): Promise<ObjectRef[]> {
    return this.inner.putObjects(values.map((value) => this.seal(value)));
  }

  /** Sealed here, so the reference is the sealed record's, as `putObject`'s would be. */
  prepareObject(value: unknown): PreparedObject {
    return this.inner.prepareObject(this.seal(value));
  }

  async putPreparedObjects(objects: readonly PreparedObject[]): Promise<void> {
    return this.inner.putPreparedObjects(objects);
  }

  async getObject(ref: ObjectRef): Promise<JsonValue> {
    return this.open(await this.inner.getObject(ref));
  }

  async getObjects(refs: readonly ObjectRef[]): Promise<JsonValue[]> {
    return (await this.inner.getObjects(refs)).map((value) => this.open(value));
  }

  async appendEvents(
    jobId: string,
    events: readonly EventToAppend[],
    options?: AppendEventsOptions,
  ): Promise<void> {
    const sealed = events.map(({ seq, event }) => ({ seq, event: this.seal(event) }));
    return this.inner.appendEvents(jobId, sealed, options);
  }

  async readEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    return (await this.inner.readEvents(jobId, options)).map((stored) => this.openEvent(stored));
  }

  async lastSeq(jobId: string): Promise<number> {
    return this.inner.lastSeq(jobId);
  }

  async *followEvents(
    jobId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredEvent> {
    for await (const stored of this.inner.followEvents(jobId, afterSeq, signal)) {
      yield this.openEvent(stored);
    }
  }

  async appendLiveEvents(jobId: string, events: readonly unknown[]): Promise<number[]> {
    return this.inner.appendLiveEvents(
      jobId,
      events.map((event) => this.seal(event)),
    );
  }

  async readLiveEvents(jobId: string, options?: ReadEventsOptions): Promise<StoredEvent[]> {
    return (await this.inner.readLiveEvents(jobId, options)).map((stored) =>
      this.openEvent(stored),
    );
  }

  async dropLiveEvents(jobId: string, upToSeq: number): Promise<void> {
    return this.inner.dropLiveEvents(jobId, upToSeq);
  }

  async putRecord(
    namespace: string,
    key: string,
    value: unknown,
    options?: PutRecordOptions,
  ): Promise<void> {
    return this.inner.putRecord(namespace, key, this.seal(value), options);
  }

  async getRecord(namespace: string, key: string): Promise<JsonValue | undefined> {
    const stored = await this.inner.getRecord(namespace, key);
    return stored === undefined ? undefined : this.open(stored);
  }

  maintenance(): StoreMaintenance | undefined {
    return this.inner.maintenance?.();
  }

  async close(): Promise<void> {
    return this.inner.close();
  }

  private seal(value: unknown) {
    return sealJson(this.keyring, value);
  }

  private open(value: JsonValue): JsonValue {
    return openJson(this.keyring, value);
  }

  private openEvent(stored: StoredEvent): StoredEvent {
    return { seq: stored.seq, event: this.open(stored.event) };
  }
}
