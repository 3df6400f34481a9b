// What signet check asks a person to declare: the smallest set that completes the verdict, gates
// first (src/check/guide.ts), and the template that writes exactly those facts
// (src/check/template.ts). On a corpus case read from the real files of a public project.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeclared } from '../../../src/check/declared.js';
import { leaves, setLeaf } from '../../../src/check/facts-tree.js';
import { toText } from '../../../src/check/format/text.js';
import { declareGuide, factsToDeclare } from '../../../src/check/guide.js';
import { sourceLabel } from '../../../src/check/merge.js';
import type { CheckReport } from '../../../src/check/report.js';
import { runCheck } from '../../../src/check/run.js';
import { declareTemplate } from '../../../src/check/template.js';
import type { CollectOptions } from '../../../src/collect/index.js';
import { brokenConstraints } from '../../../src/doctrine/consistency.js';
import { SignetError } from '../../../src/errors.js';
import { collectWith, doctrine, fact, inline, repoFiles } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';
import { KINDS, type SignetKind } from '../../helpers/signet-deployments.js';

const corpus = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-corpus', `${name}.case.json`), 'utf8')) as {
    files: Record<string, string>;
  };
const compose = collectWith(inline(corpus('raihan-mcp-http-template-compose').files));
const check = (declared: Uint8Array | null): CheckReport =>
  runCheck(doctrine, { collection: compose, declared: declared && parseDeclared(doctrine, 'declared.json', declared) });

/** A reviewer's answer for each placeholder: the answers below, else false, the first value listed, an array of the first item listed, [] or 60. */
function fill(text: string, answers: Record<string, unknown>): { bytes: Uint8Array; filled: string[] } {
  const t = JSON.parse(text) as { facts?: Record<string, unknown>; deployments?: Record<string, Record<string, unknown>> };
  const filled: string[] = [];
  for (const facts of [t.facts ?? {}, ...Object.values(t.deployments ?? {})])
    for (const [path, v] of leaves(facts)) {
      if (typeof v !== 'string' || !/^<.*>$/.test(v)) continue;
      // The values offered (`<true | false>`, `<"none" | "api_key">`, or one left alone: `<true>`), else a type.
      const listed = /^<((?:true|false|".*?")(?: \| (?:true|false|".*?"))*)>$/.exec(v);
      const values = listed ? listed[1]!.split(' | ').map((x) => JSON.parse(x) as unknown) : null;
      const item = /^<array of (".*?")/.exec(v);
      const fallback = values
        ? values.includes(false)
          ? false
          : values[0]
        : item
          ? [JSON.parse(item[1]!)]
          : v.startsWith('<array')
            ? []
            : 60;
      setLeaf(facts, path, path in answers ? answers[path] : fallback);
      filled.push(path);
    }
  return { bytes: new TextEncoder().encode(JSON.stringify(t)), filled };
}

