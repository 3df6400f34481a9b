// The evaluator checked against slow, independent references on random facts:
// - statuses against brute force with json-logic-js (the reference JSON Logic implementation):
//   a rule is decided exactly when every way of filling in its missing facts decides it the
//   same way, so a missing fact can never pass, fail or excuse a rule on its own;
//   the evaluator runs on every sample, the brute force once per distinct value of the facts
//   a rule reads (its `when` and `check` read nothing else), about one comparison in seven;
// - the facts an undetermined finding names are enough to decide it;
// - the canonical bytes the tools layer assembles against `canonicalize` (RFC 8785).
import canonicalize from 'canonicalize';
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { evaluateFacts, type FindingStatus } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import type { Rule } from '../../../src/doctrine/types.js';
import { canonicalEvaluation } from '../../../src/tools/canonical-result.js';
import { DEFAULT_DOCTRINE } from '../../helpers/paths.js';
import { rng } from '../../helpers/rng.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);

type Schema = {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  minItems?: number;
};

const INTERESTING = [59, 60, 61, 90, 300, 365, 1024];

/** Every non-empty subset of `values`, in a fixed order. */
const subsets = (values: unknown[]) =>
  Array.from({ length: 2 ** values.length - 1 }, (_, m) => values.filter((_, i) => ((m + 1) >> i) & 1));

/** Values a leaf fact can take: all of them for booleans, enums and enum sets; telling ones for integers. */
function domain(schema: Schema, constants: number[]): unknown[] {
  if (schema.enum) return schema.enum;
  if (schema.type === 'boolean') return [true, false];
  if (schema.type === 'array' && schema.items?.enum) return subsets(schema.items.enum);
  if (schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? 1_000_000;
    const around = [...constants, ...INTERESTING].flatMap((c) => [c - 1, c, c + 1]);
    return [...new Set([min, min + 1, max, ...around])].filter((n) => n >= min && n <= max).sort((a, b) => a - b);
  }
  throw new Error(`the reference does not know fact type ${String(schema.type)}: extend it`);
}

/** Facts valid against the schema, each fact present with probability `presence`. */
function randomFacts(schema: Schema, next: () => number, presence: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (next() > presence) continue;
    if (sub.type === 'object') out[key] = randomFacts(sub, next, presence);
    else {
      const values = domain(sub, [Math.floor(next() * 1000)]);
      out[key] = values[Math.floor(next() * values.length)];
    }
  }
  return out;
}

function schemaAt(path: string): Schema {
  let node = doctrine.meta.facts_schema as Schema;
  for (const part of path.split('.')) node = node.properties![part]!;
  return node;
}

function has(facts: Record<string, unknown>, path: string): boolean {
  let node: unknown = facts;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== undefined;
}

function withFact(facts: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const out = structuredClone(facts);
  const parts = path.split('.');
  let node = out;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts.at(-1)!] = value;
  return out;
}

function numbersIn(logic: unknown): number[] {
  if (typeof logic === 'number') return [logic];
  if (logic === null || typeof logic !== 'object') return [];
  return Object.values(logic).flatMap(numbersIn);
}

function valueAt(facts: Record<string, unknown>, path: string): unknown {
  let node: unknown = facts;
  for (const part of path.split('.')) node = (node as Record<string, unknown>)[part];
  return node;
}

/**
 * The facts a rule reads, alone, in the order of `rule.facts`: its `when` and `check` read
 * nothing else (the loader collects `rule.facts` from every `var` in them), so whatever
 * depends only on the rule and these facts can be computed once per distinct value.
 */
function readBy(rule: Rule, facts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of rule.facts) {
    if (!has(facts, path)) continue;
    const parts = path.split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = valueAt(facts, path);
  }
  return out;
}

/** Every way of filling in the rule's missing facts (in the facts it reads). */
function completions(rule: Rule, facts: Record<string, unknown>): Record<string, unknown>[] {
  const constants = [...numbersIn(rule.when), ...numbersIn(rule.check)];
  let all = [readBy(rule, facts)];
  for (const path of rule.facts.filter((p) => !has(facts, p))) {
    all = all.flatMap((f) => domain(schemaAt(path), constants).map((v) => withFact(f, path, v)));
  }
  return all;
}

