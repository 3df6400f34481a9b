// The evaluator checked against slow, independent references on random facts: with every
// fact given, json-logic-engine against json-logic-js (the reference JSON Logic
// implementation); with facts missing, every decided status (pass, fail, not_applicable) must
// hold for any way of filling in the missing facts; and the pre-canonicalised signed result
// against `canonicalize` (RFC 8785) of the same value.
import canonicalize from 'canonicalize';
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { evaluateFacts, type FindingStatus } from '../../../src/doctrine/evaluate.js';
import { evaluationCanonical } from '../../../src/tools/doctrine-evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import type { Doctrine } from '../../../src/doctrine/types.js';
import { DEFAULT_DOCTRINE } from '../../helpers/paths.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);

/** mulberry32: a seeded generator, so a failure names a sample that can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Schema = { type?: string; enum?: unknown[]; minimum?: number; maximum?: number; properties?: Record<string, Schema> };

/** Facts valid against the schema, each fact present with probability `presence`. */
function randomFacts(schema: Schema, next: () => number, presence: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (next() > presence) continue;
    if (sub.type === 'object') out[key] = randomFacts(sub, next, presence);
    else if (sub.enum) out[key] = sub.enum[Math.floor(next() * sub.enum.length)];
    else if (sub.type === 'boolean') out[key] = next() < 0.5;
    else if (sub.type === 'integer') {
      const min = sub.minimum ?? 0;
      const max = sub.maximum ?? 1_000_000;
      const picks = [min, min + 1, max, 59, 60, 61, 90, 365, 1024, Math.floor(min + next() * (max - min))].filter((n) => n >= min && n <= max);
      out[key] = picks[Math.floor(next() * picks.length)];
    } else throw new Error(`the generator does not know fact type ${String(sub.type)}: extend it`);
  }
  return out;
}

const has = (facts: Record<string, unknown>, path: string) => {
  let node: unknown = facts;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== undefined;
};

/** The status with every fact given, restated with json-logic-js. */
function referenceStatus(rule: Doctrine['rules'][number], facts: Record<string, unknown>): FindingStatus {
  if (rule.when !== undefined && !jsonLogic.truthy(jsonLogic.apply(rule.when as RulesLogic, facts))) return 'not_applicable';
  return jsonLogic.truthy(jsonLogic.apply(rule.check as RulesLogic, facts)) ? 'pass' : 'fail';
}

/** `facts` with every missing fact of the schema filled in, at random. */
function complete(schema: Schema, facts: Record<string, unknown>, next: () => number): Record<string, unknown> {
  const filled = randomFacts(schema, next, 1);
  const merge = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...b };
    for (const [k, v] of Object.entries(a)) out[k] = v && typeof v === 'object' && !Array.isArray(v) && b[k] && typeof b[k] === 'object' ? merge(v as Record<string, unknown>, b[k] as Record<string, unknown>) : v;
    return out;
  };
  return merge(facts, filled);
}

const samples = (() => {
  const next = rng(20261122);
  const schema = doctrine.meta.facts_schema as Schema;
  // Mostly complete facts (rules get evaluated), some sparse ones (missing facts).
  return Array.from({ length: 400 }, (_, i) => randomFacts(schema, next, i % 4 === 0 ? 0.5 : 0.97));
})();

describe('evaluator against the references', () => {
  it('generates valid, varied facts', () => {
    for (const facts of samples) expect(doctrine.validateFacts(facts), JSON.stringify(doctrine.validateFacts.errors)).toBe(true);
    const statuses = new Set(samples.flatMap((f) => evaluateFacts(doctrine, f).findings.map((x) => `${x.rule_id}:${x.status}`)));
    // Every rule both passes and fails somewhere in the samples, so the comparison covers both branches.
    for (const rule of doctrine.rules) {
      expect(statuses.has(`${rule.id}:pass`), `${rule.id} never passes`).toBe(true);
      expect(statuses.has(`${rule.id}:fail`), `${rule.id} never fails`).toBe(true);
    }
  });

  it('with every fact given, gives the same status as json-logic-js for every rule and sample', () => {
    samples.forEach((facts, i) => {
      const got = evaluateFacts(doctrine, facts).findings;
      doctrine.rules.forEach((rule, r) => {
        if (!rule.facts.every((p) => has(facts, p))) return;
        expect(got[r]!.status, `sample ${i}, ${rule.id}`).toBe(referenceStatus(rule, facts));
      });
    });
  });

  it('with facts missing, decides only what no missing fact could change, and says which facts it needs otherwise', () => {
    const next = rng(7);
    const schema = doctrine.meta.facts_schema as Schema;
    let decided = 0;
    let undetermined = 0;
    samples.forEach((facts, i) => {
      const got = evaluateFacts(doctrine, facts).findings;
      const completions = Array.from({ length: 12 }, () => complete(schema, facts, next));
      doctrine.rules.forEach((rule, r) => {
        const missing = rule.facts.filter((p) => !has(facts, p));
        if (missing.length === 0) return;
        const f = got[r]!;
        if (f.status === 'undetermined') {
          undetermined++;
          expect(f.missing_facts, `sample ${i}, ${rule.id}`).toEqual(missing);
          return;
        }
        decided++;
        for (const c of completions) expect(referenceStatus(rule, c), `sample ${i}, ${rule.id}: decided ${f.status} without ${missing.join(', ')}`).toBe(f.status);
      });
    });
    // Both kinds occur, so both branches are checked.
    expect(decided).toBeGreaterThan(50);
    expect(undetermined).toBeGreaterThan(50);
  });

  it('never reads an incomplete evaluation as a pass: empty facts are incomplete, not clean', () => {
    const empty = evaluateFacts(doctrine, {});
    expect(empty.summary).toMatchObject({ verdict: 'incomplete', complete: false, fail: 0 });
    expect(empty.summary.undetermined).toBeGreaterThan(0);
    expect(empty.summary.facts_needed.length).toBeGreaterThan(0);
  });

  it('builds byte-for-byte the RFC 8785 form of the evaluation, with either detail', () => {
    samples.forEach((facts, i) => {
      for (const detail of ['failures', 'full'] as const) {
        const pre = evaluationCanonical(doctrine, facts, detail);
        expect(pre.json, `sample ${i}, detail ${detail}`).toBe(canonicalize(evaluateFacts(doctrine, facts, { detail })));
        expect(pre.json).toBe(canonicalize(pre.value));
      }
    });
  });
});