describe('what to declare to complete a verdict', () => {
  const d = check(null).deployments[0]!;
  const guide = declareGuide(doctrine, d);

  it('asks first for the facts that decide whether groups of rules apply, with what each value does', () => {
    expect(guide.gates[0]!.fact).toBe('client.reviewed');
    const no = guide.gates[0]!.effects.find((e) => e.value === false)!;
    expect(no.settles.length).toBeGreaterThanOrEqual(20);
    expect(no.outOfScope).toEqual({ area: 'clients', allowed: true });
    // client.uses_oauth gates only rules client.reviewed: false takes out: it waits for that answer.
    expect(guide.gates.map((g) => g.fact)).not.toContain('client.uses_oauth');
    expect(guide.conditional.map((c) => c.fact)).toContain('client.uses_oauth');
    // authentication.required waits for authentication.method (FACTS-001 ties them).
    expect(guide.gates.map((g) => g.fact)).toContain('authentication.method');
    expect(guide.gates.map((g) => g.fact)).not.toContain('authentication.required');
  });

  it('asks far fewer facts than every fact an undetermined rule reads', () => {
    const asked = factsToDeclare(guide);
    expect(asked.length).toBeLessThan(d.summary.missing_facts.length / 2);
    expect(new Set(asked).size).toBe(asked.length);
    for (const f of asked) expect(d.summary.missing_facts).toContain(f);
  });

  it('the text shows the gates and the needed facts, not the 29 client facts an HTTP server may leave out', () => {
    const text = toText(check(null), doctrine);
    expect(text).toMatch(
      /first, \d+ facts that decide whether rules apply:\n {6}client\.reviewed: false takes \d+ rules out and puts the clients area out of scope, which this deployment's minimum allows/,
    );
    expect(text).toMatch(/then \d+ facts the rules that apply need:/);
    expect(text).not.toMatch(/authorization_urls_validated/);
    expect(text).toMatch(/\d+ of these a probe of the running endpoint may decide: signet check --probe URL/);
  });

  it('the template holds exactly the facts asked, with their allowed values and descriptions, and is refused unfilled', () => {
    const t = declareTemplate(check(null), doctrine, null);
    const file = JSON.parse(t.text) as { format: string; facts: Record<string, unknown>; notes: { facts: string[]; note: string }[] };
    expect(file.format).toBe('signet-declared/1');
    expect(
      leaves(file.facts)
        .map(([p]) => p)
        .sort(),
    ).toEqual(factsToDeclare(guide).sort());
    expect(leaves(file.facts).find(([p]) => p === 'client.reviewed')![1]).toBe('<true | false>');
    expect(leaves(file.facts).find(([p]) => p === 'deployment.environment')![1]).toBe('<"production" | "staging" | "development">');
    const note = file.notes.find((n) => n.facts[0] === 'client.reviewed')!.note;
    expect(note).toMatch(/^TODO: why you state it/);
    expect(note).toMatch(/Decide it first: false takes \d+ rules out/);
    expect(note).toMatch(/client\.reviewed: true if this review covers the clients/);
    let err: unknown;
    try {
      parseDeclared(doctrine, 'declared.json', new TextEncoder().encode(t.text));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SignetError);
    expect((err as SignetError).message).toMatch(/\d+ facts not filled in/);
    expect((err as SignetError).details[0]!.message).toMatch(/still the template's placeholder/);
  });

  it('filled in and asked again, it completes the verdict in two rounds, keeping the facts already declared', () => {
    const answers = {
      'client.reviewed': false,
      'authentication.method': 'none',
      'signing.offered': false,
      'rate_limit.enabled': false,
      'transport.protocol_revisions': ['2025-06-18'],
    };
    const round1 = fill(declareTemplate(check(null), doctrine, null).text, answers);
    const after1 = check(round1.bytes);
    const t2 = declareTemplate(after1, doctrine, parseDeclared(doctrine, 'declared.json', round1.bytes));
    const round2 = fill(t2.text, answers);
    // Round two keeps round one's answers and asks only new facts.
    for (const f of round1.filled) expect(round2.filled).not.toContain(f);
    const after2 = check(round2.bytes);
    expect(after2.deployments[0]!.summary.complete).toBe(true);
    expect(declareTemplate(after2, doctrine, null).asked.get(after2.deployments[0]!.name)).toEqual([]);
    // Far fewer than every fact the undetermined rules read.
    expect(round1.filled.length + round2.filled.length).toBeLessThan(d.summary.missing_facts.length / 2);
  });
});

describe('the template offers only values the known facts leave possible', () => {
  const DIR = join(ROOT, 'test/fixtures/collect-corpus');
  const cases = readdirSync(DIR)
    .filter((f) => f.endsWith('.case.json'))
    .sort()
    .map((f) => {
      const c = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { files: Record<string, string>; options: CollectOptions };
      return { name: f, collection: collectWith(inline(c.files), c.options) };
    });
  const signet = (Object.keys(KINDS) as SignetKind[]).map((k) => ({
    name: `Signet's ${k}`,
    collection: collectWith(repoFiles(...KINDS[k].files), KINDS[k].options),
  }));

  /** Each value a placeholder offers, set alone beside the deployment's facts: what the doctrine's constraints say of it. */
  function offered(report: CheckReport, text: string): { where: string; fact: string; value: unknown; broken: string[] }[] {
    const t = JSON.parse(text) as { facts?: Record<string, unknown>; deployments?: Record<string, Record<string, unknown>> };
    const out = [];
    for (const d of report.deployments)
      for (const [fact, v] of [...leaves(t.facts ?? {}), ...leaves(t.deployments?.[d.name] ?? {})]) {
        const listed = typeof v === 'string' ? /^<((?:true|false|".*?")(?: \| (?:true|false|".*?"))*)>$/.exec(v) : null;
        if (!listed) continue;
        for (const value of listed[1]!.split(' | ').map((x) => JSON.parse(x) as unknown)) {
          const facts = structuredClone(d.facts);
          setLeaf(facts, fact, value);
          out.push({ where: d.name, fact, value, broken: brokenConstraints(doctrine, facts).map((c) => c.id) });
        }
      }
    return out;
  }

  it('in every corpus case and every kind of Signet deployment: no offered value contradicts a collected fact', () => {
    let values = 0;
    for (const { name, collection } of [...cases, ...signet]) {
      const report = runCheck(doctrine, { collection });
      const all = offered(report, declareTemplate(report, doctrine, null).text);
      values += all.length;
      expect(
        all.filter((o) => o.broken.length > 0),
        name,
      ).toEqual([]);
    }
    expect(values).toBeGreaterThan(500);
  });

  it('says which value it left out, with the constraint and the file and line that rule it out', () => {
    // The compose case serves plain HTTP (tls.enabled false from its compose file): "mtls" cannot be its method.
    const report = check(null);
    const d = report.deployments[0]!;
    expect(fact(d, 'tls.enabled')).toBe(false);
    const file = JSON.parse(declareTemplate(report, doctrine, null).text) as {
      facts: Record<string, unknown>;
      notes: { facts: string[]; note: string }[];
    };
    const method = leaves(file.facts).find(([p]) => p === 'authentication.method')![1] as string;
    expect(method).toMatch(/^<"none" \| /);
    expect(method).not.toContain('"mtls"');
    const note = file.notes.find((n) => n.facts[0] === 'authentication.method')!.note;
    const from = d.sources['tls.enabled']!.map(sourceLabel).join(', ');
    expect(from).toMatch(/^docker-compose\.yml:\d+/);
    expect(note).toContain(`Left out: "mtls" (FACTS-009: client certificates are verified in a TLS handshake`);
    expect(note).toContain(`tls.enabled = false from ${from})`);
    // And the guide's gate effects never describe a value that would be refused.
    const gate = declareGuide(doctrine, d).gates.find((g) => g.fact === 'authentication.method');
    expect(gate?.effects.map((e) => e.value) ?? []).not.toContain('mtls');
  });

  it('filled round by round with the first value offered, no round is refused as a contradiction', () => {
    for (const { name, collection } of cases) {
      let declared: ReturnType<typeof parseDeclared> | null = null;
      for (let round = 0; round < 6; round++) {
        const report = runCheck(doctrine, { collection, declared });
        const t = declareTemplate(report, doctrine, declared);
        if ([...t.asked.values()].every((a) => a.length === 0)) break;
        const { bytes } = fill(t.text, {});
        declared = parseDeclared(doctrine, 'declared.json', bytes);
        // runCheck throws on a declared fact that contradicts a collected one.
        expect(() => runCheck(doctrine, { collection, declared }), `${name}, round ${round + 1}`).not.toThrow();
      }
    }
  });
});
