import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { checkDoctrine } from '../../../src/doctrine/load.js';
import { DEFAULT_DOCTRINE, FACTS, ROOT } from '../../helpers/paths.js';

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
      expect(
        r.references.some((x) => x.startsWith('doc:')),
        r.id,
      ).toBe(true);
    }
    for (const doc of d.documents) expect(doc.body.split(/\s+/).length, doc.id).toBeGreaterThan(300);
  });

  it('uses every declared leaf fact in at least one rule', () => {
    const d = doctrine!;
    const used = new Set(d.rules.flatMap((r) => r.facts));
    const groups = new Set(d.factPaths.filter((p) => d.factPaths.some((q) => q.startsWith(`${p}.`))));
    const unused = d.factPaths.filter((p) => !groups.has(p) && !used.has(p));
    expect(unused).toEqual([]);
  });

  it('passes a hardened deployment described completely, and fails a careless one on its critical rules', () => {
    const hardened = evaluateFacts(doctrine!, facts('hardened'));
    expect(hardened.summary).toMatchObject({ fail: 0, undetermined: 0, complete: true, verdict: 'pass' });
    expect(hardened.summary.pass).toBeGreaterThanOrEqual(80);
    const exposed = evaluateFacts(doctrine!, facts('exposed'));
    expect(exposed.summary.fail).toBeGreaterThanOrEqual(40);
    expect(exposed.summary.highest_failed_severity).toBe('critical');
    expect(exposed.summary.failed_by_severity.critical).toBeGreaterThanOrEqual(3);
    const dev = evaluateFacts(doctrine!, facts('stdio-dev'));
    expect(dev.summary.failed_by_severity.critical + dev.summary.failed_by_severity.high).toBe(0);
    const httpOnly = dev.findings.filter(
      (f) => f.rule_id.startsWith('RATE-') || f.rule_id.startsWith('TLS-') || f.rule_id.startsWith('PROTO-'),
    );
    expect(httpOnly.every((f) => f.status === 'not_applicable')).toBe(true);
  });

  it('documents every leaf fact in facts-reference', () => {
    const d = doctrine!;
    const reference = d.documents.find((doc) => doc.id === 'facts-reference')!.body;
    const groups = new Set(d.factPaths.filter((p) => d.factPaths.some((q) => q.startsWith(`${p}.`))));
    const undocumented = d.factPaths.filter((p) => !groups.has(p) && !reference.includes(`\`${p}\``));
    expect(undocumented).toEqual([]);
  });

  it('cites only rules that exist, in documents, remediations and rationales (retired ids only in the changelog)', () => {
    const d = doctrine!;
    const ids = new Set(d.rules.map((r) => r.id));
    const prefixes = new Set(d.rules.map((r) => r.id.split('-')[0]));
    const cited = (text: string) =>
      [...text.matchAll(/\b([A-Z]+)-(\d{3})\b/g)].filter((m) => prefixes.has(m[1]!)).map((m) => `${m[1]}-${m[2]}`);
    const changelog = d.documents.find((doc) => doc.id === 'changelog')!;
    const retired = ['HTTP-004', 'HTTP-006', 'CLIENT-005'];
    for (const id of retired) expect(ids.has(id), id).toBe(false);
    for (const doc of d.documents) {
      const unknown = cited(doc.body).filter((id) => !ids.has(id) && !(doc === changelog && retired.includes(id)));
      expect(unknown, doc.id).toEqual([]);
    }
    for (const r of d.rules) {
      const unknown = cited(`${r.rationale} ${r.remediation}`).filter((id) => !ids.has(id) && !retired.includes(id));
      expect(unknown, r.id).toEqual([]);
    }
  });

  it('notes in the changelog every rule that refers to it, and the changelog cites every retired id', () => {
    const d = doctrine!;
    const changelog = d.documents.find((doc) => doc.id === 'changelog')!.body;
    for (const r of d.rules.filter((x) => x.references.includes('doc:changelog')))
      expect(changelog, r.id).toMatch(new RegExp(`\\b${r.id.split('-')[0]}-(\\*|${r.id.split('-')[1]})`));
    expect(changelog).toContain(`## ${d.meta.version}`);
  });

  it('and the other way round: every rule the current version notes, or lists with a note in its tables, refers to it', () => {
    const d = doctrine!;
    const changelog = d.documents.find((doc) => doc.id === 'changelog')!.body;
    const current = changelog.split(/^## /m).find((s) => s.startsWith(`${d.meta.version}\n`))!;
    const section = (title: string) => current.split(/^### /m).find((s) => s.startsWith(title)) ?? '';
    const named = (text: string) => [...text.matchAll(/`([A-Z]+-\d{3})`/g)].map((m) => m[1]!);
    const added = new Set(named(section('New rules')));
    // A table row's second cell names the rules it changed; "(note)" marks those that keep their id.
    const noted = current
      .split('\n')
      .filter((line) => line.startsWith('| ') && (line.split('|')[2] ?? '').includes('(note'))
      .flatMap((line) => named(line.split('|')[2]!));
    const ids = new Set([...named(section('Notes on rules that keep their id')), ...noted].filter((id) => !added.has(id)));
    expect(ids.size).toBeGreaterThan(20);
    const lacking = d.rules.filter((r) => ids.has(r.id) && !r.references.includes('doc:changelog')).map((r) => r.id);
    expect(lacking).toEqual([]);
  });

  it('is described with its own numbers in docs/tools.md and docs/doctrine.md', () => {
    const d = doctrine!;
    const leaves = d.factPaths.filter((p) => !d.factPaths.some((q) => q.startsWith(`${p}.`))).length;
    const areas = new Set(d.rules.map((r) => r.category)).size;
    const tools = readFileSync(join(ROOT, 'docs', 'tools.md'), 'utf8').replace(/\s+/g, ' ');
    expect(tools).toContain(`version ${d.meta.version}: ${d.rules.length} rules over ${leaves} facts`);
    expect(tools).toContain(`${d.documents.length} documents`);
    const page = readFileSync(join(ROOT, 'docs', 'doctrine.md'), 'utf8').replace(/\s+/g, ' ');
    expect(page).toContain(`baseline ${d.meta.version}`);
    expect(page).toContain(`${d.rules.length} rules over ${leaves} facts in ${areas} areas, and ${d.documents.length} documents`);
  });
});
