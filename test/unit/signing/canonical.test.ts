import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { SignetError } from '../../../src/errors.js';
import { canonicalJson } from '../../../src/signing/canonical.js';

function fromHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalJson (RFC 8785)', () => {
  it('matches the RFC 8785 section 3.2.2 sample', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'];
    expect(canonicalJson(input)).toBe(`{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k])}`).join(',')}}`);
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ])('serialises IEEE 754 %s as %s (RFC 8785 appendix B)', (hex, expected) => {
    expect(canonicalJson(fromHex(hex))).toBe(expected);
  });

  it('refuses NaN, Infinity and lone surrogates', () => {
    expect(() => canonicalJson({ a: NaN })).toThrow(/NaN/);
    expect(() => canonicalJson([Infinity])).toThrow(/Infinity/);
    expect(() => canonicalJson({ s: '\ud800' })).toThrow(/surrogate/i);
  });

  it('is independent of key insertion order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 4, e: 5 }] } })).toBe(canonicalJson({ a: { c: [3, { e: 5, f: 4 }], d: 2 }, b: 1 }));
  });

  it('handles nesting far past the dispatcher limit, and answers absurd depth with an error, not a crash', () => {
    const nest = (n: number) => {
      let deep: unknown = 1;
      for (let i = 0; i < n; i++) deep = [deep];
      return deep;
    };
    // Tool arguments are refused beyond 32 levels before they are canonicalised.
    expect(canonicalJson(nest(1000))).toHaveLength(2001);
    expect(() => canonicalJson(nest(1_000_000))).toThrow(SignetError);
  });

  it('accepts the text of an escape (an escaped backslash before "ud800"), which is not a lone surrogate', () => {
    expect(canonicalJson({ s: '\\ud800', t: 'a\\\\ud83d' })).toBe(canonicalize({ s: '\\ud800', t: 'a\\\\ud83d' }));
    expect(() => canonicalJson({ s: '\\\udc00' })).toThrow(/surrogate/i);
    expect(canonicalJson('\ud83d\ude00')).toBe('"\u{1f600}"'); // a paired surrogate stays raw
  });

  it("agrees with the independent `canonicalize` implementation (the verifier's) on random JSON", () => {
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pieces = [
      'a',
      'B',
      '1',
      '10',
      '2',
      'é',
      '€',
      '\ud83d\ude00',
      '\ufb33',
      '\r',
      '"',
      '\\',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u2028',
      ' ',
    ];
    const str = () => Array.from({ length: Math.floor(next() * 4) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
    const num = () =>
      [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123456789.123, 2 ** 53, -(2 ** 31), 5e-324, Math.floor(next() * 1e6) / 7][Math.floor(next() * 12)]!;
    const value = (depth: number): unknown => {
      const k = next();
      if (depth > 4 || k < 0.3) return [str(), num(), true, false, null][Math.floor(next() * 5)];
      if (k < 0.6) return Array.from({ length: Math.floor(next() * 5) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 6) }, () => [str(), value(depth + 1)]));
    };
    for (let i = 0; i < 2000; i++) {
      const v = value(0);
      expect(canonicalJson(v)).toBe(canonicalize(v));
    }
  });
});
