// Signet's own deployment fact sets (deploy/facts/*.json) are a description, and a description
// can drift from what it describes. Every fact that can be read from the shipped files is read
// here and compared with the fact set, so a change to the compose file, the manifests, the
// Dockerfile or the proxy templates that changes a fact fails until the fact set says so.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULT_KEY_LIFETIME } from '../../../src/api-keys/lifetime.js';
import { parseDeclared } from '../../../src/check/declared.js';
import { leaves as factLeaves } from '../../../src/check/facts-tree.js';
import { runCheck } from '../../../src/check/run.js';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { REDACT_PATHS } from '../../../src/log.js';
import { TOOLS } from '../../../src/tools/index.js';
import { collectWith, repoFiles } from '../../helpers/collect.js';
import { DEFAULT_DOCTRINE, ROOT } from '../../helpers/paths.js';
import { KINDS, type SignetKind, signetDeployment } from '../../helpers/signet-deployments.js';

// Parsed YAML and JSON, read by dot paths: its shape is what the schema checks and the assertions test.
type Obj = any;
interface FactSet {
  description: string;
  sources: string[];
  notes: { facts: string[]; note: string }[];
  facts: Obj;
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/**
 * A deployment's facts as `signet check` evaluates them: collected from the shipped files, plus
 * the few deploy/facts/<kind>.json declares. Every assertion below holds them to the source.
 */
const factSet = (name: SignetKind): FactSet => ({
  ...(JSON.parse(read(`deploy/facts/${name}.json`)) as FactSet),
  facts: signetDeployment(name).facts,
});
const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
// merge: the services share the hardening settings through a YAML merge key (<<: *hardening).
const compose = parse(read('docker-compose.yml'), { merge: true }) as Obj;
/** `${VAR:-default}` → default, as compose resolves it with nothing set. */
/** A compose value as compose resolves it with nothing set: `${VAR:-default}` → default, `${VAR:+alternative}` → empty. */
const composeValue = (v: unknown) =>
  String(v)
    .replace(/\$\{[A-Z_]+:\+[^}]*\}/g, '')
    .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