const holds = (logic: unknown, facts: Record<string, unknown>) => jsonLogic.truthy(jsonLogic.apply(logic as RulesLogic, facts));

const references = new Map<string, FindingStatus>();

/** The evaluator's contract, restated by brute force over completions with json-logic-js. */
function referenceStatus(rule: Rule, facts: Record<string, unknown>): FindingStatus {
  const key = `${rule.id} ${JSON.stringify(readBy(rule, facts))}`;
  let status = references.get(key);
  if (status === undefined) references.set(key, (status = bruteForce(rule, facts)));
  return status;
}

function bruteForce(rule: Rule, facts: Record<string, unknown>): FindingStatus {
  const worlds = completions(rule, facts);
  const applies = worlds.map((f) => rule.when === undefined || holds(rule.when, f));
  if (applies.every((a) => !a)) return 'not_applicable';
  if (!applies.every(Boolean)) return 'undetermined';
  const passes = worlds.map((f) => holds(rule.check, f));
  return passes.every(Boolean) ? 'pass' : passes.every((p) => !p) ? 'fail' : 'undetermined';
}

/** The constraints a set of facts breaks, by the reference: every fact a constraint reads given, and its check false. */
const broken = (facts: Record<string, unknown>) =>
  doctrine.constraints.filter((c) => c.facts.every((p) => has(facts, p)) && !holds(c.check, facts));

/** The facts whose presence alone an expression tests (`missing`, `missing_some`). */
function presenceOf(logic: unknown): string[] {
  if (logic === null || typeof logic !== 'object') return [];
  if (Array.isArray(logic)) return logic.flatMap(presenceOf);
  const [op, args] = Object.entries(logic)[0]!;
  if (op === 'missing') return ([] as unknown[]).concat(args).filter((p): p is string => typeof p === 'string');
  if (op === 'missing_some') return ((args as unknown[])[1] as string[]).filter((p) => typeof p === 'string');
  return presenceOf(args);
}

/**
 * Random facts made consistent: for each broken constraint, the facts whose presence it forbids
 * are left out if it has such facts (so container.used false keeps its meaning), otherwise the
 * last fact it reads.
 */
function consistent(facts: Record<string, unknown>): Record<string, unknown> {
  let out = facts;
  for (let c = broken(out)[0]; c; c = broken(out)[0]) {
    const present = presenceOf(c.check).filter((p) => has(out, p));
    out = present.length > 0 ? present.reduce((f, p) => withFact(f, p, undefined), out) : withFact(out, c.facts.at(-1)!, undefined);
  }
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown>;
}

const raw = (() => {
  const next = rng(20261122);
  const schema = doctrine.meta.facts_schema as Schema;
  // Mostly complete facts (rules get decided), some sparse ones (missing facts).
  return Array.from({ length: 300 }, (_, i) => randomFacts(schema, next, i % 3 === 0 ? 0.5 : 0.97));
})();
const STATUSES = ['pass', 'fail', 'not_applicable', 'undetermined'] as const;

/**
 * The random samples, plus, for each status of a rule they never reach (a rule whose condition
 * needs a rare combination), the first consistent filling of the rule's own facts that reaches it
 * by the reference: every rule is then exercised in every status it can take.
 */
const samples = (() => {
  const random = raw.map(consistent);
  const seen = new Set(random.flatMap((f) => evaluateFacts(doctrine, f).findings.map((x) => `${x.rule_id}:${x.status}`)));
  const targeted: Record<string, unknown>[] = [];
  for (const rule of doctrine.rules) {
    for (const status of STATUSES) {
      if (seen.has(`${rule.id}:${status}`)) continue;
      const base = status === 'undetermined' ? {} : undefined;
      const found = (base ? [base] : completions(rule, {})).map(consistent).find((f) => referenceStatus(rule, f) === status);
      if (found) targeted.push(found);
    }
  }
  return [...random, ...targeted];
})();

