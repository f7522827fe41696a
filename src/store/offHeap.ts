/**
 * What the in-memory store keeps per task, kept outside the collected heap: texts as UTF-8 in
 * chunks of bytes, numbers in typed arrays, and a hash index of entry numbers. A garbage collector
 * never walks an `ArrayBuffer`'s contents, so a million stored tasks cost a full collection no more
 * than a thousand: only the few objects that hold the buffers. Browser-safe: typed arrays,
 * `TextEncoder`, `TextDecoder` and `crypto.getRandomValues`.
 *
 * @internal
 * @packageDocumentation
 */

/** Entries per block of a {@link NumberColumn}. */
const BLOCK = 1 << 14;
/** Bytes per chunk of a {@link TextLog}. */
const CHUNK = 1 << 18;

type TypedArray = Float64Array | Int32Array;

/**
 * A column of numbers by entry number, in blocks allocated as they are first written: it grows
 * without copying what it holds. An entry never written reads as 0.
 */
export class NumberColumn {
  readonly #make: (length: number) => TypedArray;
  #blocks: TypedArray[] = [];

  /** @param kind - `float64` for any number (exact integers to 2^53), `int32` for whole numbers that fit in 32 bits. */
  constructor(kind: "float64" | "int32") {
    this.#make = kind === "float64" ? (n) => new Float64Array(n) : (n) => new Int32Array(n);
  }

  get(entry: number): number {
    return this.#blocks[Math.floor(entry / BLOCK)]?.[entry % BLOCK] ?? 0;
  }