const k8s = readdirSync(join(ROOT, 'deploy/kubernetes/base'))
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((f) => parseAllDocuments(read(`deploy/kubernetes/base/${f}`)).map((d) => d.toJS() as Obj));
const deployments = k8s.filter((o) => o['kind'] === 'Deployment');
const policies = k8s.filter((o) => o['kind'] === 'NetworkPolicy');
const deployment = (name: string) => deployments.find((d) => d['metadata'].name === name)!;
const selects = (selector: Obj, labels: Obj) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const proxyTemplates = readdirSync(join(ROOT, 'proxy/templates'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.template'))
  .map((f) => read(`proxy/templates/${f}`))
  .join('\n');
const dockerfile = read('Dockerfile');

/** Facts that the shipped build and proxy give both deployments. */
function sharedFacts(f: Obj): void {
  // The Dockerfile: lockfile, no install scripts, an SBOM in the image, no signature audit, base by tag.
  expect(f['supply_chain']['lockfile_enforced']).toBe(/npm ci\b/.test(dockerfile) && !/npm install\b/.test(dockerfile));
  expect(f['supply_chain']['install_scripts_disabled']).toBe(/npm ci[^\n]*--ignore-scripts/.test(dockerfile));
  const sbomInImage = /npm sbom/.test(dockerfile) && /COPY --from=build \/app\/sbom\.cdx\.json/.test(dockerfile);
  expect(f['supply_chain']['sbom_published']).toBe(sbomInImage);
  expect(f['supply_chain']['provenance_verified']).toBe(/npm audit signatures/.test(dockerfile));
  expect(/^ARG NODE_IMAGE=\S+@sha256:/m.test(dockerfile)).toBe(false);
  // The proxy: no credential in any log format, the error log above info, OAuth discovery 404s.
  const logFormat = proxyTemplates.match(/log_format[\s\S]*?;\n/)![0];
  expect(f['logging']['logs_authorization_header']).toBe(/\$http_authorization/.test(logFormat));
  expect(proxyTemplates).toMatch(/error_log \S+ warn;/);
  expect(f['logging']['edge_logs_rejected_header_values']).toBe(false);
  expect(f['http']['oauth_discovery_endpoints']).toBe('not_found');
  expect(proxyTemplates).toMatch(/location \^~ \/\.well-known\/oauth-protected-resource \{[^}]*return 404/);
  expect(proxyTemplates).toMatch(/location \^~ \/\.well-known\/oauth-authorization-server \{[^}]*return 404/);
  // Refused keys are limited per client address (limit_req after error_page 401); no per-client connection limit.
  expect(f['rate_limit']['unauthenticated_limited']).toBe(/limit_req\s/.test(proxyTemplates));
  if ('connections_per_client_limited' in f['http']) {
    expect(f['http']['connections_per_client_limited']).toBe(/limit_conn\s/.test(proxyTemplates));
  }
  // The deadline of a forwarded call (the token check's own, shorter one is not a call's).
  const forwarding = read('proxy/templates/proxy-headers.conf.template');
  expect(f['http']['execution_deadline_seconds']).toBe(Number(/proxy_read_timeout (\d+)s;/.exec(forwarding)![1]));
  // The server: redaction two levels down, a 90-day default key lifetime.
  expect(f['logging']['redacts_secrets']).toBe(REDACT_PATHS.includes('*.*.token') && REDACT_PATHS.includes('*.*.authorization'));
  expect(f['authentication']['key_rotation_days']).toBe(Number(/^(\d+)d$/.exec(DEFAULT_KEY_LIFETIME)![1]));
  expect(f['signing']['doctrine_verified_at_start']).toBe(true);
  expect(f['client']).toEqual({ reviewed: false });
  // What runs is the image the Dockerfile builds from the committed lockfile: every dependency locked.
  expect(f['supply_chain']['deployed_release']).toBe(
    /npm ci\b/.test(dockerfile) && existsSync(join(ROOT, 'package-lock.json')) ? 'locked' : 'floating',
  );
  // The audit trail: one event per request with who, which tool and the outcome, on stderr (collected by the runtime).
  const report = read('src/transports/http/middleware/request-report.ts');
  const audited =
    ['requestId:', 'keyId:', 'subject:', 'tool:', 'outcome:'].every((k) => report.includes(k)) && /fd: 2\b/.test(read('src/log.ts'));
  expect(f['logging']['tool_calls_audited']).toBe(audited);
  // The tools: no process started, no file named by an argument, no elicitation, no parameter sent as a header.
  const tools = readdirSync(join(ROOT, 'src/tools'))
    .filter((n) => n.endsWith('.ts'))
    .map((n) => read(`src/tools/${n}`))
    .join('\n');
  expect(f['tools']['runs_commands']).toBe(/child_process/.test(tools));
  expect(f['tools']['accesses_files']).toBe(/from 'node:fs/.test(tools));
  const everything = sourceText();
  expect(f['tools']['uses_elicitation']).toBe(/elicitation\/create/.test(everything));
  expect(f['tools']['sensitive_params_as_headers']).toBe(/x-mcp-header/.test(everything));
  // The schemas tools/list advertises, which the dispatcher enforces before a handler runs.
  const unbounded = TOOLS.flatMap((t) => unboundedInSchema(t.inputSchema(doctrine), t.name));
  expect(f['tools']['input_schemas_strict'], unbounded.join('; ')).toBe(unbounded.length === 0);
}

/**
 * Where an advertised inputSchema leaves input unbounded (TOOL-003): a string without maxLength
 * (or a closed enum/const), an array without maxItems (or unique items of an enum), an object
 * open to any member without maxProperties. Empty when every tool's schema is strict and bounded.
 */
function unboundedInSchema(schema: Obj, path: string): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const types: string[] = [].concat(schema.type ?? []);
  const closed = schema.enum !== undefined || schema.const !== undefined;
  const out: string[] = [];
  if (types.includes('string') && schema.maxLength === undefined && !closed) out.push(`${path}: string without maxLength`);
  if (types.includes('array') && schema.maxItems === undefined && !(schema.uniqueItems && schema.items?.enum))
    out.push(`${path}: array without maxItems`);
  if (types.includes('object') && schema.additionalProperties !== false && schema.maxProperties === undefined)
    out.push(`${path}: object open to any member without maxProperties`);
  for (const [k, v] of Object.entries<Obj>(schema.properties ?? {})) out.push(...unboundedInSchema(v, `${path}.${k}`));
  if (typeof schema.additionalProperties === 'object') out.push(...unboundedInSchema(schema.additionalProperties, `${path}.*`));
  out.push(...unboundedInSchema(schema.items, `${path}[]`));
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const v of schema[k] ?? []) out.push(...unboundedInSchema(v, path));
  return out;
}

/** Every TypeScript source file of the server, as one text. */
/** The server's source: not src/probe, the client that reads other servers' tools (and names their keywords). */
function sourceText(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (e.isDirectory() && `${dir}/${e.name}` === 'src/probe') continue;
      if (e.isDirectory()) walk(`${dir}/${e.name}`);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) files.push(read(`${dir}/${e.name}`));
    }
  };
  walk('src');
  return files.join('\n');
}

