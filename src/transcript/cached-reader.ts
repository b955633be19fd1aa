import type { JobStore } from '../store/job-store.js';
import type { JsonValue, ObjectRef, PreparedObject } from '../store/references.js';
import type { ReadObject } from './transcript-nodes.js';

/** Objects kept by default: a long job's transcript nodes and messages, well within memory. */
const DEFAULT_MAX_OBJECTS = 20_000;

/**
 * Characters of JSON kept by default, all objects together. A worker runs many jobs, and one
 * object may be a 1 MB answer or a large tool result: counting objects alone would let 20,000
 * of those hold gigabytes.
 */
const DEFAULT_MAX_CHARACTERS = 256 * 1024 * 1024;

/** Limits of an {@link objectCache}. */
export interface ObjectCacheLimits {
  /** Objects kept at most (default 20,000). */
  maxObjects?: number;
  /**
   * Characters of the objects' JSON kept at most, together (default 256 Mi); an object larger
   * than an eighth of it is never kept (it is read from the store each time).
   */
  maxCharacters?: number;
}

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
export function objectCache(store: JobStore, limits: ObjectCacheLimits = {}): ObjectCache {
  const maxObjects = limits.maxObjects ?? DEFAULT_MAX_OBJECTS;
  const maxCharacters = limits.maxCharacters ?? DEFAULT_MAX_CHARACTERS;
  const largestKept = maxCharacters / 8;
  const cache = new Map<ObjectRef, { value: JsonValue; characters: number }>();
  let characters = 0;
  const keep = (ref: ObjectRef, value: JsonValue, size: number) => {
    if (size > largestKept || cache.has(ref)) return;
    cache.set(ref, { value, characters: size });
    characters += size;
    while (cache.size > maxObjects || characters > maxCharacters) {
      const oldest = cache.entries().next();
      if (oldest.done) break;
      cache.delete(oldest.value[0]);
      characters -= oldest.value[1].characters;
    }
  };
  /** What a read returns: the value's own JSON, parsed (a fresh copy nobody else holds). */
  const keepStored = (ref: ObjectRef, value: unknown) => {
    if (cache.has(ref)) return;
    const text = JSON.stringify(value);
    keep(ref, JSON.parse(text) as JsonValue, text.length);
  };
  return {
    async read(ref) {
      const hit = cache.get(ref);
      if (hit !== undefined) {
        cache.delete(ref);
        cache.set(ref, hit);
        return hit.value;
      }
      const value = await store.getObject(ref);
      keep(ref, value, JSON.stringify(value).length);
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
export function cachedReader(store: JobStore, limits: ObjectCacheLimits = {}): ReadObject {
  return objectCache(store, limits).read;
}
