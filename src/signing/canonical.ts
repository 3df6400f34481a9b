import { configure } from 'safe-stable-stringify';
import { SignetError } from '../errors.js';

// RFC 8785 (JCS) for the signing path. JCS is JSON.stringify's number and string forms
// with object keys sorted by UTF-16 code units, which is what safe-stable-stringify's
// deterministic mode emits (default Array#sort order); strict mode throws on anything JSON
// cannot carry (NaN, Infinity, functions, symbols, bigint, cycles). Measured twice as fast
// as `canonicalize` on tool results (bench/RESULTS.md). The portable verifier keeps
// `canonicalize`, so signer and verifier are independent implementations that tests check
// against each other and against the RFC 8785 vectors.
const stringify = configure({ strict: true, deterministic: true, circularValue: TypeError, bigint: false });

// JSON.stringify escapes a lone surrogate as \udXXX; paired surrogates stay raw. JCS
// (I-JSON) forbids lone surrogates, so an escape preceded by an even run of backslashes
// (i.e. a real escape, not an escaped backslash followed by text) is refused.
const LONE_SURROGATE = /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

/** RFC 8785 (JCS) canonical JSON. Throws for values JSON cannot represent (NaN, lone surrogates...). */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = stringify(value);
  } catch (err) {
    throw new SignetError('invalid_arguments', `Value cannot be canonicalised as JSON: ${(err as Error).message}`);
  }
  if (text === undefined) throw new SignetError('invalid_arguments', 'Value has no JSON representation');
  if (text.includes('\\ud') && LONE_SURROGATE.test(text)) {
    throw new SignetError('invalid_arguments', 'Value cannot be canonicalised as JSON: a string holds a lone surrogate');
  }
  return text;
}

/** JCS member order: keys compared by UTF-16 code units, which is what `<` on strings does. */
export function byKey(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * JCS of an object whose members are already canonical JSON: `[key, canonicalValue]`
 * pairs in any order. Lets hot paths canonicalise fixed parts once and reuse them.
 */
export function canonicalObject(members: readonly (readonly [string, string])[]): string {
  const sorted = [...members].sort(byKey);
  let out = '{';
  for (let i = 0; i < sorted.length; i++) out += `${(i > 0 ? ',' : '') + JSON.stringify(sorted[i]![0])}:${sorted[i]![1]}`;
  return `${out}}`;
}

/**
 * Canonical JSON computed by its producer (from pre-canonicalised pieces), with the value
 * it stands for built only on demand: signing needs the text, not the object.
 */
export class PreCanonical {
  readonly json: string;
  readonly #valueOf: () => unknown;
  #value: unknown;
  #built = false;
  constructor(json: string, build: () => unknown) {
    this.json = json;
    this.#valueOf = build;
  }
  get value(): unknown {
    if (!this.#built) {
      this.#value = this.#valueOf();
      this.#built = true;
    }
    return this.#value;
  }
}