/** Environment variable names that hold a secret (a _FILE variable holds a path to one). */
const secretName = (name: string) => /PASSWORD|SECRET|TOKEN|_KEY$/.test(name) && !name.endsWith('_FILE');

describe('deploy/facts/compose.json describes docker-compose.yml', () => {
  const { facts: f, notes, sources } = factSet('compose');
  const signet = compose['services'].signet;
  const proxy = compose['services'].proxy;

  it('names its sources, and every note names facts it sets or leaves out on purpose', () => {
    for (const s of sources) expect(() => read(s), s).not.toThrow();
    for (const n of notes) expect(n.facts.length, n.note).toBeGreaterThan(0);
  });

  it('reads the container facts from the signet service', () => {
    expect(f['container']['read_only_root_fs']).toBe(signet.read_only === true);
    expect(f['container']['capabilities_dropped']).toBe(signet.cap_drop?.includes('ALL'));
    expect(f['container']['no_new_privileges']).toBe(signet.security_opt?.includes('no-new-privileges:true'));
    expect(f['container']['runs_as_root']).toBe(String(signet.user).split(':')[0] === '0');
    expect(f['container']['privileged']).toBe(signet.privileged === true);
    expect(f['container']['docker_socket_mounted']).toBe((signet.volumes ?? []).some((v: string) => v.includes('docker.sock')));
    expect(f['container']['published_ports']).toBe(signet.ports ? 'all_interfaces' : 'none');
    expect(f['container']['resource_limits']).toBe(Boolean(signet.mem_limit && signet.cpus && signet.pids_limit));
    expect(f['container']['healthcheck']).toBe(Boolean(signet.healthcheck?.test));
    expect(f['container']['image_pinned_by_digest']).toBe(false);
    const seccompOption = (signet.security_opt ?? []).some((o: string) => o.startsWith('seccomp'));
    expect(f['container']['seccomp']).toBe(seccompOption ? 'custom' : 'runtime_default');
    // Every service has limits, not only signet.
    for (const [name, svc] of Object.entries<Obj>(compose['services'])) {
      expect(Boolean(svc.mem_limit && svc.cpus && svc.pids_limit), name).toBe(true);
    }
    // No host namespace, and only named volumes (a bind mount names a path, a volume a key of `volumes:`).
    const hostNamespaces = ['network_mode', 'pid', 'ipc'].some((k) => signet[k] === 'host');
    expect(f['container']['host_namespaces']).toBe(hostNamespaces);
    const binds = (signet.volumes ?? []).filter((v: string) => !Object.hasOwn(compose['volumes'], v.split(':')[0]!));
    expect(f['container']['host_path_mounts']).toBe(binds.length === 0 ? 'none' : 'host_system');
  });

  it('reads exposure and egress from the networks and the published ports', () => {
    // signet's networks are all internal: the proxy's backend network, and Redis's own (scale profile).
    expect(signet.networks).toContain('backend');
    for (const n of signet.networks as string[]) expect(compose['networks'][n].internal, n).toBe(true);
    expect(compose['services'].proxy.networks).not.toContain('redis');
    expect(f['egress']['network_restricted']).toBe(true);
    expect(f['egress']['cloud_metadata_credentials_reachable']).toBe(false);
    expect(proxy.ports.every((p: string) => composeValue(p).startsWith('127.0.0.1:'))).toBe(true);
    expect(f['exposure']).toMatchObject({ endpoint_address_class: 'loopback', reachable_from_internet: false, behind_reverse_proxy: true });
    expect(f['tls']['enabled']).toBe(false);
    // One compose project runs on one engine: the proxy reaches signet over a bridge network of
    // that host, in plain HTTP (no upstream CA, so the scheme step 39 picks is http).
    expect(proxyTemplates).toMatch(/proxy_pass \$\{EDGE_UPSTREAM_SCHEME\}:\/\/signet_backend\b/);
    expect(proxy.environment['SIGNET_PROXY_UPSTREAM_CA_FILE']).toBeUndefined();
    expect(f['tls']['backend_hop']).toBe('same_host');
  });

  it('reads where secrets come from: files on volumes, never a literal in the compose file', () => {
    for (const [name, svc] of Object.entries<Obj>(compose['services'])) {
      for (const [k, v] of Object.entries<unknown>(svc.environment ?? {})) {
        // A secret-named variable is empty by default and comes from the operator's environment, never written here.
        if (secretName(k)) expect(composeValue(v), `${name}.${k}`).toBe('');
      }
    }
    expect(f['container']['secrets_source']).toBe('mounted_files');
  });

  it('reads limits, logging and the pinned doctrine from the environment', () => {
    const env = Object.fromEntries(Object.entries(signet.environment as Obj).map(([k, v]) => [k, composeValue(v)]));
    expect(env['SIGNET_DOCTRINE_HASH']).toBe(doctrine.hash);
    expect(f['rate_limit']['per_minute']).toBe(Number(env['SIGNET_RATE_LIMIT_PER_MINUTE']));
    expect(f['rate_limit']['scope']).toBe(Number(env['SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE']) > 0 ? 'ip_and_key' : 'ip');
    expect(f['logging']['level']).toBe(env['SIGNET_LOG_LEVEL']);
    expect(f['deployment']['replicas']).toBe(1);
  });

  it('shares the build and proxy facts', () => sharedFacts(f));
});

