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
    not_applicable: ids('EXPO-002..004 EXPO-006 LOG-004 RATE-006 TLS-002 TLS-006'),
  },
  {
    // 1.1.0 review, finding 1: under 1.1.0 this evaluated to pass (the bind looked private).
    name: 'a cloud VM behind NAT: the server on 0.0.0.0 with TLS of its own, no proxy, its port open to the internet',
    facts: () => FACTS('cloud-vm-nat'),
    verdict: 'fail',
    fail: ['EXPO-001'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 CLIENT-001..004 CLIENT-006..016 CONT-001..015 EXPO-002..004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 RATE-004 RATE-006 TLS-002 TLS-006 TOOL-005..007',
    ),
  },
  {
    // 1.1.0 review, finding 2: client and build declared out of scope gave a pass under 1.1.0.
    name: 'a stdio laptop running a third-party server with npx -y pkg@latest, client and build declared out of scope',
    facts: () => FACTS('stdio-npx-latest'),
    verdict: 'fail',
    fail: ['SUPPLY-005'],
    undetermined: [],
    pass: ids('AUTH-007 EGRESS-003 EXPO-004 EXPO-006 LOG-002 LOG-004 TOOL-001..004'),
    not_applicable: 'rest',
  },
  {
    // 1.1.0 review, finding 2: no rule checked the release when no container was used (a pass under 1.1.0).
    name: 'a VM running a third-party server installed at an exact version without hashes, behind nginx on the same host',
    facts: () => FACTS('vm-unpinned'),
    verdict: 'fail',
    fail: ['SUPPLY-005'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 CLIENT-001..004 CLIENT-006..016 CONT-001..015 EXPO-001 EXPO-004 EXPO-006 HTTP-012 KEYS-001..006 LOG-004 PROTO-003 PROTO-005 RATE-004 SIGN-001..005 SUPPLY-001..004 TLS-002 TOOL-005..007',
    ),
  },
  {
    // 1.1.0 review, finding 4: a token in a ConfigMap could not be described; the same deployment passed under 1.1.0.
    name: 'Kubernetes with a static bearer token in the proxy ConfigMap and the server reading its secrets from a ConfigMap',
    facts: () => FACTS('k8s-configmap-token'),
    verdict: 'fail',
    fail: ['AUTH-015', 'CONT-015'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003 AUTH-008..014 AUTH-016 CLIENT-001..004 CLIENT-006..016 EXPO-001 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 TLS-002 TOOL-005..007',
    ),
  },
  {
    name: "Signet's own compose stack (deploy/facts/compose.json)",
    facts: () => DEPLOY('compose'),
    verdict: 'fail',
    fail: ['CONT-007', 'CONT-013', 'SUPPLY-003'],
    undetermined: ids('KEYS-005 KEYS-006 SIGN-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 CLIENT-001..004 CLIENT-006..016 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-012 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 RATE-004 TLS-001..006 TOOL-005..007',
    ),
  },
  {
    name: "Signet's own compose stack with OAuth at the proxy (deploy/facts/compose-oauth.json)",
    facts: () => DEPLOY('compose-oauth'),
    verdict: 'fail',
    fail: ids('CONT-007 CONT-013 SUPPLY-003'),
    undetermined: ids('AUTH-013 AUTH-014 AUTH-016 KEYS-005 KEYS-006 SIGN-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 CLIENT-001..004 CLIENT-006..016 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 RATE-004 TLS-001..006 TOOL-005..007',
    ),
  },
  {
    name: 'a stdio laptop: Signet in the IDE and the client configuration that launches it and two third-party servers',
    facts: () => FACTS('stdio-laptop'),
    verdict: 'fail',
    fail: ids('CLIENT-003 CLIENT-006 CLIENT-008 CLIENT-009 CLIENT-012 CLIENT-013'),
    undetermined: [],
    pass: ids(
      'AUTH-007 CLIENT-001 CLIENT-002 CLIENT-004 CLIENT-014 CLIENT-015 EGRESS-003 EXPO-004 EXPO-006 KEYS-002..006 LOG-002 LOG-004 SUPPLY-005 TOOL-001..004',
    ),
    not_applicable: 'rest',
  },
  {
    name: "Signet's own Kubernetes manifests behind an ingress (deploy/facts/kubernetes.json)",
    facts: () => DEPLOY('kubernetes'),
    verdict: 'fail',
    fail: ids('CONT-007 RATE-006 SUPPLY-003'),
    undetermined: ids('HTTP-010 KEYS-005 KEYS-006 SIGN-003..005 TLS-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 CLIENT-001..004 CLIENT-006..016 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-012 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 TLS-002 TOOL-005..007',
    ),
  },
  {
    // Under 1.1.0 it also failed AUTH-013, CONT-013 and RATE-009, an extra, a hardening extra and a draft: now advisories.
    name: 'an OAuth-protected remote server on 2026-07-28 behind a cloud load balancer, scopes not enforced',
    facts: () => FACTS('oauth-remote'),
    verdict: 'fail',
    fail: ['AUTH-011', 'AUTH-013', 'CONT-013', 'RATE-009'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 CLIENT-001..004 CLIENT-006..016 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002 TOOL-005..007',
    ),
  },
  {
    // 1.1.0 review, finding 12: a signed fail under 1.1.0 for two low rules and an extra.
    name: 'a hardened OAuth deployment without the extras (no CIMD, no user namespaces, no RateLimit fields, no output schemas)',
    facts: () => FACTS('hardened-oauth'),
    verdict: 'pass',
    fail: ['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 CLIENT-001..004 CLIENT-006..016 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002 TOOL-007',
    ),
  },
  {
    name: 'a hardened production deployment described completely',
    facts: () => FACTS('hardened'),
    verdict: 'pass',
    fail: [],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 CLIENT-006 CLIENT-007 CLIENT-009..011 CLIENT-016 EXPO-001 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 TLS-002 TOOL-005..007',
    ),
  },
  {
    name: 'a careless production deployment described completely',
    facts: () => FACTS('exposed'),
    verdict: 'fail',
    fail: 'rest',
    undetermined: [],
    pass: ids('AUTH-001 CONT-005 CONT-011 HTTP-007 KEYS-001 KEYS-004 RATE-001 SIGN-001 TOOL-004'),
    not_applicable: ids(
      'AUTH-003 AUTH-008..014 AUTH-016 CLIENT-007 CLIENT-010 CONT-014 EXPO-002..004 EXPO-006 HTTP-012 LOG-004 PROTO-001 PROTO-003 PROTO-006 RATE-006 TLS-002..006',
    ),
  },
  {
    // 1.1.0 review, finding 11: with tls and rate_limit omitted for stdio as the schema says, 1.1.0 stayed incomplete.
    name: 'a developer running Signet over stdio, client side out of scope, TLS and rate-limit facts omitted',
    facts: () => FACTS('stdio-dev'),
    verdict: 'limited_scope',
    fail: ['TOOL-002'],
    undetermined: [],
    pass: ids('AUTH-007 EGRESS-003 EXPO-004 EXPO-006 KEYS-003..005 LOG-002 LOG-004 SUPPLY-005 TOOL-001 TOOL-003 TOOL-004'),
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
    // Complete when nothing that decides the verdict is open: advisories and the scope aside.
    const advisory = new Set(doctrine.rules.filter((r) => r.advisory).map((r) => r.id));
    expect(evaluation.summary.complete).toBe(
      got['undetermined']!.every((id) => advisory.has(id)) && evaluation.summary.scope.undetermined.length === 0,
    );
    expect(evaluation.summary.checked).toBe(got['pass']!.length + got['fail']!.length);
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
    // What to find out next: every fact a baseline rule or the scope needs (advisories' own facts aside).
    const used = new Set([
      ...findings.filter((f) => !f.advisory).flatMap((f) => f.missing_facts ?? []),
      ...doctrine.areas.flatMap((a) => a.facts),
    ]);
    expect(summary.missing_facts).toEqual([...used].sort());
    expect(summary.advisories.undetermined_rule_ids).toEqual(['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002']);
    expect(summary.missing_facts.length).toBeGreaterThan(50);
  });

  it('Signet passes its own baseline: no critical or high failure in its compose stack or its Kubernetes manifests', () => {
    for (const name of ['compose', 'compose-oauth', 'kubernetes']) {
      const { summary } = evaluateFacts(doctrine, DEPLOY(name));
      expect(summary.failed_by_severity.critical, name).toBe(0);
      expect(summary.failed_by_severity.high, name).toBe(0);
    }
  });

  it('reads a stdio deployment reviewed without its client as limited_scope, never pass, and says which area is missing', () => {
    const { summary } = evaluateFacts(doctrine, FACTS('stdio-dev'));
    expect(summary).toMatchObject({ verdict: 'limited_scope', complete: true, fail: 1, failed_rule_ids: [] });
    expect(summary.scope).toEqual({
      declared_out_of_scope: ['clients'],
      minimum: ['clients'],
      minimum_unmet: ['clients'],
      undetermined: [],
    });
    expect(summary.coverage['clients']).toEqual({ rules: 15, checked: 0, not_applicable: 15, undetermined: 0 });
    // The same facts with the client reviewed (and nothing wrong with it) pass: the scope was all that was missing.
    const reviewed = {
      ...FACTS('stdio-dev'),
      client: { reviewed: true, launches_stdio_servers: false, destructive_calls_confirmed: true },
    };
    Object.assign(reviewed.client, {
      trusts_annotations_from_untrusted_servers: false,
      tool_definitions_pinned: true,
      tool_names_namespaced: true,
      untrusted_content_reaches_egress_tools: false,
      uses_oauth: false,
      one_click_install: false,
      servers_allowlisted: true,
      config_secrets_plaintext: false,
      schema_refs_local_only: true,
      supports_elicitation: false,
      renders_mcp_apps: false,
    });
    expect(evaluateFacts(doctrine, reviewed).summary).toMatchObject({
      verdict: 'pass',
      scope: { minimum: ['clients'], minimum_unmet: [] },
    });
    // An HTTP deployment's minimum does not include its clients: declaring them out of scope is reported, not limiting.
    expect(evaluateFacts(doctrine, FACTS('hardened-oauth')).summary.scope).toMatchObject({
      declared_out_of_scope: ['clients'],
      minimum: [],
    });
  });

  it('leaves the verdict incomplete while the scope itself is open (client.reviewed not given for stdio)', () => {
    const { client: _client, ...facts } = FACTS('stdio-dev');
    const { summary } = evaluateFacts(doctrine, facts);
    expect(summary.verdict).toBe('incomplete');
    expect(summary.scope.undetermined).toEqual(['clients']);
    expect(summary.missing_facts).toContain('client.reviewed');
  });

  it('keeps advisories out of the verdict and out of the failed lists, and reports them', () => {
    const { findings, summary } = evaluateFacts(doctrine, FACTS('hardened-oauth'));
    expect(summary).toMatchObject({ verdict: 'pass', fail: 4, failed_rule_ids: [], highest_failed_severity: null });
    expect(summary.failed_by_severity).toEqual({ critical: 0, high: 0, medium: 0, low: 0 });
    expect(summary.advisories).toEqual({
      rules: 4,
      failed_rule_ids: ['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002'],
      undetermined_rule_ids: [],
    });
    const advisoryFindings = findings.filter((f) => f.advisory);
    expect(advisoryFindings.map((f) => f.rule_id)).toEqual(['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002']);
    expect(doctrine.rules.filter((r) => r.advisory).map((r) => r.id)).toEqual(['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002']);
    // A baseline failure still fails, whatever its severity: scopes not enforced (medium) fails the same deployment.
    expect(evaluateFacts(doctrine, FACTS('oauth-remote')).summary).toMatchObject({ verdict: 'fail', failed_rule_ids: ['AUTH-011'] });
  });

  it('refuses contradictory facts with an error naming the constraint and the facts, instead of signing a verdict', () => {
    // 1.1.0 review, finding 5: this passed AUTH-001.
    const facts = { transport: { kind: 'http' }, authentication: { method: 'none', required: true } };
    expect(() => evaluateFacts(doctrine, facts)).toThrow(/facts contradict each other \(FACTS-001\)/);
    try {
      evaluateFacts(doctrine, facts);
    } catch (err) {
      expect((err as { code: string }).code).toBe('invalid_arguments');
      expect((err as { details: unknown }).details).toEqual([
        {
          where: 'facts.authentication.method, facts.authentication.required',
          message:
            'FACTS-001: authentication.method "none" checks no credential, so authentication.required cannot be true ' +
            '(given: authentication.method = "none", authentication.required = true)',
        },
      ]);
    }
    const contradictions: [string, Record<string, unknown>][] = [
      ['FACTS-002', { transport: { kind: 'stdio' }, deployment: { replicas: 3 } }],
      ['FACTS-003', { transport: { kind: 'stdio', legacy_sse: true } }],
      ['FACTS-004', { exposure: { behind_reverse_proxy: false, ingress_restricted_to_proxy: true } }],
      ['FACTS-005', { exposure: { endpoint_address_class: 'loopback', reachable_from_internet: true } }],
      ['FACTS-006', { signing: { offered: false, output_signing: true } }],
      ['FACTS-007', { signing: { output_signing: false, consumers_verify: true } }],
      ['FACTS-008', { tls: { enabled: false, hsts: true } }],
      ['FACTS-009', { authentication: { method: 'mtls' }, tls: { enabled: false } }],
      ['FACTS-010', { container: { used: false, orchestrator: 'kubernetes' } }],
      ['FACTS-011', { rate_limit: { enabled: false, unauthenticated_limited: true } }],
    ];
    expect(contradictions.map(([id]) => id)).toEqual(doctrine.constraints.slice(1).map((c) => c.id));
    for (const [id, f] of contradictions) expect(() => evaluateFacts(doctrine, f), id).toThrow(new RegExp(`\\(${id}\\)`));
    // Several at once are all named; a constraint whose facts are partly missing is no contradiction.
    expect(() => evaluateFacts(doctrine, { ...facts, tls: { enabled: false, hsts: true } })).toThrow(/\(FACTS-001, FACTS-008\)/);
    expect(() => evaluateFacts(doctrine, { authentication: { method: 'none' } })).not.toThrow();
    for (const c of CASES) expect(() => evaluateFacts(doctrine, c.facts()), c.name).not.toThrow();
  });

  it('counts what was checked, per area', () => {
    const { summary } = evaluateFacts(doctrine, FACTS('stdio-npx-latest'));
    expect(summary.checked).toBe(11);
    expect(Object.keys(summary.coverage).sort()).toEqual([...new Set(doctrine.rules.map((r) => r.category))].sort());
    const total = Object.values(summary.coverage).reduce((n, a) => n + a.rules, 0);
    expect(total).toBe(doctrine.rules.length);
    expect(summary.coverage['supply-chain']).toEqual({ rules: 5, checked: 1, not_applicable: 4, undetermined: 0 });
  });

  it('lists the facts of every undetermined finding in the summary', () => {
    for (const c of CASES) {
      const { findings, summary } = evaluateFacts(doctrine, c.facts());
      const missing = new Set(summary.missing_facts);
      for (const f of findings)
        if (!f.advisory) for (const m of f.missing_facts ?? []) expect(missing.has(m), `${c.name}: ${m}`).toBe(true);
    }
  });
});
