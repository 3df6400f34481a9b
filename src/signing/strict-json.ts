// JSON with exactly one reading. JSON.parse keeps the last of two members with the same
// name while other parsers keep the first (RFC 8259 §4 leaves it open), so a signed output
// with a duplicate member could mean one thing to the verifier and another to its reader.
// jsonc-parser's scanner (VS Code's) reports every member and literal as it reads them, with
// the literal's own text: six times faster than building a syntax tree (momoa, used before:
// 90 ms for a 250 KB array of 126,000 numbers, 14 ms here; pen test M3), checked against momoa
// by a differential test. JSON.parse decides the grammar; the scanner only reports.
// The text must also be I-JSON (RFC 7493), which RFC 8785 requires of what it canonicalises:
// every number exactly a double (a decimal or big-number reader sees the same value) and no
// lone surrogate (which other parsers replace or refuse). Bytes are decoded strictly: a lenient
// decoder turns an invalid byte into U+FFFD, so one file would read as one text here and as
// another (or as nothing) to a strict or Latin-1 reader (pen test L2).
import { type JSONPath, visit } from 'jsonc-parser';

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

/** An integer literal of at most 15 digits, not -0: always exactly a double (2^53 has 16 digits). */
const SMALL_INTEGER = /^(?:0|-?[1-9]\d{0,14})$/;

/** Whether a number literal says exactly the double it reads as (the way JCS writes that double). */
function exactNumber(literal: string): boolean {
  // The common case, decided without the decimal arithmetic below.
  if (SMALL_INTEGER.test(literal)) return true;
  const value = Number(literal);
  return Number.isFinite(value) && decimal(literal) === decimal(JSON.stringify(value));
}

type Finding = { code: StrictParseCode; message: string };

/** A JSONPath as the messages print it: $."member"[0]. */
function where(path: JSONPath, member?: string): string {
  let out = '$';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : `.${JSON.stringify(segment)}`;
  return member === undefined ? out : `${out}.${JSON.stringify(member)}`;
}

/** The first member name repeated, inexact number or lone surrogate in text JSON.parse accepted; null when none. */
function firstAmbiguity(text: string): Finding | null {
  let finding: Finding | null = null;
  let unreadable = false;
  const members: Set<string>[] = [];
  visit(
    text,
    {
      onObjectBegin: () => {
        members.push(new Set());
      },
      onObjectEnd: () => {
        members.pop();
      },
      onObjectProperty: (name, _offset, _length, _line, _column, path) => {
        if (finding !== null) return;
        const seen = members[members.length - 1]!;
        if (seen.has(name)) finding = { code: 'duplicate_member', message: `member ${where(path(), name)} appears more than once` };
        else if (LONE_SURROGATE.test(name))
          finding = { code: 'string_lone_surrogate', message: `member name at ${where(path(), name)} holds a lone surrogate` };
        seen.add(name);
      },
      onLiteralValue: (value: unknown, offset, length, _line, _column, path) => {
        if (finding !== null) return;
        if (typeof value === 'number') {
          const literal = text.slice(offset, offset + length);
          if (!exactNumber(literal)) {
            finding = {
              code: 'number_inexact',
              message: `number ${literal.slice(0, 40)} at ${where(path())} is not exactly a double (it would read differently elsewhere)`,
            };
          }
        } else if (typeof value === 'string' && LONE_SURROGATE.test(value)) {
          finding = { code: 'string_lone_surrogate', message: `string at ${where(path())} holds a lone surrogate` };
        }
      },
      // Text JSON.parse accepted and the scanner did not: never expected, refused rather than half read.
      onError: () => {
        unreadable = true;
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  if (finding === null && unreadable) return { code: 'not_json', message: 'input could not be scanned for duplicate members' };
  return finding;
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, code: 'not_json', message: `input is not JSON (${(err as Error).message.slice(0, 120)})` };
  }
  const ambiguity = firstAmbiguity(text);
  return ambiguity ? { ok: false, ...ambiguity } : { ok: true, value };
}