describe('deploy/facts/kubernetes.json describes deploy/kubernetes/base', () => {
  const { facts: f, sources } = factSet('kubernetes');

  it('names its sources', () => {
    for (const s of sources) expect(existsSync(join(ROOT, s)), s).toBe(true);
  });

  it('reads the container facts from every Deployment', () => {
    for (const d of deployments) {
      const spec = d['spec'].template.spec;
      const name = d['metadata'].name;
      expect(spec.automountServiceAccountToken, name).toBe(!!f['container']['service_account_token_mounted']);
      expect(spec.securityContext.seccompProfile?.type, name).toBe('RuntimeDefault');
      expect(spec.securityContext.runAsNonRoot, name).toBe(!f['container']['runs_as_root']);
      expect(spec.hostUsers === false, name).toBe(f['container']['user_namespace']);
      for (const c of spec.containers) {
        expect(c.securityContext.readOnlyRootFilesystem, name).toBe(f['container']['read_only_root_fs']);
        expect(c.securityContext.capabilities.drop, name).toContain('ALL');
        expect(c.securityContext.allowPrivilegeEscalation, name).toBe(false);
        expect(c.securityContext.privileged ?? false, name).toBe(f['container']['privileged']);
        expect(Boolean(c.resources?.limits?.cpu && c.resources?.limits?.memory), name).toBe(f['container']['resource_limits']);
        expect(String(c.image).includes('@sha256:'), name).toBe(f['container']['image_pinned_by_digest']);
        expect(Boolean(c.livenessProbe && c.readinessProbe), name).toBe(f['container']['healthcheck']);
        expect(
          (c.ports ?? []).some((p: Obj) => p.hostPort),
          name,
        ).toBe(false);
      }
      expect(
        ['hostNetwork', 'hostPID', 'hostIPC'].some((k) => spec[k] === true),
        name,
      ).toBe(f['container']['host_namespaces']);
      expect((spec.volumes ?? []).some((v: Obj) => v.hostPath) ? 'host_system' : 'none', name).toBe(f['container']['host_path_mounts']);
    }
    expect(f['container']['seccomp']).toBe('runtime_default');
  });

  it('reads exposure, egress and the pinned doctrine from the policies and the signet Deployment', () => {
    for (const d of deployments) {
      const labels = d['spec'].template.metadata.labels;
      const mine = policies.filter((p) => selects(p['spec'].podSelector.matchLabels, labels));
      expect(
        mine.some((p) => p['spec'].policyTypes.includes('Egress')),
        `${d['metadata'].name} has an egress policy`,
      ).toBe(true);
      expect(
        mine.some((p) => p['spec'].policyTypes.includes('Ingress')),
        `${d['metadata'].name} has an ingress policy`,
      ).toBe(true);
    }
    const signetPolicy = policies.find((p) => p['metadata'].name === 'signet')!;
    // Out of the signet pods: Redis and DNS only, no ipBlock, so no internet and no metadata service.
    expect(signetPolicy['spec'].egress.flatMap((r: Obj) => r.to).every((t: Obj) => !t.ipBlock)).toBe(true);
    expect(f['egress']).toMatchObject({ network_restricted: true, cloud_metadata_credentials_reachable: false });
    const mcp = signetPolicy['spec'].ingress.find((r: Obj) => r.ports.some((p: Obj) => p.port === 3000));
    expect(mcp.from).toHaveLength(1);
    expect(f['exposure']['ingress_restricted_to_proxy']).toBe(true);
    for (const s of k8s.filter((o) => o['kind'] === 'Service')) expect(s['spec'].type, s['metadata'].name).toBe('ClusterIP');
    const signet = deployment('signet');
    expect(f['deployment']['replicas']).toBe(signet['spec'].replicas);
    const env = Object.fromEntries(signet['spec'].template.spec.containers[0].env.map((e: Obj) => [e.name, e.value]));
    expect(env['SIGNET_DOCTRINE_HASH']).toBe(doctrine.hash);
    expect(f['rate_limit']['shared_across_replicas']).toBe(Boolean(env['SIGNET_REDIS_URL']));
    expect(f['signing_key']['source']).toBe(env['SIGNET_SIGNING_KEY_FILE'] ? 'file' : 'generated_per_start');
    const keyVolume = signet['spec'].template.spec.volumes.find((v: Obj) => v.secret?.secretName === 'signet-signing-key');
    expect(f['signing_key']['file_mode_restricted']).toBe((keyVolume.secret.defaultMode & 0o007) === 0);
  });

  it('reads where secrets come from (Secrets, never a ConfigMap or a literal) and the hop from the proxy pods', () => {
    for (const d of deployments) {
      for (const c of d['spec'].template.spec.containers) {
        for (const e of c.env ?? []) {
          if (!secretName(e.name)) continue;
          expect(e.value, `${d['metadata'].name}: ${e.name} is no literal`).toBeUndefined();
          expect(e.valueFrom?.secretKeyRef, `${d['metadata'].name}: ${e.name} from a Secret`).toBeDefined();
        }
      }
    }
    for (const cm of k8s.filter((o) => o['kind'] === 'ConfigMap')) {
      for (const k of Object.keys(cm['data'] ?? {})) expect(secretName(k), `${cm['metadata'].name}: ${k}`).toBe(false);
    }
    expect(f['container']['secrets_source']).toBe('mounted_files');
    // signet-proxy and signet are separate Deployments whose pods may run on different nodes:
    // encrypted only if signet serves HTTPS and the proxy verifies it (an upstream CA).
    expect(proxyTemplates).toMatch(/proxy_pass \$\{EDGE_UPSTREAM_SCHEME\}:\/\/signet_backend\b/);
    expect(deployment('signet-proxy')).toBeDefined();
    const signetEnv = new Set(deployment('signet')['spec'].template.spec.containers[0].env.map((e: Obj) => e.name));
    const proxyConfig = k8s.find((o) => o['kind'] === 'ConfigMap' && o['metadata'].name === 'signet-proxy')['data'];
    const verifiedTls =
      signetEnv.has('SIGNET_TLS_CERT_FILE') && signetEnv.has('SIGNET_TLS_KEY_FILE') && !!proxyConfig.SIGNET_PROXY_UPSTREAM_CA_FILE;
    expect(f['tls']['backend_hop']).toBe(verifiedTls ? 'encrypted' : 'network_plaintext');
  });

  it('shares the build and proxy facts', () => sharedFacts(f));
});

