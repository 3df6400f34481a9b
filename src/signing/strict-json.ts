// JSON with exactly one reading. JSON.parse keeps the last of two members with the same
// name while other parsers keep the first (RFC 8259 §4 leaves it open), so a signed output
// with a duplicate member could mean one thing to the verifier and another to its reader.
// momoa (a strict JSON parser that keeps every member in its syntax tree) finds them.
// The text must also be I-JSON (RFC 7493), which RFC 8785 requires of what it canonicalises:
// every number exactly a double (a decimal or big-number reader sees the same value) and no
// lone surrogate (which other parsers replace or refuse). Bytes are decoded strictly: a lenient
// decoder turns an invalid byte into U+FFFD, so one file would read as one text here and as
// another (or as nothing) to a strict or Latin-1 reader (pen test L2).
import { parse as parseTree } from '@humanwhocodes/momoa';

type Node = ReturnType<typeof parseTree>['body'];

export type StrictParseCode = 'not_json' | 'duplicate_member' | 'number_inexact' | 'string_lone_surrogate';
export type StrictParse = { ok: true; value: unknown } | { ok: false; code: StrictParseCode; message: string };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A JSON number literal as sign, significant digits and exponent: "1.50e3" and "1500" both give "15e2". */
function decimal(literal: string): string | null {
  const m = NUMBER.exec(literal);
  if (!m) return null;
  let digits = (m[2]! + (m[3] ?? '')).replace(/^0+/, '');
  if (digits === '') return `${m[1]}0`;
  let exponent = BigInt(m[4] ?? '0') - BigInt((m[3] ?? '').length);
  const trimmed = digits.replace(/0+$/, '');
  exponent += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return `${m[1]}${digits}e${exponent}`;
}

/** Whether a number literal says exactly the double it reads as (the way JCS writes that double). */
function exactNumber(literal: string): boolean {
  const value = Number(literal);
  return Number.isFinite(value) && decimal(literal) === decimal(JSON.stringify(value));
}

type Finding = { code: Exclude<StrictParseCode, 'not_json'>; message: string };

function firstAmbiguity(root: Node, text: string): Finding | null {
  const stack: [Node, string][] = [[root, '$']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        const at = `${path}.${JSON.stringify(name)}`;
        if (seen.has(name)) return { code: 'duplicate_member', message: `member ${at} appears more than once` };
        if (LONE_SURROGATE.test(name)) return { code: 'string_lone_surrogate', message: `member name at ${at} holds a lone surrogate` };
        seen.add(name);
        stack.push([member.value, at]);
      }
    } else if (node.type === 'Array') {
      for (const [i, element] of node.elements.entries()) stack.push([element.value, `${path}[${i}]`]);
    } else if (node.type === 'Number') {
      const literal = text.slice(node.loc.start.offset, node.loc.end.offset);
      if (!exactNumber(literal)) {
        return {
          code: 'number_inexact',
          message: `number ${literal.slice(0, 40)} at ${path} is not exactly a double (it would read differently elsewhere)`,
        };
      }
    } else if (node.type === 'String' && LONE_SURROGATE.test(node.value)) {
      return { code: 'string_lone_surrogate', message: `string at ${path} holds a lone surrogate` };
    }
  }
  return null;
}

/** Whether a value is bytes (a Uint8Array or Buffer), from this realm or another (a frame, a VM context). */
export function isBytes(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]';
}

/**
 * UTF-8 bytes as text, or null when they are not UTF-8 (RFC 8259 §8.1, RFC 7493 §2.1). A byte
 * order mark is kept, so the parser refuses it as it refuses it in text.
 */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Parses JSON text or UTF-8 bytes, refusing it when it has more than one reading (see above). */
export function parseStrictJson(input: string | Uint8Array): StrictParse {
  const text = typeof input === 'string' ? input : strictUtf8(input);
  if (text === null) return { ok: false, code: 'not_json', message: 'input is not UTF-8 (RFC 8259 §8.1): it would read two ways' };
  let tree: ReturnType<typeof parseTree>;
  let value: unknown;
  try {
    tree = parseTree(text, { mode: 'json' });
    // momoa checks the grammar and members; JSON.parse builds the value (own properties,
    // __proto__ included). Text only one of them accepts (momoa lets raw control characters
    // through) is not JSON.
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, code: 'not_json', message: `input is not JSON (${(err as Error).message.slice(0, 120)})` };
  }
  const ambiguity = firstAmbiguity(tree.body, text);
  return ambiguity ? { ok: false, ...ambiguity } : { ok: true, value };
}
