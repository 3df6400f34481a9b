import { describe, expect, it } from 'vitest';
import { ByteByByteScan } from '../../../bench/byte-by-byte-scan.mjs';
import { JsonShapeGuard } from '../../../src/shared/json-shape.js';

const scan = (text: string, maxDepth = 4, maxNodes = 20, chunk = text.length) => {
  const guard = new JsonShapeGuard({ maxDepth, maxNodes });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) {
    const problem = guard.push(bytes.subarray(i, i + chunk));
    if (problem) return problem;
  }
  return null;
};

describe('JSON shape bound while reading', () => {
  it('passes bodies within the depth and node bounds, and refuses one level or one value past them', () => {
    expect(scan('[[[[1]]]]')).toBeNull();
    expect(scan('[[[[[1]]]]]')).toBe('the body nests deeper than 4 levels');
    expect(scan('{"a":{"b":{"c":{"d":1}}}}')).toBeNull();
    expect(scan('{"a":{"b":{"c":{"d":{}}}}}')).toBe('the body nests deeper than 4 levels');
    expect(scan(`[${'0,'.repeat(18)}0]`)).toBeNull(); // 1 array + 18 commas = 19
    expect(scan(`[${'0,'.repeat(20)}0]`)).toBe('the body holds more than 20 JSON values');
  });

  it('does not count brackets, commas or escaped quotes inside strings', () => {
    expect(scan(JSON.stringify({ s: '[[[[[[[[[[,,,,,,,,,,,,,,,,,,,,,,,,,,,]]]' }))).toBeNull();
    expect(scan(JSON.stringify({ s: 'a\\"[[[[[[[[[[', t: '\\\\' }))).toBeNull();
    expect(scan(JSON.stringify({ s: 'é[[[[[[[ — ✓ 🙂' }))).toBeNull();
  });

  it('keeps its state across chunk boundaries, one byte at a time included', () => {
    const nested = JSON.stringify({ s: '\\"[[[[[[', a: [[[1]]] });
    expect(scan(nested, 4, 20, 1)).toBeNull();
    expect(scan('[[[[[1]]]]]', 4, 20, 1)).toBe('the body nests deeper than 4 levels');
  });

  it("refuses the pen test's 1 MB nested array at the first byte past the bound, not after reading it all", () => {
    const n = 520_000;
    const guard = new JsonShapeGuard({ maxDepth: 64, maxNodes: 100_000 });
    const first = Buffer.from('['.repeat(16 * 1024)); // one socket read's worth
    expect(guard.push(first)).toBe('the body nests deeper than 64 levels');
    expect(scan('['.repeat(n) + ']'.repeat(n), 64, 100_000, 65536)).toBe('the body nests deeper than 64 levels');
  });
});

describe('JSON shape bound: escapes', () => {
  it('agrees with a byte-by-byte reading on escapes at every chunk boundary', () => {
    const tricky = JSON.stringify({ a: 'x\\', b: '\\"', c: '\\\\\\"[[[[[[', d: [[[[1]]]], e: 'é"\\', f: '' });
    for (let chunk = 1; chunk <= tricky.length; chunk++) {
      expect(scan(tricky, 5, 100, chunk), `chunk ${chunk}`).toBeNull();
      expect(scan(tricky, 4, 100, chunk), `chunk ${chunk}`).toBe('the body nests deeper than 4 levels');
    }
  });
});

describe('JSON shape bound: long strings', () => {
  /** The byte-by-byte reading the guard jumps through strings to match (bench/byte-by-byte-scan.mjs). */
  const reference = (bytes: Uint8Array, maxDepth: number, maxNodes: number) => new ByteByByteScan({ maxDepth, maxNodes }).push(bytes);

  it('agrees with the byte-by-byte reading on runs of backslashes and quotes, at every chunk size', () => {
    // Strings of backslash runs of every length before a quote, brackets and commas inside and out.
    const pieces = ['\\', '"', '[', ']', ',', 'a', '{', '}', 'é'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: 40 + (next() % 40) }, () => pieces[next() % pieces.length]).join('');
      const bytes = Buffer.from(text);
      for (const chunk of [1, 2, 3, 5, 8, bytes.length]) {
        const want = reference(bytes, 3, 12);
        expect(scan(text, 3, 12, chunk), `${JSON.stringify(text)} in chunks of ${chunk}`).toBe(want);
      }
    }
  });

  it('passes a megabyte string whose escaped quotes and brackets it skips, and still counts what follows', () => {
    const long = JSON.stringify({ query: `${'x'.repeat(500_000)}"[[[[[[${'\\'.repeat(33)}` });
    expect(scan(long, 4, 20, 65536)).toBeNull();
    expect(scan(`${long.slice(0, -1)},"b":[[[[1]]]]}`, 4, 20, 65536)).toBe('the body nests deeper than 4 levels');
  });
});
