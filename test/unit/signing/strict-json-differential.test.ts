// The strict reader (jsonc-parser's scanner since pen test M3 of issue 26) against a reference
// built on momoa's syntax tree, the parser it replaced: on generated texts with at most one
// ambiguity each (a repeated member however spelled, an inexact number literal, a lone
// surrogate) both must give the same verdict, and the same value when there is none.
import { parse as parseTree } from '@humanwhocodes/momoa';
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../../src/signing/strict-json.js';
import { rng } from '../../helpers/rng.js';

type Node = ReturnType<typeof parseTree>['body'];
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The reference: every number literal compared by value with its shortest spelling, through BigInt-free decimal strings. */
function exactByDecimal(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value) || Object.is(value, -0)) return false;
  const norm = (s: string) => {
    const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(s)!;
    const digits = (m[2]! + (m[3] ?? '')).replace(/^0+/, '');
    if (digits === '') return '0';
    const trimmed = digits.replace(/0+$/, '');
    return `${m[1]}${trimmed}e${Number(m[4] ?? 0) - (m[3] ?? '').length + (digits.length - trimmed.length)}`;
  };
  return norm(literal) === norm(JSON.stringify(value));
}

function reference(text: string): string {
  try {
    JSON.parse(text);
  } catch {
    return 'not_json';
  }
  const codes: string[] = [];
  const walk = (node: Node) => {
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const m of node.members) {
        const name = m.name.type === 'String' ? m.name.value : m.name.name;
        if (seen.has(name)) codes.push('duplicate_member');
        if (LONE.test(name)) codes.push('string_lone_surrogate');
        seen.add(name);
        walk(m.value);
      }
    } else if (node.type === 'Array') for (const e of node.elements) walk(e.value);
    else if (node.type === 'Number' && !exactByDecimal(text.slice(node.loc.start.offset, node.loc.end.offset)))
      codes.push('number_inexact');
    else if (node.type === 'String' && LONE.test(node.value)) codes.push('string_lone_surrogate');
  };
  walk(parseTree(text, { mode: 'json' }).body);
  return codes.length === 0 ? 'ok' : codes.length === 1 ? codes[0]! : 'several';
}

const EXACT = ['0', '1', '-1', '1.5', '0.1', '1e21', '1E21', '1e-7', '123456789012345', '-5e-324', '1.7976931348623157e308', '2.5e+3'];
const INEXACT = ['-0', '-0.0', '12345678901234567890', '0.10000000000000001', '1e400', '1e-400', '9007199254740993', '1.00000000000000001'];
const NAMES = [
  ['"a"', '"\\u0061"'],
  ['"ok"', '"o\\u006b"'],
  ['"é"', '"\\u00e9"'],
  ['"😀"', '"\\ud83d\\ude00"'],
  ['"x y"', '"x\\u0020y"'],
] as const;
const STRINGS = ['"plain"', '"tab\\tnew\\nline"', '"\\u2028 sep"', '"😀"', '"\\ud83d\\ude00"', '"quote \\" and \\\\"'];
const LONE_STRINGS = ['"\\ud800"', '"a\\udc00"', '"\\ud83d x"'];

function generate(next: () => number): { text: string; fault: string } {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const fault = pick(['ok', 'ok', 'duplicate_member', 'number_inexact', 'string_lone_surrogate', 'name_lone_surrogate']);
  let planted = fault === 'ok';
  const value = (depth: number): string => {
    const r = next();
    if (depth > 3 || r < 0.35) {
      if (!planted && next() < 0.2 && (fault === 'number_inexact' || fault === 'string_lone_surrogate')) {
        planted = true;
        return fault === 'number_inexact' ? pick(INEXACT) : pick(LONE_STRINGS);
      }
      return next() < 0.5 ? pick(EXACT) : pick(STRINGS);
    }
    if (r < 0.6) return `[${Array.from({ length: 1 + Math.floor(next() * 4) }, () => value(depth + 1)).join(',')}]`;
    const pairs = NAMES.slice(0, 1 + Math.floor(next() * NAMES.length)).map((spellings, i) => `${spellings[i % 2]}:${value(depth + 1)}`);
    if (!planted && fault === 'duplicate_member' && next() < 0.5) {
      planted = true;
      const [plain, escaped] = pick(NAMES.slice(0, pairs.length));
      pairs.push(`${next() < 0.5 ? plain : escaped}:${value(depth + 1)}`);
    }
    if (!planted && fault === 'name_lone_surrogate' && next() < 0.5) {
      planted = true;
      pairs.push(`"k\\udbff":${pick(EXACT)}`);
    }
    return `{${pairs.join(',')}}`;
  };
  const text = `{"root":${value(0)}}`;
  return { text, fault: planted ? fault : 'unplanted' };
}

describe('strict JSON reader: jsonc-parser scan vs the momoa reference', () => {
  it('agrees on 3,000 generated texts with at most one ambiguity, every kind planted many times', () => {
    const next = rng(20261127);
    const planted = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const { text, fault } = generate(next);
      const expected = reference(text);
      if (expected === 'several') continue; // a second fault by chance: the two may name either first
      const got = parseStrictJson(text);
      expect(got.ok ? 'ok' : got.code, text).toBe(expected);
      if (got.ok) expect(got.value).toEqual(JSON.parse(text));
      planted.set(expected, (planted.get(expected) ?? 0) + 1);
      if (fault !== 'unplanted' && fault !== 'ok') expect(expected, text).not.toBe('ok');
    }
    // Each verdict was reached often enough to mean something.
    for (const code of ['ok', 'duplicate_member', 'number_inexact', 'string_lone_surrogate'])
      expect(planted.get(code) ?? 0, code).toBeGreaterThan(100);
  });

  it('reads bytes and text the same, and refuses what JSON.parse refuses whatever the scanner would do', () => {
    for (const text of ['{"a":1,}', '{"a":1} // c', '{"a":1}\u0000', '\ufeff{}', '{"a":01}', '{"a":.5}', '[1,2', '', ' ']) {
      const got = parseStrictJson(text);
      expect(got.ok, JSON.stringify(text)).toBe(false);
      expect(got.ok ? '' : got.code).toBe('not_json');
      expect(parseStrictJson(new TextEncoder().encode(text))).toEqual(got);
    }
    expect(parseStrictJson('{"a":{"b":[1,{"c":2,"\\u0063":3}]}}')).toMatchObject({
      ok: false,
      code: 'duplicate_member',
      message: 'member $."a"."b"[1]."c" appears more than once',
    });
  });
});
