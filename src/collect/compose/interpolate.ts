// Variable interpolation as Docker Compose does it (compose-spec interpolation.md and
// compose-go's template package): $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
// ${VAR:?error}, ${VAR?error}, ${VAR:+alternative}, ${VAR+alternative}, nested in defaults, and
// $$ for a literal $. Only the variables handed in are known (a .env file, --env): the shell
// of whoever runs the collector is never read, so the result does not depend on the machine.

/**
 * A value that depends on a variable the files do not set (and that has no default), or, where
 * a required .env is missing from the files, on any variable that file may set.
 */
export class Unresolved {
  readonly variables: string[];
  /** The text with the unset variables left empty (or at their defaults), as Compose would use it. */
  readonly asEmpty: string;
  /** A `:?`/`?` message: Compose refuses to start without the variable. */
  readonly required: string | null;
  /** Every variable it depends on has a default written in the file: asEmpty is the file's fallback. */
  readonly fallback: boolean;
  /** A file the files do not hold may set its variables: asEmpty is not what Compose will use. */
  readonly opaque: boolean;
  /** The text with each unset variable written `${NAME}`: a bind mount of `${HOME}/.config` is still of the home directory. */
  readonly template: string;

  constructor(variables: string[], asEmpty: string, required: string | null, fallback = false, opaque = false, template = asEmpty) {
    this.variables = variables;
    this.asEmpty = asEmpty;
    this.required = required;
    this.fallback = fallback;
    this.opaque = opaque;
    this.template = template;
  }
}

export type Interpolated = string | Unresolved;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * Interpolate one string with `env`. `opaque`: a file the files do not hold may set any variable
 * (a required .env that is missing), so a variable not in `env` is unknown even with a default.
 */
export function interpolate(text: string, env: ReadonlyMap<string, string>, opaque = false): Interpolated {
  const unset: string[] = [];
  const defaulted = new Set<string>();
  let required: string | null = null;
  let mark = false;
  const run = (s: string, depth: number): string => {
    if (depth > 8) throw new Error('interpolation nested more than 8 levels');
    let out = '';
    let i = 0;
    while (i < s.length) {
      const c = s[i]!;
      if (c !== '$') {
        out += c;
        i++;
        continue;
      }
      const next = s[i + 1];
      if (next === '$') {
        out += '$';
        i += 2;
        continue;
      }
      if (next === '{') {
        const end = closing(s, i + 2);
        if (end < 0) throw new Error(`unclosed \${ in "${s}"`);
        out += expand(s.slice(i + 2, end), depth);
        i = end + 1;
        continue;
      }
      const m = NAME.exec(s.slice(i + 1));
      if (m) {
        out += lookup(m[0]);
        i += 1 + m[0].length;
        continue;
      }
      out += '$';
      i++;
    }
    return out;
  };
  const lookup = (name: string): string => {
    const v = env.get(name);
    if (v === undefined) unset.push(name);
    return v ?? (mark ? `\${${name}}` : '');
  };
  const expand = (body: string, depth: number): string => {
    const m = NAME.exec(body);
    if (!m) throw new Error(`invalid interpolation "\${${body}}"`);
    const name = m[0];
    const rest = body.slice(name.length);
    const value = env.get(name);
    if (rest === '') return lookup(name);
    const op = /^(:?[-?+])/.exec(rest)?.[1];
    if (!op) throw new Error(`invalid interpolation "\${${body}}"`);
    const arg = rest.slice(op.length);
    const empty = value === undefined || (op.startsWith(':') && value === '');
    if (value === undefined && opaque) {
      unset.push(name);
      if (op.endsWith('-')) defaulted.add(name);
      return op.endsWith('-') ? run(arg, depth + 1) : mark ? `\${${name}}` : '';
    }
    switch (op.replace(':', '')) {
      case '-':
        return empty ? run(arg, depth + 1) : value!;
      case '+':
        return empty ? '' : run(arg, depth + 1);
      default:
        if (empty) {
          unset.push(name);
          required = run(arg, depth + 1) || `${name} is required`;
          return mark ? `\${${name}}` : '';
        }
        return value!;
    }
  };
  const text2 = run(text, 0);
  const vars = [...new Set(unset)];
  if (!vars.length) return text2;
  const fallback = vars.every((n) => defaulted.has(n));
  const why = required;
  mark = true;
  return new Unresolved(vars, text2, why, fallback, opaque, run(text, 0));
}

/** The index of the `}` closing a `${` whose body starts at `from` (nested `${...}` allowed). */
function closing(s: string, from: number): number {
  let depth = 1;
  for (let i = from; i < s.length; i++) {
    if (s[i] === '$' && s[i + 1] === '{') {
      depth++;
      i++;
    } else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Interpolate every string in a parsed compose file (keys are not interpolated, as in Compose). */
export function interpolateTree(value: unknown, env: ReadonlyMap<string, string>, opaque = false): unknown {
  if (typeof value === 'string') return interpolate(value, env, opaque);
  if (Array.isArray(value)) return value.map((v) => interpolateTree(v, env, opaque));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateTree(v, env, opaque)]));
  }
  return value;
}

/**
 * A .env file as Compose reads it (compose-go dotenv): KEY=VALUE lines, `export ` prefixes,
 * # comments, single quotes literal, double quotes with \n escapes, unquoted values trimmed and
 * cut at " #". Values interpolate earlier keys, as Compose does.
 */
export function parseDotenv(text: string): { values: Map<string, string>; lines: Map<string, number> } {
  const values = new Map<string, string>();
  const lines = new Map<string, number>();
  const rows = text.split(/\r?\n/);
  for (let n = 0; n < rows.length; n++) {
    let row = rows[n]!.trim();
    if (row === '' || row.startsWith('#')) continue;
    if (row.startsWith('export ')) row = row.slice(7).trim();
    const eq = row.indexOf('=');
    if (eq <= 0) continue;
    const key = row.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) continue;
    let raw = row.slice(eq + 1).trim();
    let value: string;
    if (raw.startsWith("'")) {
      const end = raw.indexOf("'", 1);
      value = end > 0 ? raw.slice(1, end) : raw.slice(1);
    } else if (raw.startsWith('"')) {
      let end = 1;
      while (end < raw.length && !(raw[end] === '"' && raw[end - 1] !== '\\')) end++;
      value = raw
        .slice(1, end)
        .replace(/\\n/g, '\n')
        .replace(/\\(["\\])/g, '$1');
      const v = interpolate(value, values);
      value = typeof v === 'string' ? v : v.asEmpty;
    } else {
      const hash = raw.search(/\s#/);
      if (hash >= 0) raw = raw.slice(0, hash).trim();
      const v = interpolate(raw, values);
      value = typeof v === 'string' ? v : v.asEmpty;
    }
    values.set(key, value);
    lines.set(key, n + 1);
  }
  return { values, lines };
}