describe('evaluator against the references', () => {
  it('generates valid, varied facts that exercise every status of every rule', () => {
    for (const facts of samples) expect(doctrine.validateFacts(facts), JSON.stringify(doctrine.validateFacts.errors)).toBe(true);
    const seen = new Set(samples.flatMap((f) => evaluateFacts(doctrine, f).findings.map((x) => `${x.rule_id}:${x.status}`)));
    for (const rule of doctrine.rules) {
      for (const status of ['pass', 'fail', 'undetermined'] as const)
        expect(seen.has(`${rule.id}:${status}`), `${rule.id} never ${status}`).toBe(true);
      if (rule.when !== undefined) expect(seen.has(`${rule.id}:not_applicable`), `${rule.id} is never not_applicable`).toBe(true);
    }
  });

  it('refuses facts exactly when they break a consistency constraint, naming every one they break', () => {
    let refused = 0;
    for (const facts of raw) {
      const expected = broken(facts).map((c) => c.id);
      if (expected.length === 0) {
        expect(() => evaluateFacts(doctrine, facts)).not.toThrow();
        continue;
      }
      refused++;
      expect(() => evaluateFacts(doctrine, facts)).toThrow(`facts contradict each other (${expected.join(', ')})`);
    }
    // Random facts break constraints often; each one is exercised.
    expect(refused).toBeGreaterThan(100);
    const seen = new Set(raw.flatMap((f) => broken(f).map((c) => c.id)));
    expect([...seen].sort()).toEqual(doctrine.constraints.map((c) => c.id));
  });

  it('decides a rule exactly when every completion of its missing facts decides it the same way', () => {
    samples.forEach((facts, i) => {
      const got = evaluateFacts(doctrine, facts).findings;
      doctrine.rules.forEach((rule, r) => {
        expect(got[r]!.status, `sample ${i}, ${rule.id}: ${JSON.stringify(facts)}`).toBe(referenceStatus(rule, facts));
      });
    });
  });

  it('names missing facts that the rule reads, are missing, and decide it once given', () => {
    const next = rng(7);
    // Filled in and evaluated again once per rule, facts it reads and missing facts named:
    // the same case again proves nothing new (about one undetermined finding in ten is new).
    const filledIn = new Set<string>();
    samples.forEach((facts) => {
      for (const f of evaluateFacts(doctrine, facts).findings) {
        if (f.status !== 'undetermined') {
          expect(f.missing_facts).toBeUndefined();
          continue;
        }
        const rule = doctrine.rules.find((r) => r.id === f.rule_id)!;
        expect(f.missing_facts!.length).toBeGreaterThan(0);
        for (const m of f.missing_facts!) {
          expect(rule.facts).toContain(m);
          expect(has(facts, m)).toBe(false);
        }
        const key = `${rule.id} ${JSON.stringify(readBy(rule, facts))} ${f.missing_facts!.join()}`;
        if (filledIn.has(key)) continue;
        filledIn.add(key);
        // Random values for the missing facts, drawn again until they are consistent with the rest.
        const fill = () => {
          let out = facts;
          for (const m of f.missing_facts!) {
            const values = domain(schemaAt(m), [...numbersIn(rule.when), ...numbersIn(rule.check)]);
            out = withFact(out, m, values[Math.floor(next() * values.length)]);
          }
          return out;
        };
        let filled = fill();
        for (let tries = 0; broken(filled).length > 0 && tries < 100; tries++) filled = fill();
        const after = evaluateFacts(doctrine, filled).findings.find((x) => x.rule_id === f.rule_id)!;
        expect(after.status, `${f.rule_id} with ${JSON.stringify(f.missing_facts)} given`).not.toBe('undetermined');
      }
    });
    expect(filledIn.size).toBeGreaterThan(500);
  });

  it('assembles byte-for-byte the RFC 8785 form of the evaluation, with either detail', () => {
    samples.forEach((facts, i) => {
      for (const detail of ['failures', 'full'] as const) {
        const evaluation = evaluateFacts(doctrine, facts, { detail });
        const pre = canonicalEvaluation(evaluation);
        expect(pre.json, `sample ${i}, detail ${detail}`).toBe(canonicalize(evaluation));
        expect(pre.value).toBe(evaluation);
      }
    });
  });

  it('returns plain, frozen findings shared between evaluations with the same outcome', () => {
    const a = evaluateFacts(doctrine, samples[1]!);
    const b = evaluateFacts(doctrine, structuredClone(samples[1]!));
    a.findings.forEach((f, i) => {
      expect(Object.isFrozen(f)).toBe(true);
      expect(b.findings[i]).toBe(f);
    });
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });
});
