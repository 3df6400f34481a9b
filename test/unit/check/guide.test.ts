// What signet check asks a person to declare: the smallest set that completes the verdict, gates
// first (src/check/guide.ts), and the template that writes exactly those facts
// (src/check/template.ts). On a corpus case read from the real files of a public project.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeclared } from '../../../src/check/declared.js';
import { leaves, setLeaf } from '../../../src/check/facts-tree.js';
import { toText } from '../../../src/check/format/text.js';
import { declareGuide, factsToDeclare } from '../../../src/check/guide.js';
import type { CheckReport } from '../../../src/check/report.js';
import { runCheck } from '../../../src/check/run.js';
import { declareTemplate } from '../../../src/check/template.js';
import { SignetError } from '../../../src/errors.js';
import { collectWith, doctrine, inline } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

const corpus = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-corpus', `${name}.case.json`), 'utf8')) as {
    files: Record<string, string>;
  };
const compose = collectWith(inline(corpus('raihan-mcp-http-template-compose').files));
const check = (declared: Uint8Array | null): CheckReport =>
  runCheck(doctrine, { collection: compose, declared: declared && parseDeclared(doctrine, 'declared.json', declared) });

/** A reviewer's answer for each placeholder: the answers below, else false, the first value listed, [] or 60. */
function fill(text: string, answers: Record<string, unknown>): { bytes: Uint8Array; filled: string[] } {
  const t = JSON.parse(text) as { facts?: Record<string, unknown>; deployments?: Record<string, Record<string, unknown>> };
  const filled: string[] = [];
  for (const facts of [t.facts ?? {}, ...Object.values(t.deployments ?? {})])
    for (const [path, v] of leaves(facts)) {
      if (typeof v !== 'string' || !/^<.*>$/.test(v)) continue;
      const listed = /^<(".*?")/.exec(v);
      const fallback = v === '<true | false>' ? false : listed ? JSON.parse(listed[1]!) : v.startsWith('<array') ? [] : 60;
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
