import type { ObjectRef } from '../store/references.js';

/** Bytes of a reference's hash: a SHA-256. */
const HASH_BYTES = 32;
/** Where the hex digits start in `sha256:<hex>`. */
const HEX_START = 'sha256:'.length;
/** Tables by the hash's first byte: each grows on its own, so no single buffer gets huge. */
const SHARDS = 256;
const INITIAL_SLOTS = 16;
/** A table grows (doubles) past this share of its slots in use: probes stay short. */
const MAXIMUM_LOAD = 0.75;

/**
 * One table of open addressing with linear probing: the hashes side by side, and which slots
 * hold one.
 */
interface Shard {
  hashes: Uint8Array;
  used: Uint8Array;
  count: number;
}

function emptyShard(slots: number): Shard {
  return { hashes: new Uint8Array(slots * HASH_BYTES), used: new Uint8Array(slots), count: 0 };
}

/** The value of each lowercase hex digit by its character code; -1 for any other character. */
const HEX_VALUES = Int8Array.from({ length: 128 }, (_, code) => {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  return -1;
});

/**
 * A set of object references holding each as its 32-byte hash in typed arrays, outside the
 * JavaScript heap. A pruner marks every object that a kept job reaches, millions on a large
 * store: a `Set` of their strings takes 120-150 bytes each of a heap that Node limits to a
 * few GB, this one 33 bytes a slot (44-88 a reference, by how full its table is). Exact: a
 * reference is kept whole, so no two count as one (a pruner that took a reference for another
 * it had reached would not follow it, and could remove what it reaches).
 */
export class ObjectRefSet {
  private readonly shards: Shard[] = Array.from({ length: SHARDS }, () =>
    emptyShard(INITIAL_SLOTS),
  );
  /** Decoded hash of the reference at hand (one buffer for every call). */
  private readonly hash = new Uint8Array(HASH_BYTES);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `ref`; true when it was not in the set before. */
  add(ref: ObjectRef): boolean {
    const shard = this.shardOf(ref);
    if (this.find(shard) >= 0) return false;
    if (shard.count + 1 > shard.used.length * MAXIMUM_LOAD) this.grow(shard);
    this.insert(shard, this.hash);
    this.count += 1;
    return true;
  }

  has(ref: ObjectRef): boolean {
    return this.find(this.shardOf(ref)) >= 0;
  }

  /** Decodes `ref` (`sha256:` and 64 hex digits, checked) into `this.hash`; returns its table. */
  private shardOf(ref: ObjectRef): Shard {
    if (
      typeof ref !== 'string' ||
      ref.length !== HEX_START + HASH_BYTES * 2 ||
      !ref.startsWith('sha256:')
    ) {
      throw notObjectRef(ref);
    }
    for (let index = 0; index < HASH_BYTES; index += 1) {
      const at = HEX_START + index * 2;
      const high = HEX_VALUES[ref.charCodeAt(at)] ?? -1;
      const low = HEX_VALUES[ref.charCodeAt(at + 1)] ?? -1;
      if (high < 0 || low < 0) throw notObjectRef(ref);
      this.hash[index] = (high << 4) | low;
    }
    const shard = this.shards[this.hash[0] ?? 0];
    if (shard === undefined) throw new Error('unreachable: a byte picks one of 256 tables');
    return shard;
  }

  /** The slot holding `this.hash` in `shard`, or -1. */
  private find(shard: Shard): number {
    const mask = shard.used.length - 1;
    for (let slot = firstSlot(this.hash, mask); ; slot = (slot + 1) & mask) {
      if (shard.used[slot] === 0) return -1;
      if (sameHash(shard.hashes, slot, this.hash)) return slot;
    }
  }

  private insert(shard: Shard, hash: Uint8Array): void {
    const mask = shard.used.length - 1;
    let slot = firstSlot(hash, mask);
    while (shard.used[slot] !== 0) slot = (slot + 1) & mask;
    shard.hashes.set(hash, slot * HASH_BYTES);
    shard.used[slot] = 1;
    shard.count += 1;
  }

  private grow(shard: Shard): void {
    const { hashes, used } = shard;
    const larger = emptyShard(used.length * 2);
    for (let slot = 0; slot < used.length; slot += 1) {
      if (used[slot] === 0) continue;
      this.insert(larger, hashes.subarray(slot * HASH_BYTES, (slot + 1) * HASH_BYTES));
    }
    shard.hashes = larger.hashes;
    shard.used = larger.used;
  }
}

/** Where a hash's probe starts: bytes 1-4 (byte 0 chose the table), evenly spread as any. */
function firstSlot(hash: Uint8Array, mask: number): number {
  const word =
    ((hash[1] ?? 0) << 24) | ((hash[2] ?? 0) << 16) | ((hash[3] ?? 0) << 8) | (hash[4] ?? 0);
  return (word >>> 0) & mask;
}

function sameHash(hashes: Uint8Array, slot: number, hash: Uint8Array): boolean {
  const start = slot * HASH_BYTES;
  for (let index = 0; index < HASH_BYTES; index += 1) {
    if (hashes[start + index] !== hash[index]) return false;
  }
  return true;
}

function notObjectRef(value: unknown): TypeError {
  return new TypeError(`Not an object reference: ${String(value).slice(0, 80)}`);
}
