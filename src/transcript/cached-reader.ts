import type { JobStore } from '../store/job-store.js';
import type { JsonValue, ObjectRef, PreparedObject } from '../store/references.js';
import type { ReadObject } from './transcript-nodes.js';

/** Objects kept by default: a long job's transcript nodes and messages, well within memory. */
const DEFAULT_MAX_OBJECTS = 20_000;

/** Reads and writes of stored objects through one least-recently-used cache. */
export interface ObjectCache {
  /** Reads `ref`, from the cache when it is there. Callers must not modify what it returns. */
  read: ReadObject;
  /**
   * Stores `value` and keeps it in the cache in its stored form (its JSON read back), so that
   * the next read of it (the next model call reading the transcript this one wrote) costs no
   * trip to the store.
   */
  putObject(value: unknown): Promise<ObjectRef>;
  /** The store's `prepareObject`: names `value` without storing it. */
  prepare(value: unknown): PreparedObject;
  /**
   * Stores prepared objects together (the store's `putPreparedObjects`) and keeps each one's
   * `value` in the cache under its reference, as `putObject` does.
   */
  putPrepared(objects: readonly { value: unknown; prepared: PreparedObject }[]): Promise<void>;
}

/**
 * An object cache over `store`. Stored objects never change (a reference is the hash of the
 * content), so a cached object is never stale; the cache only saves the reads that every model
 * call of a long job would otherwise repeat.
 */
export function objectCache(store: JobStore, maxObjects = DEFAULT_MAX_OBJECTS): ObjectCache {
  const cache = new Map<ObjectRef, JsonValue>();
  const keep = (ref: ObjectRef, value: JsonValue) => {
    cache.set(ref, value);
    if (cache.size > maxObjects) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
  };
  /** What a read returns: the value's own JSON, parsed (a fresh copy nobody else holds). */
  const keepStored = (ref: ObjectRef, value: unknown) => {
    if (!cache.has(ref)) keep(ref, JSON.parse(JSON.stringify(value)) as JsonValue);
  };
  return {
    async read(ref) {
      const hit = cache.get(ref);
      if (hit !== undefined) {
        cache.delete(ref);
        cache.set(ref, hit);
        return hit;
      }
      const value = await store.getObject(ref);
      keep(ref, value);
      return value;
    },
    async putObject(value) {
      const ref = await store.putObject(value);
      keepStored(ref, value);
      return ref;
    },
    prepare(value) {
      return store.prepareObject(value);
    },
    async putPrepared(objects) {
      await store.putPreparedObjects(objects.map((object) => object.prepared));
      for (const { value, prepared } of objects) keepStored(prepared.ref, value);
    },
  };
}

/** Reads objects through an {@link objectCache}. Callers must not modify what it returns. */
export function cachedReader(store: JobStore, maxObjects = DEFAULT_MAX_OBJECTS): ReadObject {
  return objectCache(store, maxObjects).read;
}
