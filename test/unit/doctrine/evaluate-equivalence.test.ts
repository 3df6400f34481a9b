// The evaluator's two speed-ups checked against slow, independent references on random
// facts: json-logic-engine against json-logic-js (the reference JSON Logic implementation),
// and the pre-canonicalised result against `canonicalize` (RFC 8785) of the same value.
import canonicalize from 'canonicalize';
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { evaluateFacts, evaluateFactsCanonical, type FindingStatus } from '../../../src/doctrine/evaluate.js';
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

/** The evaluator's contract, restated with json-logic-js. */
function referenceStatuses(d: Doctrine, facts: Record<string, unknown>): FindingStatus[] {
  const has = (path: string) => {
    let node: unknown = facts;
    for (const part of path.split('.')) {
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return false;
      node = (node as Record<string, unknown>)[part];
    }
    return node !== undefined;
  };
  return d.rules.map((rule) => {
    if (!rule.facts.every(has)) return 'not_applicable';
    if (rule.when !== undefined && !jsonLogic.truthy(jsonLogic.apply(rule.when as RulesLogic, facts))) return 'not_applicable';
    return jsonLogic.truthy(jsonLogic.apply(rule.check as RulesLogic, facts)) ? 'pass' : 'fail';
  });
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

  it('gives the same status as json-logic-js for every rule and sample', () => {
    samples.forEach((facts, i) => {
      const got = evaluateFacts(doctrine, facts).findings.map((f) => f.status);
      expect(got, `sample ${i}: ${JSON.stringify(facts)}`).toEqual(referenceStatuses(doctrine, facts));
    });
  });

  it('builds byte-for-byte the RFC 8785 form of the evaluation, with either detail', () => {
    samples.forEach((facts, i) => {
      for (const detail of ['failures', 'full'] as const) {
        const pre = evaluateFactsCanonical(doctrine, facts, { detail });
        expect(pre.json, `sample ${i}, detail ${detail}`).toBe(canonicalize(evaluateFacts(doctrine, facts, { detail })));
        expect(pre.json).toBe(canonicalize(pre.value));
      }
    });
  });
});
