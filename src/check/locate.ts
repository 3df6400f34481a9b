// Where a finding comes from: the sources of the facts its rule reads, the facts its check
// reads first (they decided the outcome), then those that made the rule apply. SARIF, JUnit
// and the text view all point at these places.
import type { FactSource } from '../collect/types.js';
import { perDoctrine } from '../doctrine/facts.js';
import { scanLogic } from '../doctrine/json-logic.js';
import type { Doctrine, Rule } from '../doctrine/types.js';
import { type Declared, declaredFor } from './declared.js';
import type { CheckedDeployment } from './report.js';

export interface Place {
  /** A file path (collected or declared), or null for a probe exchange or a server's profile. */
  file: string | null;
  line: number | null;
  /** The dotted fact this place decided. */
  fact: string;
  /** `file`, `declared`, `profile` or `probe`; for a probe the evidence id, for a profile its name and version. */
  kind: 'file' | 'declared' | 'profile' | 'probe';
  probe?: string;
  profile?: string;
  why: string;
}

interface RuleFacts {
  rule: Rule;
  /** Facts the check reads, then the rest of those the rule reads. */
  ordered: string[];
}

const ruleFacts = perDoctrine((doctrine: Doctrine) => {
  const map = new Map<string, RuleFacts>();
  for (const rule of doctrine.rules) {
    const check = [...scanLogic(rule.check).vars].sort();
    map.set(rule.id, { rule, ordered: [...check, ...rule.facts.filter((f) => !check.includes(f))] });
  }
  return map;
});

export function ruleOf(doctrine: Doctrine, id: string): Rule | undefined {
  return ruleFacts(doctrine).get(id)?.rule;
}

const RANK = { file: 0, declared: 1, profile: 2, probe: 3 } as const;
/** Code-unit order: the same in every locale, so the same report gives the same bytes everywhere. */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function placeOf(s: FactSource, fact: string, declared: Declared | null, deployment: string): Place {
  if ('file' in s) return { file: s.file, line: s.line, fact, kind: 'file', why: s.why };
  if ('probe' in s) return { file: null, line: null, fact, kind: 'probe', probe: s.probe, why: s.why };
  if ('profile' in s) return { file: null, line: null, fact, kind: 'profile', profile: `${s.profile} ${s.version}`, why: s.why };
  const line = declared && declared.path === s.declared ? (declaredFor(declared, deployment).line(fact) ?? null) : null;
  return { file: s.declared, line, fact, kind: 'declared', why: s.why };
}

/** The places behind a finding, most telling first: file sources, then declared, then probe, per fact. */
export function placesOf(doctrine: Doctrine, deployment: CheckedDeployment, ruleId: string, declared: Declared | null): Place[] {
  const facts = ruleFacts(doctrine).get(ruleId)?.ordered ?? [];
  const out: Place[] = [];
  const seen = new Set<string>();
  for (const fact of facts) {
    const places = (deployment.sources[fact] ?? [])
      .map((s) => placeOf(s, fact, declared, deployment.name))
      .sort((a, b) => RANK[a.kind] - RANK[b.kind] || byText(a.file ?? '', b.file ?? '') || (a.line ?? 0) - (b.line ?? 0));
    for (const p of places) {
      const key = `${p.file}:${p.line}:${p.probe}:${p.profile}:${p.fact}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}

/** `file:line`, `file`, `profile signet 0.1.0` or `probe <id>`. */
export function placeLabel(p: Place): string {
  if (p.kind === 'profile') return `profile ${p.profile ?? ''}`.trim();
  if (p.file === null) return `probe ${p.probe ?? ''}`.trim();
  return p.line === null ? p.file : `${p.file}:${p.line}`;
}

/** Facts whose file source is where the files declare the deployment: the service or workload, the client entry. */
const DECLARING = ['container.used', 'transport.kind'];

export interface Anchor {
  /** A file path, or `.` (the root the paths are relative to) when no file describes the deployment. */
  file: string;
  line: number;
  /** Why the result is pinned here, for a reader who finds no failing fact on that line. */
  why: string;
}

/**
 * Where to pin a finding whose facts have no file source (the probe decided them): the line that
 * declares the deployment (its Compose service or Kubernetes workload, its client entry), else
 * its first file source, else the declared-facts file, else the root of the checked paths.
 * Code scanning keeps only results with a file location (GitHub: "expected at least one location").
 */
export function anchorOf(deployment: CheckedDeployment, declared: Declared | null): Anchor {
  for (const fact of DECLARING) {
    const s = (deployment.sources[fact] ?? [])
      .filter((x): x is Extract<FactSource, { file: string }> => 'file' in x)
      .sort((a, b) => byText(a.file, b.file) || a.line - b.line)[0];
    if (s) return { file: s.file, line: s.line, why: `where the files declare deployment "${deployment.name}"` };
  }
  let best: { file: string; line: number } | null = null;
  for (const list of Object.values(deployment.sources)) {
    for (const s of list) {
      if (!('file' in s)) continue;
      if (!best || s.file < best.file || (s.file === best.file && s.line < best.line)) best = { file: s.file, line: s.line };
    }
  }
  if (best) return { ...best, why: `the first file line deployment "${deployment.name}" is described by` };
  if (declared)
    return { file: declared.path, line: 1, why: `no file describes deployment "${deployment.name}": the declared facts stand for it` };
  // Line 1: code scanning and the SARIF validators want a region, and a root has no other.
  return { file: '.', line: 1, why: `no file describes deployment "${deployment.name}": pinned to the root of the checked paths` };
}
