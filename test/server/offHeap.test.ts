/**
 * The pieces the in-memory store keeps its tasks in, outside the collected heap: a log of texts, a
 * column of numbers, a hash index that keeps only hashes, and the keyed hash it is fed with.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashIndex, KeyedHash, NumberColumn, TextLog } from "../../src/store/offHeap.js";

describe("TextLog", () => {
  it("S8: gives back every text exactly, also texts that run on into the next 256 KiB chunk and texts larger than a chunk", () => {
    const log = new TextLog();
    const texts = [
      "",
      "a fox",
      "é😀\u2028\uffff", // two- to four-byte UTF-8
      "x".repeat(262_140), // ends 4 bytes short of the first chunk's end
      "😀😀", // starts there: its first emoji fills the chunk, the second begins the next
      "🎨".repeat(200_000), // 800,000 bytes: runs through three chunks and into a fourth
      "after",
    ];
    const entries = texts.map((text) => log.append(text));
    expect(entries).toStrictEqual(texts.map((_, i) => i));
    expect(log.size).toBe(texts.length);
    for (const [i, text] of texts.entries()) expect(log.get(i)).toBe(text);
  });

  it("S8: keeps any well-formed text, appended in any order of sizes", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 2000 }), { maxLength: 60 }), (texts) => {
        const log = new TextLog();
        for (const text of texts) log.append(text);
        expect(texts.map((_, i) => log.get(i))).toStrictEqual(texts);
      }),
      { numRuns: 40 },
    );
  });

  it("S8: reads no entry it does not hold, and holds none after clear()", () => {
    const log = new TextLog();
    expect(() => log.get(0)).toThrow(RangeError);
    log.append("one");
    expect(() => log.get(1)).toThrow("no text 1 in a log of 1");
    expect(() => log.get(-1)).toThrow(RangeError);
    log.clear();
    expect(log.size).toBe(0);
    expect(() => log.get(0)).toThrow(RangeError);
    expect(log.append("two")).toBe(0);
    expect(log.get(0)).toBe("two");
  });
});

describe("NumberColumn", () => {
  it("S8: keeps numbers by entry across its blocks, unwritten entries reading 0", () => {
    const float = new NumberColumn("float64");
    const int = new NumberColumn("int32");
    const at = [0, 1, 16_383, 16_384, 100_000];
    for (const i of at) {
      float.set(i, Number.MAX_SAFE_INTEGER - i);
      int.set(i, -1 - i);
    }
    for (const i of at) {
      expect(float.get(i)).toBe(Number.MAX_SAFE_INTEGER - i);
      expect(int.get(i)).toBe(-1 - i);
    }
    float.set(2, Number.POSITIVE_INFINITY);
    expect(float.get(2)).toBe(Number.POSITIVE_INFINITY);
    expect(float.get(50_000)).toBe(0);
    expect(int.get(1_000_000)).toBe(0);
    int.clear();
    expect(int.get(0)).toBe(0);
  });
});

describe("HashIndex", () => {
  /** Keys kept beside the index, as a store keeps them; every key's hash is chosen by the test. */
  function indexOf(hashOf: (key: string) => number) {
    const index = new HashIndex(4);
    const keys: string[] = [];
    return {
      index,
      set(key: string) {
        keys.push(key);
        index.set(hashOf(key), (entry) => keys[entry] === key, keys.length - 1);
      },
      get: (key: string) => index.get(hashOf(key), (entry) => keys[entry] === key),
    };
  }

  it("S5: finds each key's newest entry when every key has the same hash, through several growths", () => {
    const t = indexOf(() => 7);
    for (let i = 0; i < 100; i++) t.set(`k${i}`);
    t.set("k3"); // entry 100 replaces entry 3
    expect(t.index.size).toBe(100);
    expect(t.get("k3")).toBe(100);
    for (let i = 0; i < 100; i++) if (i !== 3) expect(t.get(`k${i}`)).toBe(i);
    expect(t.get("k100")).toBe(-1);
  });

  it("S5: takes any 32-bit hash, signed or not, as the same hash", () => {
    const index = new HashIndex();
    index.set(0xffff_ffff, () => false, 5);
    expect(index.get(-1, () => true)).toBe(5);
    expect(index.get(0xffff_ffff, (entry) => entry === 5)).toBe(5);
    expect(index.get(-2, () => true)).toBe(-1);
  });

  it("S5: asks isKey only of entries whose hash matches", () => {
    const index = new HashIndex(4);
    for (let i = 0; i < 50; i++) index.set(i, () => false, i);
    const asked: number[] = [];
    expect(
      index.get(17, (entry) => {
        asked.push(entry);
        return true;
      }),
    ).toBe(17);
    expect(asked).toStrictEqual([17]);
  });

  it("S5: agrees with a Map for any sequence of sets and gets", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 300 }), (ops) => {
        // Hashes of 0-7 only: keys collide often.
        const t = indexOf((key) => Number(key) % 8);
        const model = new Map<string, number>();
        let entries = 0;
        for (const [write, k] of ops) {
          const key = String(k);
          if (write) {
            t.set(key);
            model.set(key, entries++);
          } else expect(t.get(key)).toBe(model.get(key) ?? -1);
        }
        expect(t.index.size).toBe(model.size);
      }),
    );
  });

  it("S5: holds nothing after clear()", () => {
    const index = new HashIndex();
    index.set(1, () => false, 0);
    index.clear();
    expect(index.size).toBe(0);
    expect(index.get(1, () => true)).toBe(-1);
    // And takes keys again, growing as before.
    for (let i = 0; i < 100; i++) index.set(i, () => false, i);
    expect(index.size).toBe(100);
    expect(index.get(99, (entry) => entry === 99)).toBe(99);
  });
});

describe("KeyedHash", () => {
  it("S5: is a function of its key and texts, and differs by key, by text and by where one text ends", () => {
    const a = new KeyedHash([1, 2]);
    const b = new KeyedHash([1, 3]);
    expect(a.of("order-1")).toBe(new KeyedHash([1, 2]).of("order-1"));
    expect(a.of("order-1")).not.toBe(b.of("order-1"));
    expect(a.of("order-1")).not.toBe(a.of("order-2"));
    expect(a.of("ab", "c")).not.toBe(a.of("a", "bc"));
    expect(a.of("abc")).not.toBe(a.of("ab", "c"));
    expect(a.of("x")).toBe(a.of("x", ""));
    expect(Number.isInteger(a.of("😀"))).toBe(true);
  });

  it("S5: spreads sequential keys evenly over the low bits an index probes", () => {
    const hash = new KeyedHash([0x1234_5678, 0x9abc_def0]); // a fixed key: the same counts every run
    const buckets = new Array<number>(256).fill(0);
    for (let i = 0; i < 25_600; i++) {
      const bucket = hash.of("usr_1", `bench-${i}`) & 255;
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    // 100 expected per bucket, with a standard deviation of 10: a fair hash keeps every one within 50-150.
    expect(Math.min(...buckets)).toBeGreaterThan(50);
    expect(Math.max(...buckets)).toBeLessThan(150);
  });
});
