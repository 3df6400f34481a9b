// The golden table: realistic deployments described as facts, and exactly which rules each
// must fail, pass, leave undetermined or find not applicable, with its verdict. A change to the
// doctrine that moves any of these is a change to what Signet signs, so it has to show up here.
// One status per case is written 'rest' (every rule not listed under another status).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { factSide, VERDICT_ORDER, worstVerdict } from '../../../src/doctrine/deployments.js';
import { evaluateFacts, type FindingStatus, type Verdict } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { DEFAULT_DOCTRINE, FACTS as FACTS_PATH } from '../../helpers/paths.js';
import { type SignetKind, signetDeployment } from '../../helpers/signet-deployments.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
const FACTS = (name: string) => JSON.parse(readFileSync(FACTS_PATH(name), 'utf8')) as Record<string, unknown>;
/** Signet's own deployments: the facts collected from the shipped files, plus those deploy/facts declares. */
const DEPLOY = (name: SignetKind) => signetDeployment(name).facts;

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
    pass: ['CONT-001', 'EXPO-002'],
    not_applicable: ids('EXPO-003 EXPO-004 EXPO-006 LOG-004 RATE-006 TLS-002 TLS-006'),
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
      'AUTH-006 AUTH-008..016 AUTH-018..021 CLIENT-001..004 CLIENT-006..021 CONT-001..017 EXPO-003 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 RATE-004 RATE-006 TLS-002 TLS-006 TOOL-005..008',
    ),
  },
  {
    // 1.1.0 review, finding 2: client and build declared out of scope gave a pass under 1.1.0.
    name: 'a stdio laptop running a third-party server with npx -y pkg@latest, client and build declared out of scope',
    facts: () => FACTS('stdio-npx-latest'),
    verdict: 'fail',
    fail: ['SUPPLY-005'],
    undetermined: [],
    pass: ids('AUTH-017 EGRESS-003 EGRESS-004 EXPO-006 LOG-002 LOG-004 SUPPLY-006 TOOL-001..004'),
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
      'AUTH-006 AUTH-008..016 AUTH-018..021 CLIENT-001..004 CLIENT-006..021 CONT-001..017 EXPO-001 EXPO-004 EXPO-006 HTTP-012 KEYS-001..006 LOG-004 PROTO-003 PROTO-005 RATE-004 SIGN-001..005 SUPPLY-001..004 TLS-002 TOOL-005..008',
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
      'AUTH-003 AUTH-008..014 AUTH-016 AUTH-018..021 CLIENT-001..004 CLIENT-006..021 EXPO-001 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 TLS-002 TOOL-005..008',
    ),
  },
  {
    // Published on 127.0.0.1 only: AUTH-018 (loopback) applies, not AUTH-001, RATE-001 or RATE-008.
    name: "Signet's own compose stack (deploy/facts/compose.json)",
    facts: () => DEPLOY('compose'),
    verdict: 'fail',
    fail: ids('CONT-007 CONT-013 SUPPLY-003 SUPPLY-007'),
    undetermined: ids('KEYS-005 KEYS-006 SIGN-003..005 SUPPLY-006'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-001 AUTH-006 AUTH-008..016 AUTH-019..021 CLIENT-001..004 CLIENT-006..021 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-012 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 RATE-001 RATE-004 RATE-008 TLS-001..005 TOOL-005..008',
    ),
  },
  {
    name: "Signet's own compose stack with OAuth at the proxy (deploy/facts/compose-oauth.json)",
    facts: () => DEPLOY('compose-oauth'),
    verdict: 'fail',
    fail: ids('CONT-007 CONT-013 SUPPLY-003 SUPPLY-007'),
    undetermined: ids('AUTH-013 AUTH-014 AUTH-016 AUTH-019..021 KEYS-005 KEYS-006 SIGN-003..005 SUPPLY-006'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-001 AUTH-003..006 AUTH-012 AUTH-015 CLIENT-001..004 CLIENT-006..021 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 RATE-001 RATE-004 RATE-008 TLS-001..005 TOOL-005..008',
    ),
  },
  {
    name: 'a stdio laptop: Signet in the IDE and the client configuration that launches it and two third-party servers',
    facts: () => FACTS('stdio-laptop'),
    verdict: 'fail',
    fail: ids('CLIENT-003 CLIENT-006 CLIENT-008 CLIENT-009 CLIENT-012 CLIENT-013'),
    undetermined: [],
    pass: ids(
      'AUTH-017 CLIENT-001 CLIENT-002 CLIENT-004 CLIENT-014 CLIENT-015 CLIENT-017 CLIENT-018 EGRESS-003 EGRESS-004 EXPO-006 KEYS-002..006 LOG-002 LOG-004 SUPPLY-005 SUPPLY-006 TOOL-001..004',
    ),
    not_applicable: 'rest',
  },
  {
    name: "Signet's own Kubernetes manifests behind an ingress (deploy/facts/kubernetes.json)",
    facts: () => DEPLOY('kubernetes'),
    verdict: 'fail',
    fail: ids('CONT-007 RATE-006 SUPPLY-003 SUPPLY-007'),
    undetermined: ids('HTTP-010 KEYS-005 KEYS-006 SIGN-003..005 SUPPLY-006 TLS-003..005'),
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 AUTH-018..021 CLIENT-001..004 CLIENT-006..021 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-012 INJ-001 LOG-004 PROTO-002 PROTO-003 PROTO-005 TLS-002 TOOL-005..008',
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
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 AUTH-018 CLIENT-001..004 CLIENT-006..021 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002 TOOL-005..008',
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
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 AUTH-018 CLIENT-001..004 CLIENT-006..021 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002 TOOL-007 TOOL-008',
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
      'AUTH-006 AUTH-008..016 AUTH-018..021 CLIENT-006 CLIENT-007 CLIENT-009..011 CLIENT-016 CLIENT-017 CLIENT-019..021 EXPO-001 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-003 PROTO-005 TLS-002 TOOL-005..008',
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
      'AUTH-003 AUTH-008..014 AUTH-016 AUTH-018..021 CLIENT-007 CLIENT-010 CLIENT-019 CLIENT-020 CONT-014 EXPO-003 EXPO-004 EXPO-006 HTTP-012 LOG-004 PROTO-001 PROTO-003 PROTO-006 RATE-006 TLS-002..006',
    ),
  },
  {
    // 1.1.0 review, finding 11: with tls and rate_limit omitted for stdio as the schema says, 1.1.0 stayed incomplete.
    name: 'a developer running Signet over stdio, client side out of scope, TLS and rate-limit facts omitted',
    facts: () => FACTS('stdio-dev'),
    verdict: 'limited_scope',
    fail: ['TOOL-002'],
    undetermined: [],
    pass: ids('AUTH-017 EGRESS-003 EGRESS-004 EXPO-006 KEYS-003..005 LOG-002 LOG-004 SUPPLY-005 SUPPLY-006 TOOL-001 TOOL-003 TOOL-004'),
    not_applicable: 'rest',
  },
  // ---- The third review's deployments (doctrine 1.3.0): each evaluated wrongly under 1.2.0.
  {
    // A quick tunnel only forwards: no proxy, so EXPO-001 (critical) fails whatever the bind; with a
    // public endpoint AUTH-001 (critical) applies. Under 1.2 a tunnel counted as a proxy by some readings.
    name: 'a FastMCP server on a development VM, put on the internet by a Cloudflare quick tunnel, no credential',
    facts: () => FACTS('tunnel-fastmcp'),
    verdict: 'fail',
    fail: ids(
      'AUTH-001 EGRESS-002 EXPO-001 EXPO-004 HTTP-001..003 HTTP-008 HTTP-011 LOG-002 LOG-003 PROTO-005 RATE-001 SUPPLY-005 TLS-004 TOOL-001 TOOL-003',
    ),
    undetermined: [],
    pass: ids(
      'AUTH-002 AUTH-007 AUTH-017 EGRESS-003 EGRESS-004 EXPO-002 EXPO-005 HTTP-007 HTTP-009 HTTP-010 LOG-001 PROTO-004 RATE-003 SUPPLY-006 TLS-001 TLS-003 TLS-005 TOOL-002 TOOL-004',
    ),
    not_applicable: 'rest',
  },
  {
    // Under 1.2: fail on CONT-004 (Fargate cannot set no-new-privileges), HTTP-010 (the ALB's timeouts cannot be
    // configured) and TLS-006 (an ALB cannot verify target certificates). Now compensating controls stated in facts.
    name: 'a SaaS server on AWS Fargate behind an Application Load Balancer, OAuth, compensating controls stated',
    facts: () => FACTS('fargate-alb-oauth'),
    verdict: 'pass',
    fail: ['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 AUTH-018 CLIENT-001..004 CLIENT-006..021 CONT-014 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002 TOOL-007 TOOL-008',
    ),
  },
  {
    // Under 1.2: fail on AUTH-014 alone, a SHOULD of MCP 2026-07-28 for the authorization server: now advisory.
    // Keycloak sends iss by default since release 23 (keycloak#20584): this models an older release, or a client
    // with "Exclude Issuer From Authentication Response" on.
    name: 'an enterprise MCP gateway on Kubernetes with Keycloak before release 23 as its authorization server, iss not sent',
    facts: () => FACTS('k8s-gateway-keycloak-before-23'),
    verdict: 'pass',
    fail: ['AUTH-013', 'AUTH-014', 'CONT-013', 'RATE-009', 'TOOL-002'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 AUTH-018 CLIENT-006 CLIENT-009 CLIENT-011 CLIENT-015..017 CLIENT-021 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-005 SIGN-001..005 TLS-002 TOOL-007 TOOL-008',
    ),
  },
  {
    // Under 1.2: pass; nothing asked what the server itself uses downstream.
    name: "one of the gateway's backends, serving every caller with one admin service account",
    facts: () => FACTS('k8s-gateway-backend-admin'),
    verdict: 'fail',
    fail: ['AUTH-013', 'AUTH-017', 'CONT-013', 'RATE-009', 'TOOL-002'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 AUTH-018 CLIENT-001..004 CLIENT-006..021 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-001 TLS-004 TOOL-007 TOOL-008',
    ),
  },
  {
    // Under 1.2: pass (F6): nothing asked the authorization server for exact redirect URIs, so an open registration
    // endpoint that accepts https://*.example.com/* handed authorization codes to whoever registered first.
    name: 'an OAuth server whose own authorization server takes open dynamic client registration with wildcard redirect URIs',
    facts: () => FACTS('oauth-open-registration'),
    verdict: 'fail',
    fail: ['AUTH-013', 'AUTH-019', 'CONT-013', 'RATE-009', 'TOOL-002'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003..006 AUTH-012 AUTH-015 AUTH-016 AUTH-018 CLIENT-001..004 CLIENT-006..021 EGRESS-001 EXPO-001 EXPO-004 EXPO-006 HTTP-005 KEYS-001..006 LOG-004 PROTO-002 PROTO-005 SIGN-001..005 TLS-002 TOOL-007 TOOL-008',
    ),
  },
  {
    // One deployment per server of a laptop's client configuration: npx -y of a floating release with its token in env.
    name: 'a laptop: the entry `npx -y @modelcontextprotocol/server-github`, its token written in the entry',
    facts: () => FACTS('laptop-npx-github'),
    verdict: 'fail',
    fail: ids('CLIENT-003 CLIENT-006 CLIENT-009 CLIENT-012 CLIENT-013 INJ-001 SUPPLY-005 TOOL-002 TOOL-003'),
    undetermined: [],
    pass: ids(
      'AUTH-017 CLIENT-001 CLIENT-002 CLIENT-004 CLIENT-008 CLIENT-014 CLIENT-017 CLIENT-018 EGRESS-003 EGRESS-004 EXPO-006 LOG-002 LOG-004 SUPPLY-006 TOOL-001 TOOL-004',
    ),
    not_applicable: 'rest',
  },
  {
    // The same laptop's `npx mcp-remote@0.1.15 https://...`: the server is the remote one (http); the adapter is a
    // locked-at-the-top, vulnerable program the client launches (CVE-2025-6514). Under 1.2 nothing asked (F2), and
    // CLIENT-007 was not applicable because the server's revisions are 2025 ones (L1).
    name: 'the same laptop: the entry `npx mcp-remote@0.1.15` for a remote OAuth server of a 2025 revision',
    facts: () => FACTS('laptop-mcp-remote'),
    verdict: 'fail',
    fail: ids('CLIENT-003 CLIENT-006 CLIENT-007 CLIENT-009 CLIENT-010 CLIENT-012 CLIENT-017 CLIENT-019'),
    undetermined: 'rest',
    pass: ids('CLIENT-001 CLIENT-002 CLIENT-004 CLIENT-008 CLIENT-013 CLIENT-014 CLIENT-018 CLIENT-020'),
    not_applicable: ids(
      'AUTH-005 AUTH-013 AUTH-014 CLIENT-011 CLIENT-015 CLIENT-016 CLIENT-021 CONT-007 EXPO-006 KEYS-001 LOG-004 LOG-005 LOG-007..009 PROTO-001 PROTO-003 PROTO-006 RATE-004 SIGN-001..005 SUPPLY-007 TLS-002',
    ),
  },
  {
    // Under 1.2: TLS-002 excluded staging, and a world-readable .env had no value (AUTH-015 undetermined).
    name: 'a staging server in a VPC over plain HTTP, one static bearer token in a world-readable .env file',
    facts: () => FACTS('vpc-static-bearer'),
    verdict: 'fail',
    fail: ['AUTH-015', 'CONT-013', 'TLS-002'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-003 AUTH-005 AUTH-008..014 AUTH-016 AUTH-018..021 CLIENT-001..004 CLIENT-006..021 CONT-007 CONT-014 EXPO-003 EXPO-004 EXPO-006 HTTP-012 KEYS-001..006 LOG-004 LOG-005 LOG-007 LOG-008 PROTO-003 PROTO-005 RATE-004 RATE-006 SIGN-001..005 TLS-001 TLS-003..006 TOOL-005..008',
    ),
  },
  {
    name: 'a server that manages Docker for its callers, with /var/run/docker.sock mounted',
    facts: () => FACTS('docker-socket'),
    verdict: 'fail',
    fail: ['CONT-006', 'CONT-017'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 AUTH-018..021 CLIENT-001..004 CLIENT-006..021 CONT-014 EXPO-001 EXPO-004 EXPO-006 HTTP-012 KEYS-001..006 LOG-004 PROTO-003 PROTO-005 SIGN-001..005 TLS-002 TOOL-005..008',
    ),
  },
  {
    // Under 1.2: a signed pass (F1): nothing could say hostNetwork, hostPID or a hostPath of /.
    name: 'a node-diagnostics pod with hostNetwork, hostPID and the node root mounted, reached by kubectl port-forward',
    facts: () => FACTS('node-diagnostics-pod'),
    verdict: 'fail',
    fail: ['CONT-016', 'CONT-017'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-001 AUTH-006 AUTH-008..016 AUTH-019..021 CLIENT-001..004 CLIENT-006..021 EXPO-003 EXPO-004 EXPO-006 HTTP-012 KEYS-001..006 LOG-004 PROTO-003 PROTO-005 RATE-001 RATE-004 RATE-006 RATE-008 SIGN-001..005 TLS-001..006 TOOL-005..008',
    ),
  },
  {
    // Under 1.2: a signed pass (F4): NODE_TLS_REJECT_UNAUTHORIZED=0 in the clients' configuration could not be said.
    name: 'an internal server with a private CA whose clients turned TLS verification off',
    facts: () => FACTS('internal-no-tls-verify'),
    verdict: 'fail',
    fail: ['CLIENT-018'],
    undetermined: [],
    pass: 'rest',
    not_applicable: ids(
      'AUTH-006 AUTH-008..016 AUTH-018..021 CLIENT-007 CLIENT-010 CLIENT-011 CLIENT-016 CLIENT-019..021 EXPO-001 EXPO-004 EXPO-006 HTTP-012 KEYS-001..006 LOG-004 PROTO-003 PROTO-005 SIGN-001..005 TLS-001 TLS-004 TOOL-005..008',
    ),
  },
  {
    // Under 1.2: the doctrine's own sandbox recipe failed CONT-010 (no --cpus) and CONT-008 (no health endpoint on a
    // stdio child), and "no secrets" had no value (CONT-011, CONT-015 undetermined).
    name: "a laptop whose client runs a stdio server in the doctrine's own sandbox recipe",
    facts: () => FACTS('stdio-sandboxed-laptop'),
    verdict: 'pass',
    fail: ['CONT-013'],
    undetermined: [],
    pass: ids(
      'AUTH-017 CLIENT-001..004 CLIENT-006 CLIENT-008 CLIENT-009 CLIENT-012..014 CLIENT-017 CLIENT-018 CONT-001..006 CONT-009..012 CONT-015..017 EGRESS-003 EGRESS-004 EXPO-006 LOG-002 LOG-004 SUPPLY-005 SUPPLY-006 TOOL-001..004 TOOL-006',
    ),
    not_applicable: 'rest',
  },
  {
    // Under 1.2: AUTH-001 (critical) and RATE-001 (high) for a server only its own machine can reach.
    name: 'a desktop app serving MCP over HTTP on 127.0.0.1 without a credential, Origin and Host checked',
    facts: () => FACTS('loopback-desktop-app'),
    verdict: 'fail',
    fail: ['AUTH-018', 'EGRESS-002'],
    undetermined: [],
    pass: ids(
      'AUTH-002 AUTH-007 AUTH-017 EGRESS-003 EGRESS-004 EXPO-001 EXPO-002 EXPO-005 HTTP-001..003 HTTP-007..011 LOG-001..003 LOG-005 LOG-007..009 PROTO-001 PROTO-004 PROTO-006 RATE-003 SUPPLY-005..007 TOOL-001..004',
    ),
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
    expect(summary.advisories.undetermined_rule_ids).toEqual(['AUTH-013', 'AUTH-014', 'CONT-013', 'RATE-009', 'TOOL-002']);
    expect(summary.missing_facts.length).toBeGreaterThan(50);
  });

  it('Signet passes its own baseline: no critical or high failure in its compose stack or its Kubernetes manifests', () => {
    for (const name of ['compose', 'compose-oauth', 'kubernetes'] as const) {
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
    expect(summary.coverage['clients']).toEqual({ rules: 20, checked: 0, not_applicable: 20, undetermined: 0 });
    // The same facts with the client reviewed (and nothing wrong with it) pass: the scope was all that was missing.
    const reviewed = {
      ...FACTS('stdio-dev'),
      client: { reviewed: true, launches_stdio_servers: true, destructive_calls_confirmed: true },
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
      // The client launches this stdio server: from a locked install, sandboxed, with no known vulnerability.
      stdio_servers_release: 'locked',
      stdio_servers_sandboxed: true,
      stdio_servers_vulnerable: false,
      tls_verification_disabled: false,
      supports_sampling: false,
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
      rules: 5,
      failed_rule_ids: ['AUTH-013', 'CONT-013', 'RATE-009', 'TOOL-002'],
      undetermined_rule_ids: [],
    });
    const advisoryFindings = findings.filter((f) => f.advisory);
    expect(advisoryFindings.map((f) => f.rule_id)).toEqual(['AUTH-013', 'AUTH-014', 'CONT-013', 'RATE-009', 'TOOL-002']);
    expect(doctrine.rules.filter((r) => r.advisory).map((r) => r.id)).toEqual(['AUTH-013', 'AUTH-014', 'CONT-013', 'RATE-009', 'TOOL-002']);
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
      // 1.3.0: a stdio server its client does not launch, and a container that is not used, described anyway.
      ['FACTS-012', { transport: { kind: 'stdio' }, client: { reviewed: true, launches_stdio_servers: false } }],
      ['FACTS-013', { container: { used: false, docker_socket_mounted: true } }],
      // The audit of 1.3.0: a privileged container with a filter, elicitation modes of a server that sends none,
      // OAuth facts of clients that run no OAuth flow.
      ['FACTS-014', { container: { used: true, privileged: true, seccomp: 'runtime_default' } }],
      ['FACTS-015', { tools: { uses_elicitation: false, url_elicitation: true } }],
      ['FACTS-016', { client: { reviewed: true, uses_oauth: false, oauth_pkce_s256: true } }],
    ];
    expect(contradictions.map(([id]) => id)).toEqual(doctrine.constraints.slice(1).map((c) => c.id));
    // Each is named (FACTS-010's facts also break FACTS-013, which covers every container fact).
    for (const [id, f] of contradictions) expect(() => evaluateFacts(doctrine, f), id).toThrow(new RegExp(`[(, ]${id}[,)]`));
    // Several at once are all named; a constraint whose facts are partly missing is no contradiction.
    expect(() => evaluateFacts(doctrine, { ...facts, tls: { enabled: false, hsts: true } })).toThrow(/\(FACTS-001, FACTS-008\)/);
    expect(() => evaluateFacts(doctrine, { authentication: { method: 'none' } })).not.toThrow();
    for (const c of CASES) expect(() => evaluateFacts(doctrine, c.facts()), c.name).not.toThrow();
  });

  it('holds the constraints that list facts to the schema, so a new fact cannot slip past them', () => {
    // The facts a constraint reads: its vars, and the paths its missing_some lists (which only test presence).
    const read = (id: string) => {
      const c = doctrine.constraints.find((x) => x.id === id)!;
      const paths = new Set(c.facts);
      const walk = (node: unknown): void => {
        if (node === null || typeof node !== 'object') return;
        for (const [op, arg] of Object.entries(node)) {
          if (op === 'missing_some') for (const p of (arg as [number, string[]])[1]) paths.add(p);
          walk(arg);
        }
      };
      walk(c.check);
      return [...paths].sort();
    };
    const group = (g: string) => doctrine.factPaths.filter((p) => p.startsWith(`${g}.`));
    const onlyWith = (fact: string) =>
      group(fact.split('.')[0]!).filter((p) => schemaFact(p).description.startsWith(`Only with ${fact.split('.')[1]}.`));
    // FACTS-013: container.used false forbids every other container fact.
    expect(read('FACTS-013')).toEqual(group('container').sort());
    // FACTS-015 and FACTS-016: the facts described "Only with" their gate (URL mode's own one included).
    const elicitation = onlyWith('tools.uses_elicitation');
    expect(elicitation).toContain('tools.url_elicitation');
    expect(read('FACTS-015')).toEqual(['tools.uses_elicitation', ...elicitation, ...onlyWith('tools.url_elicitation')].sort());
    expect(read('FACTS-016')).toEqual(['client.uses_oauth', ...onlyWith('client.uses_oauth')].sort());
    // Given consistently they are accepted: a privileged container described as unconfined, URL-mode elicitation
    // of a server that sends elicitations, clients without OAuth that say nothing more.
    for (const f of [
      { container: { used: true, privileged: true, seccomp: 'unconfined' } },
      { tools: { uses_elicitation: true, url_elicitation: true, url_elicitation_user_verified: true } },
      { client: { reviewed: true, uses_oauth: false } },
    ])
      expect(() => evaluateFacts(doctrine, f), JSON.stringify(f)).not.toThrow();
  });

  it('counts what was checked, per area', () => {
    const { summary } = evaluateFacts(doctrine, FACTS('stdio-npx-latest'));
    expect(summary.checked).toBe(12);
    expect(Object.keys(summary.coverage).sort()).toEqual([...new Set(doctrine.rules.map((r) => r.category))].sort());
    const total = Object.values(summary.coverage).reduce((n, a) => n + a.rules, 0);
    expect(total).toBe(doctrine.rules.length);
    expect(summary.coverage['supply-chain']).toEqual({ rules: 7, checked: 2, not_applicable: 5, undetermined: 0 });
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

/** `base` with each group of `patch` merged in; a null fact or group is removed. */
function patched(base: Record<string, unknown>, patch: Record<string, Record<string, unknown> | null>): Record<string, unknown> {
  const out = structuredClone(base) as Record<string, Record<string, unknown>>;
  for (const [group, facts] of Object.entries(patch)) {
    if (facts === null) delete out[group];
    else for (const [k, v] of Object.entries(facts)) v === null ? delete (out[group] ??= {})[k] : ((out[group] ??= {})[k] = v);
  }
  return out;
}

/** A fact's schema entry, by dot path. */
function schemaFact(path: string): { description: string; enum?: string[] } {
  const schema = doctrine.meta.facts_schema as {
    properties: Record<string, { properties: Record<string, { description: string; enum?: string[] }> }>;
  };
  return schema.properties[path.split('.')[0]!]!.properties[path.split('.')[1]!]!;
}

describe('doctrine 1.3.0: one fact changed, the rule that reads it', () => {
  const status = (facts: Record<string, unknown>, id: string) => evaluateFacts(doctrine, facts).findings.find((f) => f.rule_id === id)!;
  const fact = schemaFact;

  it('EXPO-001 asks whether the internet reaches a server with no proxy; a port on all interfaces is CONT-009', () => {
    // L4: under 1.2 EXPO-001 (critical) failed this server, which the internet cannot reach.
    const lan = patched(FACTS('hardened'), {
      exposure: {
        behind_reverse_proxy: false,
        reachable_from_internet: false,
        endpoint_address_class: 'private',
        ingress_restricted_to_proxy: null,
      },
      container: { published_ports: 'all_interfaces' },
      tls: { backend_hop: null, hsts: null },
    });
    expect(status(lan, 'EXPO-001').status).toBe('pass');
    expect(status(lan, 'CONT-009').status).toBe('fail');
    expect(evaluateFacts(doctrine, lan).summary.failed_rule_ids).toEqual(['CONT-009']);
    // Reachable, the same server fails EXPO-001 whatever its bind and ports.
    expect(status(patched(lan, { exposure: { reachable_from_internet: true, endpoint_address_class: 'public' } }), 'EXPO-001').status).toBe(
      'fail',
    );
  });

  it('RATE-008 fails without a limiter instead of asking about the limiter that is not there', () => {
    const facts = patched(FACTS('hardened'), {
      rate_limit: { enabled: false, unauthenticated_limited: null, per_minute: null, scope: null },
    });
    const finding = status(facts, 'RATE-008');
    expect(finding.status).toBe('fail');
    expect(finding.missing_facts).toBeUndefined();
  });

  it('TLS-006 applies behind any proxy, internal ones too, and accepts the provider network only as stated', () => {
    // An in-cluster gateway to its backends: plaintext across nodes fails, internal or not.
    const backend = FACTS('k8s-gateway-backend');
    expect(status(patched(backend, { tls: { backend_hop: 'network_plaintext' } }), 'TLS-006').status).toBe('fail');
    // provider_network is an ALB to its targets in a VPC (the fact's own words): the Fargate deployment passes on it
    // alone, and the same deployment with plaintext across a network fails.
    const fargate = FACTS('fargate-alb-oauth');
    expect((fargate['tls'] as Record<string, unknown>)['backend_hop']).toBe('provider_network');
    expect(status(fargate, 'TLS-006').status).toBe('pass');
    expect(evaluateFacts(doctrine, patched(fargate, { tls: { backend_hop: 'network_plaintext' } })).summary.failed_rule_ids).toEqual([
      'TLS-006',
    ]);
    // What sends the hop decides: a proxy running in the cluster never qualifies, an EKS ALB in IP mode does.
    const hop = fact('tls.backend_hop').description;
    expect(hop).toMatch(/target-type: ip/);
    expect(hop).toMatch(/gateway or proxy running in the cluster can verify a certificate/);
  });

  it('CLIENT-007 asks every OAuth client for issuer validation, whatever revision the server speaks', () => {
    // L1: under 1.2 it read the server's transport.protocol_revisions, and a stdio laptop's OAuth clients escaped it.
    const laptop = patched(FACTS('stdio-laptop'), {
      transport: { protocol_revisions: null },
      client: { uses_oauth: true, oauth_iss_validated: false, authorization_urls_validated: true },
    });
    expect(status(laptop, 'CLIENT-007').status).toBe('fail');
  });

  it('needs no exposure or authentication facts of a stdio server, only what it uses downstream', () => {
    const dev = FACTS('stdio-dev');
    const minimal = patched(dev, { exposure: null, authentication: { required: null, method: null, token_passthrough: null } });
    expect(evaluateFacts(doctrine, minimal).summary).toEqual(evaluateFacts(doctrine, dev).summary);
  });

  it('counts tokens the server mints itself, and a host file other users can read', () => {
    const minted = patched(FACTS('hardened'), { authentication: { method: 'server_issued_tokens', key_rotation_days: 120 } });
    expect(status(minted, 'AUTH-005').status).toBe('fail');
    const envFile = patched(FACTS('vpc-static-bearer'), { authentication: { static_token_location: 'restricted_file' } });
    expect(status(envFile, 'AUTH-015').status).toBe('pass');
  });

  it('lists the allowed values of an enum fact it refuses', () => {
    expect(() => evaluateFacts(doctrine, { container: { secrets_source: 'vault' } })).toThrow(/facts do not match/);
    try {
      evaluateFacts(doctrine, { container: { secrets_source: 'vault' } });
    } catch (err) {
      expect((err as { details: unknown }).details).toEqual([
        {
          where: 'facts.container.secrets_source',
          message:
            'must be one of ["none","mounted_files","environment","baked_into_image","secret_manager","config_map","manifest_plaintext"]',
        },
      ]);
    }
  });
});

describe('doctrine 1.3.0: each new rule fails alone, on its own fact', () => {
  // The audit of 1.3.0 found some new rules failing only inside the catch-all exposed.json, and compensating controls
  // tested only where they hold. Here a deployment that passes gets one fact wrong, and the baseline rules that fail
  // are exactly the one that reads it: the rule fails for the reason it exists.
  const GATEWAY = 'k8s-gateway-keycloak-before-23'; // its clients use OAuth and are reviewed
  const failedAfter = (base: string, patch: Record<string, Record<string, unknown>>) =>
    evaluateFacts(doctrine, patched(FACTS(base), patch)).summary.failed_rule_ids;
  const cases: [string, string, Record<string, Record<string, unknown>>][] = [
    // F6: the authorization server's MUSTs, each sub-fact alone (the open registration case is in the golden table).
    ['AUTH-019', 'hardened-oauth', { authentication: { oauth_redirect_uris_exact: false } }],
    ['AUTH-020', 'hardened-oauth', { authentication: { oauth_pkce_s256_required: false } }],
    ['AUTH-020', 'hardened-oauth', { authentication: { oauth_endpoints_https: false } }],
    ['AUTH-021', 'hardened-oauth', { authentication: { oauth_refresh_tokens_rotated: false } }],
    // F7: the OAuth clients' MUSTs, each sub-fact alone.
    ['CLIENT-020', GATEWAY, { client: { oauth_pkce_s256: false } }],
    ['CLIENT-020', GATEWAY, { client: { oauth_resource_indicators: false } }],
    ['CLIENT-020', GATEWAY, { client: { oauth_credentials_per_issuer: false } }],
    // F8: a client that runs sampling requests without a person approving them.
    ['CLIENT-021', GATEWAY, { client: { supports_sampling: true, sampling_approved: false } }],
    // F9: URL-mode elicitation that accepts whoever opens the URL.
    [
      'TOOL-008',
      'hardened',
      {
        tools: { uses_elicitation: true, elicits_secrets_in_form_mode: false, url_elicitation: true, url_elicitation_user_verified: false },
      },
    ],
    // F4: the server's own outbound calls with certificate checks off (verify=False, NODE_TLS_REJECT_UNAUTHORIZED=0).
    ['EGRESS-004', 'hardened', { egress: { tls_verification_disabled: true } }],
    // F2: a known high or critical vulnerability in what runs; no scanning or patch window.
    ['SUPPLY-006', 'hardened', { supply_chain: { known_vulnerabilities: true } }],
    ['SUPPLY-007', 'hardened', { supply_chain: { vulnerabilities_monitored: false } }],
    // Compensating controls that are not there: Fargate (no no-new-privileges) with setuid files in the image, and a
    // managed edge whose timeouts cannot be set but that does not absorb slow clients either.
    ['CONT-004', 'fargate-alb-oauth', { container: { setuid_files_absent: false } }],
    ['HTTP-010', 'fargate-alb-oauth', { http: { edge_absorbs_slow_clients: false } }],
  ];

  it('starts from deployments that pass', () => {
    for (const base of new Set(cases.map(([, b]) => b))) expect(evaluateFacts(doctrine, FACTS(base)).summary.verdict, base).toBe('pass');
  });

  it.each(cases)('%s fails alone on %s with %j', (id, base, patch) => {
    expect(failedAfter(base, patch)).toEqual([id]);
  });

  it('passes the same deployments with the control in place', () => {
    const status = (base: string, patch: Record<string, Record<string, unknown>>, id: string) =>
      evaluateFacts(doctrine, patched(FACTS(base), patch)).findings.find((f) => f.rule_id === id)!.status;
    expect(status(GATEWAY, { client: { supports_sampling: true, sampling_approved: true } }, 'CLIENT-021')).toBe('pass');
    const urlMode = {
      uses_elicitation: true,
      elicits_secrets_in_form_mode: false,
      url_elicitation: true,
      url_elicitation_user_verified: true,
    };
    expect(status('hardened', { tools: urlMode }, 'TOOL-008')).toBe('pass');
    // Fargate without the compensating controls but with the controls themselves passes the same rules.
    const fargate = { container: { setuid_files_absent: false, no_new_privileges: true }, http: { edge_absorbs_slow_clients: false } };
    expect(status('fargate-alb-oauth', { ...fargate, http: { ...fargate.http, request_read_deadline_seconds: 60 } }, 'HTTP-010')).toBe(
      'pass',
    );
    expect(status('fargate-alb-oauth', fargate, 'CONT-004')).toBe('pass');
  });

  it('EGRESS-004: the tunnel FastMCP server calling its upstream with verify=False fails it too, and nothing else changes', () => {
    const before = evaluateFacts(doctrine, FACTS('tunnel-fastmcp')).summary.failed_rule_ids;
    const after = failedAfter('tunnel-fastmcp', { egress: { tls_verification_disabled: true } });
    expect(before).not.toContain('EGRESS-004');
    expect([...after].sort()).toEqual([...before, 'EGRESS-004'].sort());
  });
});

describe('doctrine 1.3.0, amended: what the collectors and the probe could not say', () => {
  const status = (facts: Record<string, unknown>, id: string) =>
    evaluateFacts(doctrine, facts).findings.find((f) => f.rule_id === id)!.status;
  const fact = schemaFact;

  it('HTTP Basic at a proxy is a method: its password file hashed, its passwords random, rotated, no OAuth discovery', () => {
    // nginx auth_basic, Caddy basic_auth, Traefik basicAuth: an htpasswd entry per client.
    const basic = patched(FACTS('hardened'), { authentication: { method: 'http_basic', key_storage: 'slow_kdf' } });
    expect(evaluateFacts(doctrine, basic).summary.verdict).toBe('pass');
    for (const id of ['AUTH-003', 'AUTH-004', 'AUTH-005', 'HTTP-005']) expect(status(basic, id), id).toBe('pass');
    for (const id of ['AUTH-006', 'AUTH-008', 'AUTH-015']) expect(status(basic, id), id).toBe('not_applicable');
    // {PLAIN} entries, a password a person chose, a password kept for a year, /.well-known behind the password.
    expect(status(patched(basic, { authentication: { key_storage: 'plaintext' } }), 'AUTH-003')).toBe('fail');
    expect(status(patched(basic, { authentication: { key_entropy_bits: 40 } }), 'AUTH-004')).toBe('fail');
    expect(status(patched(basic, { authentication: { key_rotation_days: 365 } }), 'AUTH-005')).toBe('fail');
    expect(status(patched(basic, { http: { oauth_discovery_endpoints: 'unauthorized' } }), 'HTTP-005')).toBe('fail');
    // The password file's schemes, and one password shared by every client.
    for (const scheme of ['$apr1$', '{SHA}', '$2y$', '{PLAIN}']) expect(fact('authentication.key_storage').description).toContain(scheme);
    expect(fact('authentication.method').description).toMatch(/shared by every client is static_bearer/);
  });

  it('a secret a client passes into its stdio container with docker run -e VAR comes from the client: environment, or the committed file', () => {
    expect(fact('container.secrets_source').description).toMatch(/docker run -e VAR/);
    const laptop = FACTS('stdio-sandboxed-laptop');
    const fromClient = patched(laptop, { container: { secrets_source: 'environment' } });
    expect(evaluateFacts(doctrine, fromClient).summary.verdict).toBe('pass');
    // The value written in a project's committed .mcp.json: in version control, however delivered.
    const committed = patched(laptop, { container: { secrets_source: 'manifest_plaintext' }, client: { config_secrets_plaintext: true } });
    expect(evaluateFacts(doctrine, committed).summary.failed_rule_ids).toEqual(['CLIENT-013', 'CONT-015']);
  });

  it("on the host's network the server's own listen address decides its published ports and its bind", () => {
    expect(fact('container.published_ports').description).toMatch(/listen address decides/);
    expect(fact('exposure.bind_address_class').description).toMatch(/host's network/);
    // The node-diagnostics pod listens on the node's 127.0.0.1 (kubectl port-forward reaches it).
    const pod = FACTS('node-diagnostics-pod');
    expect((pod['container'] as Record<string, unknown>)['published_ports']).toBe('loopback');
    expect(status(pod, 'CONT-009')).toBe('pass');
    const everyInterface = patched(pod, { container: { published_ports: 'all_interfaces' }, exposure: { bind_address_class: 'public' } });
    expect(evaluateFacts(doctrine, everyInterface).summary.failed_rule_ids).toEqual(['CONT-009', 'CONT-016', 'CONT-017', 'EXPO-002']);
  });

  it('a body limit known only as a bound still decides HTTP-003; bodies over 10 MiB served with no limit found are 0', () => {
    expect(fact('http.max_body_bytes').description).toMatch(/10 MiB.*was served/s);
    const hardened = FACTS('hardened');
    // The proxy's client_max_body_size 1m, the server's own limit unknown: at most 1 MiB reaches the parser.
    expect(status(patched(hardened, { http: { max_body_bytes: 1048576 } }), 'HTTP-003')).toBe('pass');
    // The probe's 10 MiB + 1 byte body was served and nothing was refused.
    expect(status(patched(hardened, { http: { max_body_bytes: 0 } }), 'HTTP-003')).toBe('fail');
  });

  it("says how a collector decides runs_as_root: the files' user settings, else undecided (the image's default user)", () => {
    const d = fact('container.runs_as_root').description;
    for (const said of ['USER', 'user:', '--user', 'runAsUser', 'runAsNonRoot', 'FROM scratch', 'undecided', 'Config.User'])
      expect(d, said).toContain(said);
  });

  it('keys_in_query_string: a refused request is not an accepted one, whatever its status', () => {
    expect(fact('authentication.keys_in_query_string').description).toMatch(/400/);
    expect(fact('authentication.keys_in_query_string').description).not.toMatch(/any answer other than 401/);
  });
});

describe('a deployment described completely for 1.2.0', () => {
  // Every fact 1.3.0 added; hardened.json and hardened-oauth.json without them are 1.2.0's complete descriptions.
  const added = new Set([
    'authentication.downstream_credentials',
    'authentication.oauth_endpoints_https',
    'authentication.oauth_pkce_s256_required',
    'authentication.oauth_redirect_uris_exact',
    'authentication.oauth_refresh_tokens_rotated',
    'client.oauth_credentials_per_issuer',
    'client.oauth_pkce_s256',
    'client.oauth_resource_indicators',
    'client.oauth_urls_restricted',
    'client.sampling_approved',
    'client.stdio_servers_vulnerable',
    'client.supports_sampling',
    'client.tls_verification_disabled',
    'container.host_namespaces',
    'container.host_path_mounts',
    'container.setuid_files_absent',
    'egress.tls_verification_disabled',
    'http.edge_absorbs_slow_clients',
    'supply_chain.known_vulnerabilities',
    'supply_chain.vulnerabilities_monitored',
    'tools.url_elicitation',
    'tools.url_elicitation_user_verified',
  ]);
  const strip = (facts: Record<string, unknown>) =>
    [...added].reduce((f, p) => patched(f, { [p.split('.')[0]!]: { [p.split('.')[1]!]: null } }), facts);

  it('lists exactly the facts 1.3.0 added: 1.2.0 had 145 leaf facts', () => {
    const leaves = doctrine.factPaths.filter((p) => p.includes('.'));
    expect([...added].every((p) => leaves.includes(p))).toBe(true);
    expect(leaves.length - added.size).toBe(145);
  });

  it('does not pass a rule it cannot answer: incomplete, its missing facts the new ones, every one it left out among them', () => {
    for (const name of ['hardened', 'hardened-oauth']) {
      const full = FACTS(name);
      const { summary } = evaluateFacts(doctrine, strip(full));
      expect(summary.verdict, name).toBe('incomplete');
      expect(summary.failed_rule_ids, name).toEqual([]);
      expect(
        summary.missing_facts.filter((m) => !added.has(m)),
        name,
      ).toEqual([]);
      const left = [...added].filter((p) => (full[p.split('.')[0]!] as Record<string, unknown>)?.[p.split('.')[1]!] !== undefined);
      expect(summary.missing_facts, name).toEqual(expect.arrayContaining(left));
    }
  });
});

describe('a review of several deployments, one per server', () => {
  const verdict = (name: string) => evaluateFacts(doctrine, FACTS(name)).summary.verdict;

  it('declares the order and the client facts in doctrine.json, and reads them as declared', () => {
    expect(doctrine.meta.deployments!.verdict_order).toEqual(VERDICT_ORDER);
    expect(factSide(doctrine, 'client.destructive_calls_confirmed')).toBe('client');
    expect(factSide(doctrine, 'client.stdio_servers_release')).toBe('client_entry');
    expect(factSide(doctrine, 'supply_chain.deployed_release')).toBe('server');
    expect(worstVerdict([])).toBe('incomplete');
    expect(worstVerdict(['pass', 'limited_scope'])).toBe('limited_scope');
    expect(worstVerdict(['limited_scope', 'incomplete', 'pass'])).toBe('incomplete');
    expect(worstVerdict(['pass', 'fail', 'incomplete'])).toBe('fail');
  });

  it('a laptop launching mixed servers: each entry its own verdict, the review the worst, client facts shared', () => {
    const entries = ['laptop-npx-github', 'laptop-mcp-remote', 'stdio-sandboxed-laptop'];
    expect(entries.map(verdict)).toEqual(['fail', 'fail', 'pass']);
    expect(worstVerdict(entries.map(verdict))).toBe('fail');
    // The client application's facts are the same in every deployment of one client configuration.
    const appFacts = (name: string) =>
      Object.fromEntries(Object.entries(FACTS(name)['client'] as object).filter(([k]) => factSide(doctrine, `client.${k}`) === 'client'));
    const shared = [
      'destructive_calls_confirmed',
      'trusts_annotations_from_untrusted_servers',
      'tool_names_namespaced',
      'schema_refs_local_only',
    ];
    for (const name of entries.slice(1))
      for (const k of shared) expect(appFacts(name)[k], `${name}: ${k}`).toEqual(appFacts(entries[0]!)[k]);
  });

  it('a gateway and its backends: the backend with one admin account fails the review, the others pass', () => {
    const gateway = 'k8s-gateway-keycloak-before-23';
    expect(worstVerdict([gateway, 'k8s-gateway-backend'].map(verdict))).toBe('pass');
    expect(worstVerdict([gateway, 'k8s-gateway-backend', 'k8s-gateway-backend-admin'].map(verdict))).toBe('fail');
  });
});
