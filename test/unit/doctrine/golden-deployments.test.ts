// The golden table: realistic deployments described as facts, and exactly which rules each
// must fail, pass, leave undetermined or find not applicable, with its verdict. A change to the
// doctrine that moves any of these is a change to what Signet signs, so it has to show up here.
// One status per case is written 'rest' (every rule not listed under another status).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateFacts, type FindingStatus, type Verdict } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { DEFAULT_DOCTRINE, FACTS as FACTS_PATH, ROOT } from '../../helpers/paths.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
const FACTS = (name: string) => JSON.parse(readFileSync(FACTS_PATH(name), 'utf8')) as Record<string, unknown>;
/** Signet's own deployment fact sets: { description, sources, notes, facts }. */
const DEPLOY = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'deploy', 'facts', `${name}.json`), 'utf8')) as { facts: Record<string, unknown> }).facts;

type Ids = string[] | 'rest';
interface Case {
  name: string;
  facts: () => Record<string, unknown>;
  verdict: Verdict;
  fail: Ids;
  undetermined: Ids;
  pass: Ids;
  not_applicable: Ids;
}

/** Rule ids written compactly: "AUTH-008..011 TLS-001" is AUTH-008, AUTH-009, AUTH-010, AUTH-011, TLS-001. */
function ids(spec: string): string[] {
  return spec
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .flatMap((t) => {
      const m = /^([A-Z]+)-(\d{3})\.\.(\d{3})$/.exec(t);
      if (!m) return [t];
      const out: string[] = [];
      for (let n = Number(m[2]); n <= Number(m[3]); n++) out.push(`${m[1]}-${String(n).padStart(3, '0')}`);
      return out;
    });
}

const CASES: Case[] = [
  {
    // Under 1.0.0 these facts gave 0 failures and 67 not_applicable (highest_failed_severity: null).
    name: "the 1.0.0 review's exposed container: published on all interfaces, internet-facing, no proxy, four fact groups",
    facts: () => FACTS('exposed-container'),
    verdict: 'fail',
    fail: ['CONT-009', 'EXPO-001'],
    undetermined: 'rest',
    pass: ['CONT-001'],
    not_applicable: ids('EXPO-002..004 EXPO-006 LOG-004 RATE-006 TLS-002'),
  },
  {
    name: "Signet's own compose stack (deploy/facts/compose.json)",
    facts: () => DEPLOY('compose'),
    verdict: 'fail',
    fail: ['CONT-007', 'CONT-013', 'SUPPLY-003', 'TOOL-003'],
    undetermined: ids('KEYS-005 KEYS-006 SIGN-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..014 CLIENT-001..008 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-012 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 RATE-004 TLS-001..005',
    ),
  },
  {
    name: "Signet's own compose stack with OAuth at the proxy (deploy/facts/compose-oauth.json)",
    facts: () => DEPLOY('compose-oauth'),
    verdict: 'fail',
    fail: ids('CONT-007 CONT-013 SUPPLY-003 TOOL-003'),
    undetermined: ids('AUTH-013 AUTH-014 KEYS-005 KEYS-006 SIGN-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 CLIENT-001..008 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 RATE-004 TLS-001..005',
    ),
  },
  {
    name: 'a stdio laptop: Signet in the IDE and the client configuration that launches it and two third-party servers',
    facts: () => FACTS('stdio-laptop'),
    verdict: 'fail',
    fail: ['CLIENT-003', 'CLIENT-005', 'CLIENT-006', 'CLIENT-008'],
    undetermined: [],
    pass: ids('AUTH-007 CLIENT-001 CLIENT-002 CLIENT-004 EGRESS-003 EXPO-004 EXPO-006 KEYS-002..006 LOG-002 LOG-004 TOOL-001..004'),
    not_applicable: 'rest',
  },
  {
    name: "Signet's own Kubernetes manifests behind an ingress (deploy/facts/kubernetes.json)",
    facts: () => DEPLOY('kubernetes'),
    verdict: 'fail',
    fail: ids('CONT-007 CONT-013 RATE-006 SUPPLY-003 TOOL-003'),
    undetermined: ids('HTTP-010 KEYS-005 KEYS-006 SIGN-003..005 TLS-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..014 CLIENT-001..008 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-012 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 TLS-002',
    ),
  },
  {
    name: 'an OAuth-protected remote server on 2026-07-28 behind a cloud load balancer',
    facts: () => FACTS('oauth-remote'),
    verdict: 'fail',
    fail: ['AUTH-011', 'AUTH-013', 'CONT-013', 'RATE-009'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 CLIENT-001..008 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002',
    ),
  },
  {
    name: 'a hardened production deployment described completely',
    facts: () => FACTS('hardened'),
    verdict: 'pass',
    fail: [],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids('AUTH-006 AUTH-008..014 CLIENT-005..007 EXPO-001 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 TLS-002'),
  },
  {
    name: 'a careless production deployment described completely',
    facts: () => FACTS('exposed'),
    verdict: 'fail',
    fail: 'rest',
    undetermined: [],
    pass: ids('AUTH-001 CONT-005 CONT-011 HTTP-007 KEYS-001 KEYS-004 RATE-001 SIGN-001 TOOL-004'),
    not_applicable: ids(
      'AUTH-003 AUTH-008..014 CLIENT-007 CONT-014 EXPO-002..004 EXPO-006 HTTP-012 LOG-004 PROTO-001 PROTO-003 RATE-006 TLS-002..005',
    ),
  },
  {
    name: 'a developer running Signet over stdio, client side out of scope',
    facts: () => FACTS('stdio-dev'),
    verdict: 'fail',
    fail: ['TOOL-002'],
    undetermined: [],
    pass: ids('AUTH-007 EGRESS-003 EXPO-004 EXPO-006 KEYS-003..005 LOG-002 LOG-004 TOOL-001 TOOL-003 TOOL-004'),
    not_applicable: 'rest',
  },
];

