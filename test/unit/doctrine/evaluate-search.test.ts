import { describe, expect, it } from 'vitest';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { DoctrineSearch } from '../../../src/doctrine/search.js';
import { MINI_DOCTRINE } from '../../helpers/paths.js';

const doctrine = loadDoctrine(MINI_DOCTRINE);

describe('evaluateFacts', () => {
  it('passes, fails, marks not_applicable or undetermined each rule, in rule id order', () => {
    const { findings, summary } = evaluateFacts(doctrine, { transport: { kind: 'http' }, tls: { enabled: false, min_version: '1.3' } });
    expect(findings.map((f) => [f.rule_id, f.status])).toEqual([
      ['TLS-001', 'fail'],
      ['TLS-002', 'pass'],
      ['TRANS-001', 'pass'],
    ]);
    expect(summary).toEqual({
      verdict: 'fail',
      complete: true,
      rules: 3,
      pass: 2,
      fail: 1,
      not_applicable: 0,
      undetermined: 0,
      failed_by_severity: { critical: 0, high: 1, medium: 0, low: 0 },
      highest_failed_severity: 'high',
      failed_rule_ids: ['TLS-001'],
      undetermined_rule_ids: [],
      facts_needed: [],
    });
    expect(findings[0]).toMatchObject({ severity: 'high', category: 'tls', rationale: 'Bearer tokens travel in every request.', references: ['doc:tls-basics'] });
    // Passing findings stay short; "full" explains every one.
    expect(Object.keys(findings[1]!).sort()).toEqual(['rule_id', 'severity', 'status', 'title']);
    const full = evaluateFacts(doctrine, { transport: { kind: 'http' }, tls: { enabled: false, min_version: '1.3' } }, { detail: 'full' });
    expect(full.findings[1]).toMatchObject({ status: 'pass', rationale: 'Older versions have known weaknesses.', references: ['doc:tls-basics', 'https://www.rfc-editor.org/rfc/rfc8996'] });
  });

  it('decides scope first; a rule it cannot decide for missing facts is undetermined, with the facts it needs', () => {
    const { findings, summary } = evaluateFacts(doctrine, { transport: { kind: 'http' } });
    expect(findings.map((f) => [f.rule_id, f.status, f.missing_facts])).toEqual([
      ['TLS-001', 'undetermined', ['tls.enabled']],
      ['TLS-002', 'undetermined', ['tls.min_version']],
      ['TRANS-001', 'pass', undefined],
    ]);
    expect(summary).toMatchObject({ verdict: 'incomplete', complete: false, undetermined: 2, facts_needed: ['tls.enabled', 'tls.min_version'] });
    // Out of scope whatever is missing: TLS rules do not apply to stdio.
    const stdio = evaluateFacts(doctrine, { transport: { kind: 'stdio' }, tls: { min_version: '1.3' } });
    expect(stdio.findings[0]).toMatchObject({ status: 'not_applicable', reason: expect.stringMatching(/does not apply/) });
    expect(stdio.summary).toMatchObject({ verdict: 'pass', complete: true, not_applicable: 1, pass: 2 });
    // No facts at all is never a pass.
    expect(evaluateFacts(doctrine, {}).summary).toMatchObject({ verdict: 'incomplete', complete: false, pass: 0, fail: 0 });
  });

  it('rejects facts that do not match the schema, naming each fact', () => {
    expect(() => evaluateFacts(doctrine, { transport: { kind: 'carrier-pigeon' }, extra: 1 })).toThrow(/facts do not match/);
    try {
      evaluateFacts(doctrine, { transport: { kind: 'carrier-pigeon' }, extra: 1 });
    } catch (err) {
      const details = (err as { details: { where: string; message: string }[] }).details;
      expect(details).toContainEqual({ where: 'facts', message: 'unknown fact "extra"' });
      expect(details.some((d) => d.where === 'facts.transport.kind')).toBe(true);
    }
  });

  it('is deterministic', () => {
    const facts = { tls: { min_version: '1.1', enabled: true }, transport: { kind: 'http' } };
    expect(JSON.stringify(evaluateFacts(doctrine, facts))).toBe(JSON.stringify(evaluateFacts(doctrine, structuredClone(facts))));
  });
});

describe('DoctrineSearch', () => {
  const search = new DoctrineSearch(doctrine);

  it('ranks hits, returns snippets around the match, and filters by kind', () => {
    const { hits, total } = search.search('bearer tokens', { limit: 10 });
    expect(total).toBeGreaterThan(0);
    expect(hits[0]!.id).toBe('TLS-001');
    expect(hits[0]!.snippet.toLowerCase()).toContain('bearer');
    const docs = search.search('TLS', { limit: 10, kind: 'document' });
    expect(docs.hits.every((h) => h.kind === 'document')).toBe(true);
    expect(docs.hits.map((h) => h.id)).toContain('tls-basics');
  });

  it('breaks score ties by id and always returns the same list', () => {
    const a = search.search('tls', { limit: 50 });
    const b = new DoctrineSearch(loadDoctrine(MINI_DOCTRINE)).search('tls', { limit: 50 });
    expect(b).toEqual(a);
    for (let i = 1; i < a.hits.length; i++) {
      const prev = a.hits[i - 1]!;
      const cur = a.hits[i]!;
      expect(prev.score > cur.score || (prev.score === cur.score && prev.id < cur.id)).toBe(true);
    }
  });

  it('finds by prefix and tolerates a typo, and returns nothing for unrelated words', () => {
    expect(search.search('transp', { limit: 5 }).hits.map((h) => h.id)).toContain('transport-choice');
    expect(search.search('bearr', { limit: 5 }).hits.map((h) => h.id)).toContain('TLS-001');
    expect(search.search('zzzzqqq', { limit: 5 }).total).toBe(0);
  });
});
