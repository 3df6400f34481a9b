// `RUN if [ "$INSTALL_MITRE_CERTS" = "true" ]; then curl … | sh; fi` after `ARG INSTALL_MITRE_CERTS=false`
// (jeeftor/abs-mcp): a step a build arg leaves off by default does not decide how the image is built.
// Only an `if` whose test compares what the files fix is settled; any other stays as written, both
// branches read.

/** Set by BuildKit for the platform it builds, whatever default the Dockerfile writes. */
const PLATFORM = /^(TARGET|BUILD)(PLATFORM|OS|ARCH|VARIANT)$/;

interface Keyword {
  word: 'if' | 'then' | 'elif' | 'else' | 'fi';
  start: number;
  end: number;
}

/**
 * The shell text with each settled `if … fi` replaced by the branch the build takes: its `then` part
 * when the test holds, its `else` part (or nothing) when not. `fixedValue` gives a build arg's or ENV's
 * value where the files fix it, undefined where they do not.
 */
export function takenBranches(shell: string, fixedValue: (name: string) => string | undefined): string {
  let text = shell.replace(/\\\r?\n/g, ' ');
  // Each pass settles the first `if` it can, outermost first; the text changes, so look again.
  for (let pass = 0; pass < 64; pass++) {
    const blocks = ifBlocks(keywords(text));
    if (blocks === null) return text;
    const settled = blocks
      .map((b) => ({ b, holds: testHolds(text.slice(b.ifKw.end, b.thenKw.start), fixedValue) }))
      .find((x) => x.holds !== null);
    if (!settled) return text;
    const { b, holds } = settled;
    const branch = holds ? text.slice(b.thenKw.end, (b.elseKw ?? b.fiKw).start) : b.elseKw ? text.slice(b.elseKw.end, b.fiKw.start) : '';
    text = `${text.slice(0, b.ifKw.start)}${branch.trim() ? branch : ' true '}${text.slice(b.fiKw.end)}`;
  }
  return text;
}

/** The shell's `if`/`then`/`elif`/`else`/`fi` words where a command starts, quotes skipped. */
function keywords(text: string): Keyword[] {
  const out: Keyword[] = [];
  let atCommand = true;
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const close = closingQuote(text, i);
      if (close < 0) return out;
      i = close + 1;
      atCommand = false;
      continue;
    }
    // `{` opens a group (not `${VAR}`).
    if (/[;&|(\n]/.test(c) || (c === '{' && text[i - 1] !== '$')) {
      atCommand = true;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const word = /^[^\s;&|()'"]*/.exec(text.slice(i))![0] || c;
    const kw: boolean = /^(if|then|elif|else|fi)$/.test(word) && atCommand && /^($|[\s;&|)])/.test(text.slice(i + word.length));
    if (kw) out.push({ word: word as Keyword['word'], start: i, end: i + word.length });
    // After `then`, `else` or `if` a command starts; after any other word, its arguments.
    atCommand = kw && word !== 'fi';
    i += word.length;
  }
  return out;
}

function closingQuote(text: string, open: number): number {
  const q = text[open]!;
  for (let i = open + 1; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) return i;
  }
  return -1;
}

interface Block {
  ifKw: Keyword;
  thenKw: Keyword;
  elseKw?: Keyword;
  fiKw: Keyword;
}

/** Each `if … then … [else …] fi`, outermost first; `elif` chains stay as written; null when the words do not nest. */
function ifBlocks(kws: Keyword[]): Block[] | null {
  const open: { ifKw: Keyword; thenKw?: Keyword; elseKw?: Keyword; elif: boolean }[] = [];
  const blocks: Block[] = [];
  for (const k of kws) {
    const top = open.at(-1);
    if (k.word === 'if') open.push({ ifKw: k, elif: false });
    else if (!top) return null;
    else if (k.word === 'then') top.thenKw ??= k;
    else if (k.word === 'elif') top.elif = true;
    else if (k.word === 'else') top.elseKw = k;
    else {
      open.pop();
      if (!top.thenKw) return null;
      if (!top.elif) blocks.push({ ifKw: top.ifKw, thenKw: top.thenKw, elseKw: top.elseKw, fiKw: k });
    }
  }
  if (open.length) return null;
  return blocks.sort((a, b) => a.ifKw.start - b.ifKw.start);
}

/**
 * `[ "$X" = "true" ]`, `[[ $X == 1 ]]`, `test "$X" != x`, `[ -n "$X" ]`, `[ -z "$X" ]`: true or false when
 * every side is fixed by the files, null otherwise (any other test, a command, `&&` or `||` inside).
 */
function testHolds(test: string, fixedValue: (name: string) => string | undefined): boolean | null {
  const t = test.trim().replace(/;$/, '').trim();
  const m = /^(?:\[\[?|test)\s+(.*?)\s*(?:\]\]?)?$/.exec(t);
  if (!m || (t.startsWith('[') && !t.endsWith(']'))) return null;
  const words = m[1]!.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  const value = (w: string): string | undefined => {
    if (/^'[^']*'$/.test(w)) return w.slice(1, -1);
    const inner = /^"[^"]*"$/.test(w) ? w.slice(1, -1) : w;
    const v = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(inner);
    if (!v) return /[$`\\*?[]/.test(inner) ? undefined : inner;
    const fixed = PLATFORM.test(v[1]!) ? undefined : fixedValue(v[1]!);
    // A value that itself names a variable the files leave open.
    return fixed?.includes('$') ? undefined : fixed;
  };
  if (words.length === 2 && (words[0] === '-n' || words[0] === '-z')) {
    const v = value(words[1]!);
    return v === undefined ? null : (v !== '') === (words[0] === '-n');
  }
  if (words.length !== 3 || !['=', '==', '!='].includes(words[1]!)) return null;
  const a = value(words[0]!);
  const b = value(words[2]!);
  if (a === undefined || b === undefined) return null;
  return (a === b) === (words[1] !== '!=');
}
