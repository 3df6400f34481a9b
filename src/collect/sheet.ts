// The facts of one deployment as the collectors find them: each value with the lines that
// decided it, the facts looked at and left open (with why), and what the schema cannot say.
// `finish` checks the result against the loaded doctrine's facts schema, so a fact this
// doctrine does not know (or a value outside its enum) becomes an `inexpressible` entry
// instead of an invalid fact: the collectors can name facts of a newer doctrine safely.

import type { Doctrine } from '../doctrine/types.js';
import { SignetError } from '../errors.js';
import type { CollectedDeployment, FactSource, Inexpressible } from './types.js';

/** A place in a file: 1-based line. */
export interface At {
  file: string;
  line: number;
}

/** A line of the files that sets something a profile fact depends on. */
export interface Setting {
  at: At;
  why: string;
}

export class FactSheet {
  readonly #values = new Map<string, unknown>();
  readonly #sources = new Map<string, FactSource[]>();
  readonly #open = new Map<string, string>();
  readonly #inexpressible: Inexpressible[] = [];

  name: string;

  constructor(name: string) {
    this.name = name;
  }

  /** Decide `path`: the value and the line that shows it. A later decision of the same fact replaces it. */
  set(path: string, value: unknown, at: At, why: string): void {
    this.#values.set(path, value);
    this.#sources.set(path, [{ file: at.file, line: at.line, why }]);
    this.#open.delete(path);
  }

  /**
   * Decide `path` from a profile of the server (what it does by design, docs/checking.md): the
   * profile is the source, and each setting in the files that selects the behaviour is cited beside it.
   */
  setFromProfile(path: string, value: unknown, profile: { profile: string; version: string }, why: string, settings: Setting[] = []): void {
    this.#values.set(path, value);
    this.#sources.set(path, [{ ...profile, why }, ...settings.map((s) => ({ file: s.at.file, line: s.at.line, why: s.why }))]);
    this.#open.delete(path);
  }

  /** Decide `path` as another sheet did, with its sources (one proxy route read on its own). */
  adopt(path: string, value: unknown, sources: readonly FactSource[]): void {
    this.#values.set(path, value);
    this.#sources.set(path, [...sources]);
    this.#open.delete(path);
  }