  set(entry: number, value: number): void {
    const b = Math.floor(entry / BLOCK);
    let block = this.#blocks[b];
    if (block === undefined) {
      while (this.#blocks.length <= b) this.#blocks.push(this.#make(BLOCK));
      block = this.#blocks[b] as TypedArray;
    }
    block[entry % BLOCK] = value;
  }

  clear(): void {
    this.#blocks = [];
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * An append-only log of texts, kept as UTF-8 in chunks of 256 KiB one after the other (a text may
 * run on into the next chunk, so none is wasted): entry `n` is the `n`-th text appended. A text is
 * kept exactly when it is well-formed UTF-16 (no lone surrogate), which JSON text always is.
 */
export class TextLog {
  #chunks: Uint8Array[] = [];
  /** Bytes written so far: where the next text starts. */
  #end = 0;
  #count = 0;
  readonly #starts = new NumberColumn("float64");
  readonly #lengths = new NumberColumn("int32");
  /** Where a text is encoded before it is copied into the chunks, or copied out of them. */
  #scratch = new Uint8Array(1024);

  /** How many texts the log holds. */
  get size(): number {
    return this.#count;
  }

  /** Appends a text; returns its entry number. */
  append(text: string): number {
    const entry = this.#count++;
    this.#starts.set(entry, this.#end);
    // Encoded straight into the chunk when it surely fits (3 bytes per UTF-16 unit at most).
    const c = Math.floor(this.#end / CHUNK);
    const offset = this.#end - c * CHUNK;
    if (c < this.#chunks.length && offset + text.length * 3 <= CHUNK) {
      const { written } = encoder.encodeInto(text, (this.#chunks[c] as Uint8Array).subarray(offset));
      this.#lengths.set(entry, written);
      this.#end += written;
      return entry;
    }
    if (this.#scratch.length < text.length * 3) this.#scratch = new Uint8Array(text.length * 3);
    const { written } = encoder.encodeInto(text, this.#scratch);
    this.#lengths.set(entry, written);
    let copied = 0;
    while (copied < written) {
      const c = Math.floor(this.#end / CHUNK);
      const offset = this.#end - c * CHUNK;
      if (c === this.#chunks.length) this.#chunks.push(new Uint8Array(CHUNK));
      const n = Math.min(written - copied, CHUNK - offset);
      (this.#chunks[c] as Uint8Array).set(this.#scratch.subarray(copied, copied + n), offset);
      copied += n;
      this.#end += n;
    }
    return entry;
  }

  /** The text of an entry (a new string each time). */
  get(entry: number): string {
    if (!(entry >= 0 && entry < this.#count)) throw new RangeError(`no text ${entry} in a log of ${this.#count}`);
    const start = this.#starts.get(entry);
    const length = this.#lengths.get(entry);
    const c = Math.floor(start / CHUNK);
    const offset = start - c * CHUNK;
    if (offset + length <= CHUNK) return decoder.decode((this.#chunks[c] as Uint8Array).subarray(offset, offset + length));
    if (this.#scratch.length < length) this.#scratch = new Uint8Array(length);
    let copied = 0;
    for (let i = c, from = offset; copied < length; i++, from = 0) {
      const n = Math.min(length - copied, CHUNK - from);
      this.#scratch.set((this.#chunks[i] as Uint8Array).subarray(from, from + n), copied);
      copied += n;
    }
    return decoder.decode(this.#scratch.subarray(0, length));
  }

  clear(): void {
    this.#chunks = [];
    this.#end = 0;
    this.#count = 0;
    this.#starts.clear();
    this.#lengths.clear();
  }
}

/**
 * A hash table from keys to entry numbers that keeps only each key's 32-bit hash beside its entry
 * (open addressing, linear probing, at most half full). The caller says whether an entry with the
 * same hash is the key it means (`isKey`), by reading the key back from where it keeps it; `isKey`
 * runs only on entries whose hash matches.
 */
export class HashIndex {
  /** Slots to start with, and after `clear()`. */
  readonly #capacity: number;
  /** Pairs of (hash, entry + 1); 0 as the second is an empty slot. */
  #slots: Int32Array;
  #size = 0;

  /** @param capacity - Slots to start with, a power of two. */
  constructor(capacity = 1024) {
    this.#capacity = capacity;
    this.#slots = new Int32Array(capacity * 2);
  }

  /** How many keys the index holds. */
  get size(): number {
    return this.#size;
  }

  /** The entry of the key, or -1. */
  get(hash: number, isKey: (entry: number) => boolean): number {
    const h = hash | 0;
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = (slots[2 * i + 1] as number) - 1;
      if (entry < 0) return -1;
      if (slots[2 * i] === h && isKey(entry)) return entry;
    }
  }

  /** Points the key at `entry`: the key's slot when it has one, else a new one. */
  set(hash: number, isKey: (entry: number) => boolean, entry: number): void {
    const h = hash | 0;
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const held = (slots[2 * i + 1] as number) - 1;
      if (held < 0) break;
      if (slots[2 * i] === h && isKey(held)) {
        slots[2 * i + 1] = entry + 1;
        return;
      }
    }
    if (2 * (this.#size + 1) > slots.length / 2) this.#grow();
    this.#put(h, entry);
    this.#size++;
  }

  clear(): void {
    this.#slots = new Int32Array(this.#capacity * 2);
    this.#size = 0;
  }

  /** Writes a pair into the first empty slot from the hash's own. */
  #put(hash: number, entry: number): void {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    let i = hash & mask;
    while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = hash;
    slots[2 * i + 1] = entry + 1;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.#put(old[i] as number, (old[i + 1] as number) - 1);
  }
}

/**
 * A keyed hash of one or two texts (UTF-16 code units, two to a 32-bit word, then both lengths),
 * built on SipHash's 32-bit round (HalfSipHash's: add, rotate, xor) with a random 64-bit key per
 * instance. Without the key, nobody can choose texts whose hashes collide, so nobody can make an
 * index probe long on purpose (hash flooding).
 */
export class KeyedHash {
  readonly #k0: number;
  readonly #k1: number;
  #v0 = 0;
  #v1 = 0;
  #v2 = 0;
  #v3 = 0;

  /** @param key - Two 32-bit words; random (`crypto.getRandomValues`) when omitted. */
  constructor(key: readonly [number, number] = Array.from(crypto.getRandomValues(new Uint32Array(2))) as [number, number]) {
    this.#k0 = key[0] | 0;
    this.#k1 = key[1] | 0;
  }

  /** The hash of `a` then `b` (as a signed 32-bit integer): `("ab", "c")` and `("a", "bc")` differ. */
  of(a: string, b = ""): number {
    this.#v0 = this.#k0;
    this.#v1 = this.#k1;
    this.#v2 = 0x6c796765 ^ this.#k0;
    this.#v3 = 0x74656462 ^ this.#k1;
    this.#text(a);
    this.#text(b);
    this.#word(a.length);
    this.#word(b.length);
    this.#v2 ^= 0xff;
    this.#round();
    this.#round();
    this.#round();
    return this.#v1 ^ this.#v3;
  }

  /** Takes in a text, two code units to a word (an odd last one alone). */
  #text(text: string): void {
    const n = text.length;
    let i = 0;
    for (; i + 1 < n; i += 2) this.#word(text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
    if (i < n) this.#word(text.charCodeAt(i));
  }

  /** Takes in one word: one round (SipHash's c = 1). */
  #word(m: number): void {
    this.#v3 ^= m;
    this.#round();
    this.#v0 ^= m;
  }

  #round(): void {
    let v0 = this.#v0;
    let v1 = this.#v1;
    let v2 = this.#v2;
    let v3 = this.#v3;
    v0 = (v0 + v1) | 0;
    v1 = ((v1 << 5) | (v1 >>> 27)) ^ v0;
    v0 = (v0 << 16) | (v0 >>> 16);
    v2 = (v2 + v3) | 0;
    v3 = ((v3 << 8) | (v3 >>> 24)) ^ v2;
    v0 = (v0 + v3) | 0;
    v3 = ((v3 << 7) | (v3 >>> 25)) ^ v0;
    v2 = (v2 + v1) | 0;
    v1 = ((v1 << 13) | (v1 >>> 19)) ^ v2;
    v2 = (v2 << 16) | (v2 >>> 16);
    this.#v0 = v0;
    this.#v1 = v1;
    this.#v2 = v2;
    this.#v3 = v3;
  }
}