const STATUSES: FindingStatus[] = ['fail', 'undetermined', 'pass', 'not_applicable'];

describe('golden deployments', () => {
  it.each(CASES)('$name', (c) => {
    const evaluation = evaluateFacts(doctrine, c.facts());
    const idsWith = (s: FindingStatus) =>
      evaluation.findings
        .filter((f) => f.status === s)
        .map((f) => f.rule_id)
        .sort();
    const got = Object.fromEntries(STATUSES.map((s) => [s, idsWith(s)]));
    const listed = new Set(STATUSES.flatMap((s) => (c[s] === 'rest' ? [] : c[s])));
    for (const s of STATUSES) {
      const expected = c[s] === 'rest' ? doctrine.rules.map((r) => r.id).filter((id) => !listed.has(id)) : c[s];
      expect(got[s], `${s} rules`).toEqual([...expected].sort());
    }
    expect(evaluation.summary.verdict).toBe(c.verdict);
    expect(evaluation.summary.complete).toBe(got['undetermined']!.length === 0);
  });

  it('never reads the exposed container as clean: a critical failure, and its unknowns listed', () => {
    const { summary } = evaluateFacts(doctrine, FACTS('exposed-container'));
    expect(summary).toMatchObject({ verdict: 'fail', complete: false, highest_failed_severity: 'critical' });
    expect(summary.failed_rule_ids).toEqual(['EXPO-001', 'CONT-009']);
    // What an agent should find out next, among it whether TLS is on and who may call the server.
    expect(summary.missing_facts).toEqual(expect.arrayContaining(['tls.enabled', 'authentication.required', 'http.origin_validation']));
    expect(summary.undetermined_by_severity.critical).toBeGreaterThan(0);
  });

  it('never reads empty facts as a pass: every rule undetermined, the verdict incomplete', () => {
    const { findings, summary } = evaluateFacts(doctrine, {});
    expect(findings.every((f) => f.status === 'undetermined')).toBe(true);
    expect(summary).toMatchObject({ pass: 0, fail: 0, not_applicable: 0, undetermined: doctrine.rules.length });
    expect(summary).toMatchObject({ complete: false, verdict: 'incomplete' });
    expect(summary.highest_failed_severity).toBeNull();
    const used = new Set(findings.flatMap((f) => f.missing_facts ?? []));
    expect(summary.missing_facts).toEqual([...used].sort());
    expect(summary.missing_facts.length).toBeGreaterThan(50);
  });

  it('Signet passes its own baseline: no critical or high failure in its compose stack or its Kubernetes manifests', () => {
    for (const name of ['compose', 'compose-oauth', 'kubernetes']) {
      const { summary } = evaluateFacts(doctrine, DEPLOY(name));
      expect(summary.failed_by_severity.critical, name).toBe(0);
      expect(summary.failed_by_severity.high, name).toBe(0);
    }
  });

  it('lists the facts of every undetermined finding in the summary', () => {
    for (const c of CASES) {
      const { findings, summary } = evaluateFacts(doctrine, c.facts());
      const missing = new Set(summary.missing_facts);
      for (const f of findings) for (const m of f.missing_facts ?? []) expect(missing.has(m), `${c.name}: ${m}`).toBe(true);
    }
  });
});