  /** Each decided fact with its sources, in the order decided. */
  decisions(): { path: string; value: unknown; sources: readonly FactSource[] }[] {
    return [...this.#values].map(([path, value]) => ({ path, value, sources: this.#sources.get(path) ?? [] }));
  }

  /** Each fact looked at and left open, with why. */
  openFacts(): ReadonlyMap<string, string> {
    return this.#open;
  }

  /** One more line that bears on a decided fact. */
  also(path: string, at: At, why: string): void {
    this.#sources.get(path)?.push({ file: at.file, line: at.line, why });
  }

  /** Every file a decided fact cites. */
  files(): Set<string> {
    const out = new Set<string>();
    for (const list of this.#sources.values()) for (const s of list) if ('file' in s) out.add(s.file);
    return out;
  }

  has(path: string): boolean {
    return this.#values.has(path);
  }

  /** Decided, or looked at and left open with a reason a later, vaguer reader must not replace. */
  looked(path: string): boolean {
    return this.#values.has(path) || this.#open.has(path);
  }

  get(path: string): unknown {
    return this.#values.get(path);
  }

  /** Looked at and not decidable from the files; never overrides a decision. */
  undecided(path: string, why: string): void {
    if (!this.#values.has(path)) this.#open.set(path, why);
  }

  /** Forget a decision: a later reader found it cannot stand (e.g. an override we cannot see through). */
  reopen(path: string, why: string): void {
    this.#values.delete(path);
    this.#sources.delete(path);
    this.#open.set(path, why);
  }

  cannotSay(at: At, what: string, facts: string[] = []): void {
    this.#inexpressible.push({ file: at.file, line: at.line, what, facts: [...facts].sort() });
  }

  /** The deployment, checked against the doctrine's facts schema (or unchecked without a doctrine). */
  finish(doctrine: Doctrine | undefined): CollectedDeployment & { reasons: Record<string, string> } {
    const leaves = doctrine ? leafSchemas(doctrine) : null;
    const facts: Record<string, unknown> = {};
    const sources: Record<string, FactSource[]> = {};
    const inexpressible = [...this.#inexpressible];
    for (const path of [...this.#values.keys()].sort()) {
      const value = this.#values.get(path);
      const src = this.#sources.get(path) ?? [];
      const problem = leaves ? unfit(leaves, path, value) : null;
      if (problem) {
        const first = src[0] as { file: string; line: number; why: string } | undefined;
        inexpressible.push({
          file: first?.file ?? '',
          line: first?.line ?? 0,
          what: `${problem}: the files show ${path} = ${JSON.stringify(value)} (${first?.why ?? ''})`,
          facts: [path],
        });
        continue;
      }
      setPath(facts, path, value);
      sources[path] = [...src].sort(bySource);
    }
    const reasons: Record<string, string> = {};
    const decided = new Set(Object.keys(sources));
    const all = leaves ? [...leaves.keys()] : [...this.#open.keys()];
    const undecided = all.filter((p) => !decided.has(p)).sort();
    for (const p of undecided) {
      const why = this.#open.get(p);
      if (why !== undefined) reasons[p] = why;
    }
    if (doctrine && !doctrine.validateFacts(facts)) {
      // A collector bug, never the user's input: say which fact, never guess around it.
      const e = doctrine.validateFacts.errors?.[0];
      throw new SignetError(
        'internal_error',
        `collected facts for ${this.name} fail the facts schema at ${e?.instancePath}: ${e?.message}`,
      );
    }
    inexpressible.sort((a, b) => cmp(a.file, b.file) || a.line - b.line || cmp(a.what, b.what));
    return { name: this.name, facts, sources, undecided, reasons, inexpressible };
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The profile first, then file lines in order. */
function bySource(a: FactSource, b: FactSource): number {
  const pa = 'profile' in a ? 0 : 1;
  const pb = 'profile' in b ? 0 : 1;
  if (pa !== pb) return pa - pb;
  const fa = 'file' in a ? a.file : '';
  const fb = 'file' in b ? b.file : '';
  const la = 'line' in a ? a.line : 0;
  const lb = 'line' in b ? b.line : 0;
  return cmp(fa, fb) || la - lb || cmp(a.why, b.why);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]!] = value;
}

type Schema = { type?: string; enum?: unknown[]; items?: Schema; minimum?: number; maximum?: number; properties?: Record<string, Schema> };
const leafCache = new WeakMap<Doctrine, Map<string, Schema>>();

/** Every leaf fact of the doctrine's schema, by dotted path. */
export function leafSchemas(doctrine: Doctrine): Map<string, Schema> {
  let leaves = leafCache.get(doctrine);
  if (leaves) return leaves;
  leaves = new Map();
  const walk = (s: Schema, prefix: string) => {
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      const p = prefix ? `${prefix}.${k}` : k;
      if (v.type === 'object' && v.properties) walk(v, p);
      else leaves!.set(p, v);
    }
  };
  walk(doctrine.meta.facts_schema as Schema, '');
  leafCache.set(doctrine, leaves);
  return leaves;
}

/** Why `value` cannot be said as `path` under this schema, or null when it can. */
function unfit(leaves: Map<string, Schema>, path: string, value: unknown): string | null {
  const s = leaves.get(path);
  if (!s) return `the doctrine has no fact ${path}`;
  const one = (v: unknown, t: Schema): boolean => {
    if (t.enum && !t.enum.includes(v)) return false;
    if (t.type === 'boolean') return typeof v === 'boolean';
    if (t.type === 'integer')
      return (
        Number.isInteger(v) &&
        (t.minimum === undefined || (v as number) >= t.minimum) &&
        (t.maximum === undefined || (v as number) <= t.maximum)
      );
    if (t.type === 'string') return typeof v === 'string';
    return true;
  };
  if (s.type === 'array') return Array.isArray(value) && value.every((v) => one(v, s.items ?? {})) ? null : `${path} has no value for this`;
  return one(value, s) ? null : `${path} has no value for this`;
}
