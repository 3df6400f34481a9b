// Signet's own compose deployments through `signet check`: the files read by the collectors,
// the hand-written fact set (deploy/facts/*.json) declared over them. Nothing it states may
// contradict what the files show, the verdict must be the one the hand-written facts give, and
// most of the facts that verdict needs must come from the files (issue 25: at least 85 %).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeclared } from '../../../src/check/declared.js';
import { leaves } from '../../../src/check/facts-tree.js';
import { runCheck } from '../../../src/check/run.js';
import { collectFromDisk } from '../../../src/collect/disk.js';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { DEFAULT_DOCTRINE, ROOT } from '../../helpers/paths.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
/** Every fact a rule reads: what a verdict can need. */
const ruleFacts = new Set(doctrine.rules.flatMap((r) => r.facts));

const CASES = [
  { set: 'compose', paths: ['docker-compose.yml', 'Dockerfile', 'proxy'], compose: [] as string[] },
  {
    set: 'compose-oauth',
    paths: ['docker-compose.yml', 'deploy/compose.oauth.yml', 'Dockerfile', 'proxy'],
    compose: ['docker-compose.yml,deploy/compose.oauth.yml'],
  },
];

describe("Signet's own compose deployments, checked from their files", () => {
  for (const c of CASES) {
    it(`${c.set}: the hand-written verdict, with at least 85 % of the facts it needs collected`, () => {
      const file = `deploy/facts/${c.set}.json`;
      const bytes = readFileSync(join(ROOT, file));
      const hand = (JSON.parse(bytes.toString('utf8')) as { facts: Record<string, unknown> }).facts;
      const collection = collectFromDisk(c.paths, { root: ROOT, compose: c.compose }, doctrine);
      const report = runCheck(doctrine, { collection, declared: parseDeclared(doctrine, file, bytes) });
      expect(report.deployments.map((d) => d.name)).toEqual(['compose:docker-compose.yml:signet']);
      const d = report.deployments[0]!;
      const expected = evaluateFacts(doctrine, hand).summary;
      expect(d.summary.verdict).toBe(expected.verdict);
      expect(d.summary.failed_rule_ids).toEqual(expected.failed_rule_ids);
      expect(d.summary.undetermined_rule_ids).toEqual(expected.undetermined_rule_ids);
      // Of the hand-written facts the rules read, how many the files decided (none contradicted: runCheck refuses that).
      const needed = leaves(hand).filter(([p]) => ruleFacts.has(p));
      const collected = needed.filter(([p]) => (d.sources[p] ?? []).some((s) => 'file' in s));
      expect(collected.length / needed.length).toBeGreaterThanOrEqual(0.85);
    });
  }
});