describe('deploy/facts/compose-oauth.json describes docker-compose.yml with deploy/compose.oauth.yml', () => {
  const { facts: f, sources } = factSet('compose-oauth');
  const overlay = parse(read('deploy/compose.oauth.yml')) as Obj;
  const base = factSet('compose').facts;

  it('names its sources, and differs from compose.json only in what the overlay changes', () => {
    for (const s of sources) expect(() => read(s), s).not.toThrow();
    const { authentication: a, http: h, ...rest } = f;
    const { authentication: baseA, http: baseH, ...baseRest } = base;
    expect(rest).toEqual(baseRest);
    expect({ ...h, oauth_discovery_endpoints: undefined, protected_resource_metadata_discoverable: undefined }).toEqual({
      ...baseH,
      oauth_discovery_endpoints: undefined,
    });
    expect({ ...a, method: baseA.method }).toMatchObject(baseA);
  });

  it('reads the OAuth facts from the overlay, the proxy steps and the token validator', () => {
    expect(f['authentication']['method']).toBe('oauth2');
    expect(overlay['services']['proxy'].environment.SIGNET_AUTH_MODE).toMatch(/keys\+oauth|oauth/);
    // Metadata served where clients look first (RFC 9728 path-aware), never 404, in the OAuth modes.
    const discovery = read('proxy/templates/blocks/discovery-oauth.template');
    expect(f['http']['protected_resource_metadata_discoverable']).toBe(
      /location = \/\.well-known\/oauth-protected-resource\$\{EDGE_OAUTH_RESOURCE_PATH\} \{\n(?:(?!\n {4}\}).)*?return 200 /s.test(
        discovery,
      ),
    );
    expect(f['http']['oauth_discovery_endpoints']).toBe('metadata');
    const validator = read('src/oauth/token-validator.ts');
    expect(f['authentication']['oauth_audience_validated']).toBe(/audience: \[\.\.\.this\.#o\.audiences\]/.test(validator));
    expect(f['authentication']['oauth_issuer_validated']).toBe(/issuer: this\.#o\.issuer/.test(validator));
    expect(f['authentication']['oauth_expiry_validated']).toBe(/requiredClaims: \['exp'/.test(validator));
    expect(f['authentication']['oauth_scopes_enforced']).toBe(
      /scopeCheck\(options\.scopePolicy\)/.test(read('src/transports/http/app.ts')),
    );
  });

  it('passes AUTH-008 to AUTH-011 and HTTP-012, with no critical or high failure', () => {
    const report = evaluateFacts(doctrine, f);
    const status = (id: string) => report.findings.find((x) => x.rule_id === id)?.status;
    for (const id of ['AUTH-008', 'AUTH-009', 'AUTH-010', 'AUTH-011', 'HTTP-012']) expect(status(id), id).toBe('pass');
    expect(report.summary.failed_by_severity).toMatchObject({ critical: 0, high: 0 });
  });
});

describe("Signet's deployments are collected, and deploy/facts declares only what no file shows", () => {
  for (const kind of Object.keys(KINDS) as SignetKind[]) {
    it(`${kind}: at least 85 % of the facts collected, every declared fact with its reason, no contradiction`, () => {
      const d = signetDeployment(kind);
      const leaves = (o: Obj, p = ''): string[] =>
        Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? leaves(v, `${p}${k}.`) : [`${p}${k}`]));
      const all = leaves(d.facts);
      const collected = all.filter((p) => d.collected.sources[p] !== undefined);
      expect(collected.length + d.declared.length).toBe(all.length);
      expect(collected.length / all.length, `${collected.length} of ${all.length} collected`).toBeGreaterThanOrEqual(0.85);
      // runCheck refuses a declared fact that contradicts a collected one, so reaching here means none does.
      const raw = JSON.parse(read(KINDS[kind].declared)) as FactSet;
      const noted = new Set(raw.notes.flatMap((n) => n.facts));
      for (const p of d.declared) expect(noted.has(p), `${p} is declared without a reason`).toBe(true);
      for (const p of collected) expect(d.collected.sources[p]!.length, p).toBeGreaterThan(0);
      // The report counts what the files decided alone apart from what rests on the Signet profile.
      const profile = collected.filter((p) => d.collected.sources[p]!.some((x) => 'profile' in x));
      const counts = d.report.deployments.find((x) => x.name === KINDS[kind].deployment)!.counts;
      expect(counts).toMatchObject({ files: collected.length - profile.length, profile: profile.length, declared: d.declared.length });
    });
  }
});

// What a reviewer passes to `signet check` varies: the manifests with or without the package
// files or the Dockerfile. Fewer files may leave facts undecided, but the release they run may
// never be read differently, and what deploy/facts declares must agree with every fact such a
// collection also states (a declared `locked` against a collected `exact_version` was exit 2).
describe('deploy/facts agrees with what any subset of the build files collects', () => {
  const WITHOUT: Record<string, (f: string) => boolean> = {
    'all files': () => true,
    'no package.json, no lockfile': (f) => f !== 'package.json' && f !== 'package-lock.json',
    'no Dockerfile': (f) => f !== 'Dockerfile',
  };
  for (const kind of Object.keys(KINDS) as SignetKind[]) {
    for (const [variant, keep] of Object.entries(WITHOUT)) {
      it(`${kind}, ${variant}`, () => {
        const k = KINDS[kind];
        const full = Object.fromEntries(factLeaves(signetDeployment(kind).collected.facts));
        const collection = collectWith(repoFiles(...k.files.filter(keep)), k.options);
        const d = collection.deployments.find((x) => x.name === k.deployment);
        expect(d, `${k.deployment} among ${collection.deployments.map((x) => x.name).join(', ')}`).toBeDefined();
        const got = Object.fromEntries(factLeaves(d!.facts));
        for (const [path, value] of Object.entries(got).filter(([p]) => p.startsWith('supply_chain.'))) {
          expect(value, `${path} (${d!.sources[path]?.[0]?.why})`).toEqual(full[path]);
        }
        const path = k.declared;
        const declared = parseDeclared(doctrine, path, readFileSync(join(ROOT, path)));
        const stated = factLeaves(declared.facts).filter(([p]) => p in got);
        for (const [p, value] of stated) expect(got[p], p).toEqual(value);
        // runCheck throws on a declared fact that contradicts a collected one.
        expect(runCheck(doctrine, { collection: { ...collection, deployments: [d!] }, declared }).deployments).toHaveLength(1);
      });
    }
  }
});
