// Signet's own deployments through `signet check`: the files read by the collectors, what
// deploy/facts/*.json declares over them. Nothing it declares may contradict what the files show,
// the verdict must be the one the complete hand-written fact sets gave (deploy/facts/*.json at
// 6ed9b9d, before they kept only what no file shows), and most of the facts that verdict needs
// must come from the files (issue 25: at least 85 %).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaves } from '../../../src/check/facts-tree.js';
import { doctrine } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';
import { type SignetKind, signetDeployment } from '../../helpers/signet-deployments.js';

/** Every fact a rule reads: what a verdict can need. */
const ruleFacts = new Set(doctrine.rules.flatMap((r) => r.facts));

const SIGN_KEYS = ['KEYS-005', 'KEYS-006', 'SIGN-003', 'SIGN-004', 'SIGN-005', 'SUPPLY-006'];
/** The summaries the complete hand-written sets gave under doctrine 1.3.0. */
const HAND_WRITTEN: Record<SignetKind, { failed: string[]; undetermined: string[] }> = {
  compose: { failed: ['CONT-007', 'SUPPLY-003', 'SUPPLY-007'], undetermined: SIGN_KEYS },
  'compose-oauth': {
    failed: ['CONT-007', 'SUPPLY-003', 'SUPPLY-007'],
    undetermined: ['AUTH-016', 'AUTH-019', 'AUTH-020', 'AUTH-021', ...SIGN_KEYS],
  },
  kubernetes: {
    failed: ['CONT-007', 'RATE-006', 'SUPPLY-003', 'SUPPLY-007'],
    undetermined: ['HTTP-010', 'TLS-003', 'TLS-004', 'TLS-005', ...SIGN_KEYS],
  },
};

describe("Signet's own deployments, checked from their files", () => {
  for (const kind of Object.keys(HAND_WRITTEN) as SignetKind[]) {
    it(`${kind}: the hand-written verdict, with at least 85 % of the facts it needs collected`, () => {
      const { report, collected } = signetDeployment(kind);
      expect(report.deployments).toHaveLength(1);
      const d = report.deployments[0]!;
      expect(d.summary.verdict).toBe('fail');
      expect([...d.summary.failed_rule_ids].sort()).toEqual(HAND_WRITTEN[kind].failed);
      expect([...d.summary.undetermined_rule_ids].sort()).toEqual([...HAND_WRITTEN[kind].undetermined].sort());
      // Of the facts the rules read, how many the files decided (none contradicted: runCheck refuses that).
      const needed = leaves(d.facts as Record<string, unknown>).filter(([p]) => ruleFacts.has(p));
      const fromFiles = needed.filter(([p]) => (collected.sources[p] ?? []).length > 0);
      expect(fromFiles.length / needed.length, `${fromFiles.length} of ${needed.length}`).toBeGreaterThanOrEqual(0.85);
    });
  }

  it('docs/doctrine.md says why each of its failures stays, and names no other', () => {
    const doc = readFileSync(join(ROOT, 'docs/doctrine.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Deployments as facts'), doc.indexOf('## Format'));
    const explained = [...section.matchAll(/^- `([A-Z]+-\d{3})`/gm)].map((m) => m[1]).sort();
    const failed = new Set(
      Object.keys(HAND_WRITTEN).flatMap((k) => signetDeployment(k as SignetKind).report.deployments[0]!.summary.failed_rule_ids),
    );
    expect(explained).toEqual([...failed].sort());
  });
});
