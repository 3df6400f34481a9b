import { describe, expect, it } from 'vitest';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { DoctrineSearch } from '../../../src/doctrine/search.js';
import { DEFAULT_DOCTRINE, MINI_DOCTRINE } from '../../helpers/paths.js';

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
      rules: 3,
      pass: 2,
      fail: 1,
      not_applicable: 0,
      undetermined: 0,
      checked: 3,
      complete: true,
      verdict: 'fail',
      failed_by_severity: { critical: 0, high: 1, medium: 0, low: 0 },
      highest_failed_severity: 'high',
      failed_rule_ids: ['TLS-001'],
      undetermined_by_severity: { critical: 0, high: 0, medium: 0, low: 0 },
      undetermined_rule_ids: [],
      missing_facts: [],
      // A doctrine without advisories, scope areas or constraints: empty, never missing.
      advisories: { rules: 0, failed_rule_ids: [], undetermined_rule_ids: [] },
      scope: { declared_out_of_scope: [], minimum: [], minimum_unmet: [], undetermined: [] },
      coverage: {
        tls: { rules: 2, checked: 2, not_applicable: 0, undetermined: 0 },
        transport: { rules: 1, checked: 1, not_applicable: 0, undetermined: 0 },
      },
    });
    expect(findings[0]).toMatchObject({
      severity: 'high',
      category: 'tls',
      rationale: 'Bearer tokens travel in every request.',
      references: ['doc:tls-basics'],
    });
    // Passing findings stay short; "full" explains every one.
    expect(Object.keys(findings[1]!).sort()).toEqual(['rule_id', 'severity', 'status', 'title']);
    const full = evaluateFacts(doctrine, { transport: { kind: 'http' }, tls: { enabled: false, min_version: '1.3' } }, { detail: 'full' });
    expect(full.findings[1]).toMatchObject({
      status: 'pass',
      rationale: 'Older versions have known weaknesses.',
      references: ['doc:tls-basics', 'https://www.rfc-editor.org/rfc/rfc8996'],
    });
  });

  it('decides scope from `when` first: a false condition is not_applicable, whatever is missing', () => {
    const { findings, summary } = evaluateFacts(doctrine, { transport: { kind: 'stdio' } });
    expect(findings.map((f) => [f.rule_id, f.status, f.missing_facts])).toEqual([
      ['TLS-001', 'not_applicable', undefined],
      ['TLS-002', 'undetermined', ['tls.min_version']],
      ['TRANS-001', 'pass', undefined],
    ]);
    expect(findings[0]!.reason).toBe('condition for this rule does not hold');
    expect(findings[1]!.reason).toBe('it applies, but its check needs facts that were not given');
    expect(summary).toMatchObject({
      pass: 1,
      not_applicable: 1,
      undetermined: 1,
      complete: false,
      verdict: 'incomplete',
      missing_facts: ['tls.min_version'],
    });
  });

  it('never reads a missing fact as a pass: empty facts leave every rule undetermined, and the verdict incomplete', () => {
    const { findings, summary } = evaluateFacts(doctrine, {});
    expect(findings.map((f) => [f.rule_id, f.status, f.missing_facts])).toEqual([
      ['TLS-001', 'undetermined', ['tls.enabled', 'transport.kind']],
      ['TLS-002', 'undetermined', ['tls.min_version']],
      ['TRANS-001', 'undetermined', ['transport.kind']],
    ]);
    expect(findings[0]!.reason).toBe('its condition needs facts that were not given');
    expect(summary).toMatchObject({
      pass: 0,
      fail: 0,
      not_applicable: 0,
      undetermined: 3,
      complete: false,
      verdict: 'incomplete',
      highest_failed_severity: null,
      undetermined_by_severity: { critical: 0, high: 1, medium: 1, low: 1 },
      undetermined_rule_ids: ['TLS-001', 'TLS-002', 'TRANS-001'],
      missing_facts: ['tls.enabled', 'tls.min_version', 'transport.kind'],
    });
  });

  it('lets a failure win over an incomplete evaluation', () => {
    const { summary } = evaluateFacts(doctrine, { transport: { kind: 'http' }, tls: { enabled: false } });
    expect(summary).toMatchObject({ fail: 1, undetermined: 1, complete: false, verdict: 'fail', failed_rule_ids: ['TLS-001'] });
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

describe("DoctrineSearch over the bundled doctrine, in the specification's own words", () => {
  const search = new DoctrineSearch(loadDoctrine(DEFAULT_DOCTRINE));
  const first = (query: string) => search.search(query, { limit: 5, kind: 'rule' }).hits[0]?.id;

  it.each([
    ['token passthrough', 'AUTH-007'],
    ['confused deputy', 'AUTH-012'],
    ['mix-up attack', 'CLIENT-007'],
    ['rug pull', 'CLIENT-003'],
    ['hostNetwork hostPID', 'CONT-016'],
    ['NODE_TLS_REJECT_UNAUTHORIZED', 'EGRESS-004'],
    ['CVE-2025-6514', 'CLIENT-017'],
    ['slowloris', 'HTTP-010'],
  ])('ranks the rule for "%s" first', (query, id) => {
    expect(first(query)).toBe(id);
  });

  it('finds a rule by the name of a fact it reads', () => {
    expect(search.search('downstream_credentials', { limit: 3, kind: 'rule' }).hits.map((h) => h.id)).toContain('AUTH-017');
  });
});
