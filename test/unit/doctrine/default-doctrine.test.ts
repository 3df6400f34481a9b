import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { checkDoctrine } from '../../../src/doctrine/load.js';
import { DEFAULT_DOCTRINE, FACTS } from '../../helpers/paths.js';

const facts = (name: string) => JSON.parse(readFileSync(FACTS(name), 'utf8'));

describe('the shipped doctrine: MCP deployment security baseline', () => {
  const { doctrine, problems } = checkDoctrine(DEFAULT_DOCTRINE, { metaSchema: true });

  it('passes doctrine check, including the meta-schema', () => {
    expect(problems).toEqual([]);
    expect(doctrine).not.toBeNull();
  });

  it('has at least 30 complete rules over at least 8 areas and at least 6 documents', () => {
    const d = doctrine!;
    expect(d.rules.length).toBeGreaterThanOrEqual(30);
    expect(new Set(d.rules.map((r) => r.category)).size).toBeGreaterThanOrEqual(8);
    expect(d.documents.length).toBeGreaterThanOrEqual(6);
    for (const r of d.rules) {
      expect(r.rationale.length, r.id).toBeGreaterThan(80);
      expect(r.remediation.length, r.id).toBeGreaterThan(60);
      expect(r.references.some((x) => x.startsWith('doc:')), r.id).toBe(true);
    }
    for (const doc of d.documents) expect(doc.body.split(/\s+/).length, doc.id).toBeGreaterThan(300);
  });

  it('uses every declared leaf fact in at least one rule', () => {
    const d = doctrine!;
    const used = new Set(d.rules.flatMap((r) => r.facts));
    const groups = new Set(d.factPaths.filter((p) => d.factPaths.some((q) => q.startsWith(p + '.'))));
    const unused = d.factPaths.filter((p) => !groups.has(p) && !used.has(p));
    expect(unused).toEqual([]);
  });

  it('passes a hardened production deployment and fails a careless one on its critical rules', () => {
    const hardened = evaluateFacts(doctrine!, facts('hardened'));
    expect(hardened.summary.fail).toBe(0);
    expect(hardened.summary.pass).toBeGreaterThanOrEqual(50);
    const exposed = evaluateFacts(doctrine!, facts('exposed'));
    expect(exposed.summary.fail).toBeGreaterThanOrEqual(15);
    expect(exposed.summary.highest_failed_severity).toBe('critical');
    expect(exposed.summary.failed_by_severity.critical).toBeGreaterThanOrEqual(3);
    const dev = evaluateFacts(doctrine!, facts('stdio-dev'));
    expect(dev.summary.failed_by_severity.critical + dev.summary.failed_by_severity.high).toBe(0);
    const httpOnly = dev.findings.filter((f) => f.rule_id.startsWith('RATE-') || f.rule_id.startsWith('TLS-'));
    expect(httpOnly.every((f) => f.status === 'not_applicable' || f.status === 'undetermined')).toBe(true);
  });
});
