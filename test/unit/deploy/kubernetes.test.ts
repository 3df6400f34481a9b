// The Kubernetes manifests, checked without a cluster: rendered by kubectl kustomize, they
// validate against the Kubernetes schemas (kubernetes-models), every reference resolves, and
// images and environment match the compose stack.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { docRecipe } from '../../helpers/doc-recipe.js';
import { ROOT } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

// Parsed YAML and JSON, read by dot paths: its shape is what the schema checks and the assertions test.
type Obj = any;
const KUSTOMIZE = join(ROOT, 'deploy/kubernetes');

/** A recipe of docs/operations.md. */
const recipe = (name: string) => docRecipe('operations.md', name);

/**
 * The manifests as the cluster gets them: `kubectl kustomize`, run on a copy of
 * deploy/kubernetes in which the dev overlay's git-ignored secret files exist, as they do once
 * its header's commands ran: the Redis password made by the recipe of docs/operations.md, the
 * others with dummy content. `extra` adds files (path → content) under the copy.
 */
function build(overlay: string, extra: Record<string, string> = {}): Obj[] {
  const root = tempDir('signet-kustomize-');
  const copy = join(root, 'deploy/kubernetes');
  cpSync(KUSTOMIZE, copy, { recursive: true });
  execFileSync('bash', ['-e', '-o', 'pipefail', '-c', recipe('dev-secrets')], { cwd: root });
  const secrets = join(copy, 'overlays/dev/secrets');
  for (const f of ['signing-key.pem', 'keys.json']) if (!existsSync(join(secrets, f))) writeFileSync(join(secrets, f), 'generated');
  for (const [path, content] of Object.entries(extra)) {
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    writeFileSync(join(copy, path), content);
  }
  const out = execFileSync('kubectl', ['kustomize', join(copy, overlay)], { encoding: 'utf8' });
  const objects = parseAllDocuments(out).map((d) => d.toJS() as Obj);
  // kustomize folds long base64 values over lines; the API server's decoder skips the line
  // breaks, the schema's "byte" format does not.
  for (const o of objects)
    if (o['kind'] === 'Secret') for (const k of Object.keys(o['data'] ?? {})) o['data'][k] = String(o['data'][k]).replace(/\s/g, '');
  return objects;
}

const base = build('base');
const dev = build('overlays/dev');
const devOAuth = build('overlays/dev-oauth');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Obj;
const byKind = (objs: Obj[], kind: string) => objs.filter((o) => o['kind'] === kind);
const deployment = (objs: Obj[], name: string) => byKind(objs, 'Deployment').find((d) => d['metadata'].name === name)!;
const matches = (selector: Obj, labels: Obj) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);
interface Peer {
  namespace: string;
  labels: Obj;
}

/** A NetworkPolicy peer (podSelector, namespaceSelector, both, or ipBlock) matches `p`. */
function peerMatches(peer: Obj, p: Peer, policyNamespace = 'signet'): boolean {
  if (peer.ipBlock) return true; // no ipBlock here narrows anything; treat as "any address"
  const ns = peer.namespaceSelector
    ? matches(peer.namespaceSelector.matchLabels ?? {}, { 'kubernetes.io/metadata.name': p.namespace })
    : p.namespace === policyNamespace;
  const pods = peer.podSelector ? matches(peer.podSelector.matchLabels ?? {}, p.labels) : true;
  return ns && pods;
}

function portMatches(ports: Obj[] | undefined, port: number, protocol: string): boolean {
  return ports === undefined || ports.length === 0 || ports.some((x) => x.port === port && (x.protocol ?? 'TCP') === protocol);
}

/**
 * Does the set of policies let `from` open `port` on `to`? Kubernetes semantics: a direction is
 * open for a pod that no policy of that type selects; else some selecting policy must have a
 * rule allowing it. Both the sender's egress and the receiver's ingress must allow.
 */
function allows(policies: Obj[], from: Peer, to: Peer, port: number, protocol: string): boolean {
  const side = (pod: Peer, type: 'Ingress' | 'Egress', other: Peer) => {
    if (pod.namespace !== 'signet') return true; // pods of other namespaces: their policies are not ours
    const selecting = policies.filter(
      (p) => (p.policyTypes ?? ['Ingress']).includes(type) && matches(p.podSelector.matchLabels ?? {}, pod.labels),
    );
    if (selecting.length === 0) return true;
    const rules = selecting.flatMap((p) => (type === 'Ingress' ? p.ingress : p.egress) ?? []);
    return rules.some((r: Obj) => {
      const peers = (type === 'Ingress' ? r.from : r.to) as Obj[] | undefined;
      return (
        (peers === undefined || peers.length === 0 || peers.some((x) => peerMatches(x, other))) && portMatches(r.ports, port, protocol)
      );
    });
  };
  return side(from, 'Egress', to) && side(to, 'Ingress', from);
}

/** `${VAR:-default}` and `${VAR-default}` → default, as compose resolves them with nothing set. */
const composeValue = (v: unknown) => String(v).replace(/\$\{[A-Z_]+:?-([^}]*)\}/g, '$1');

describe.each([
  ['base', base],
  ['overlay dev', dev],
  ['overlay dev-oauth', devOAuth],
])('Kubernetes manifests (%s)', (_name, objects) => {
  it('validate against the Kubernetes schemas', () => {
    const models: Record<string, new (o: Obj) => { validate(): void }> = {
      Deployment,
      Service,
      NetworkPolicy,
      ConfigMap,
      Secret,
      Namespace,
    };
    for (const o of objects) {
      const Model = models[o['kind']];
      expect(Model, `no schema model for ${o['kind']}`).toBeDefined();
      expect(() => new Model!(o).validate(), `${o['kind']}/${o['metadata'].name}`).not.toThrow();
    }
  });

  it('resolve every reference: selectors, ports, probes, ConfigMaps and Secrets', () => {
    const deployments = byKind(objects, 'Deployment');
    for (const d of deployments)
      expect(matches(d['spec'].selector.matchLabels, d['spec'].template.metadata.labels), d['metadata'].name).toBe(true);
    for (const s of byKind(objects, 'Service')) {
      const targets = deployments.filter((d) => matches(s['spec'].selector, d['spec'].template.metadata.labels));
      expect(targets, `Service ${s['metadata'].name} selects exactly one Deployment`).toHaveLength(1);
      const ports = targets[0]!['spec'].template.spec.containers.flatMap((c: Obj) => c.ports ?? []);
      for (const p of s['spec'].ports)
        expect(
          ports.some((cp: Obj) => cp.name === p.targetPort || cp.containerPort === p.targetPort),
          `${s['metadata'].name}:${p.targetPort}`,
        ).toBe(true);
    }
    const names = (kind: string) => new Set(byKind(objects, kind).map((o) => o['metadata'].name));
    for (const d of deployments) {
      const spec = d['spec'].template.spec;
      for (const c of spec.containers) {
        const portNames = new Set((c.ports ?? []).map((p: Obj) => p.name));
        for (const probe of [c.livenessProbe, c.readinessProbe].filter(Boolean)) {
          const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
          if (port !== undefined) expect(portNames.has(port), `${d['metadata'].name} probe port ${port}`).toBe(true);
        }
        for (const e of c.envFrom ?? []) if (e.configMapRef) expect(names('ConfigMap').has(e.configMapRef.name)).toBe(true);
        for (const m of c.volumeMounts ?? [])
          expect(
            spec.volumes.some((v: Obj) => v.name === m.name),
            `${d['metadata'].name} mount ${m.name}`,
          ).toBe(true);
      }
      for (const v of spec.volumes ?? [])
        if (v.secret && _name !== 'base') expect(names('Secret').has(v.secret.secretName), `Secret ${v.secret.secretName}`).toBe(true);
    }
    for (const np of byKind(objects, 'NetworkPolicy')) {
      const target = deployments.filter((d) => matches(np['spec'].podSelector.matchLabels, d['spec'].template.metadata.labels));
      expect(target.length, `NetworkPolicy ${np['metadata'].name} selects pods`).toBeGreaterThan(0);
      const containerPorts = target.flatMap((t) =>
        t['spec'].template.spec.containers.flatMap((c: Obj) => (c.ports ?? []).map((p: Obj) => p.containerPort)),
      );
      for (const rule of np['spec'].ingress ?? []) for (const p of rule.ports ?? []) expect(containerPorts).toContain(p.port);
    }
    for (const d of deployments) {
      for (const e of d['spec'].template.spec.containers.flatMap((c: Obj) => c.env ?? [])) {
        if (e.valueFrom?.configMapKeyRef)
          expect(
            byKind(objects, 'ConfigMap').find((c) => c['metadata'].name === e.valueFrom.configMapKeyRef.name)?.['data'],
            e.name,
          ).toHaveProperty(e.valueFrom.configMapKeyRef.key);
        if (e.valueFrom?.secretKeyRef && _name !== 'base') {
          expect(
            byKind(objects, 'Secret').find((c) => c['metadata'].name === e.valueFrom.secretKeyRef.name)?.['data'],
            e.name,
          ).toHaveProperty(e.valueFrom.secretKeyRef.key);
        }
      }
    }
  });

  it('allow exactly the flows Signet needs, in and out: everything else is denied (NetworkPolicy semantics)', () => {
    const pod = (name: string) => ({ namespace: 'signet', labels: deployment(objects, name)['spec'].template.metadata.labels as Obj });
    const proxy = pod('signet-proxy');
    const signet = pod('signet');
    const redis = pod('redis');
    const auth = pod('signet-auth');
    const dns = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
    const prometheus = { namespace: 'signet', labels: { 'app.kubernetes.io/name': 'prometheus' } };
    const monitoring = { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } };
    const stranger = { namespace: 'signet', labels: { app: 'other' } };
    const elsewhere = { namespace: 'default', labels: { app: 'client' } };
    const flows: [string, Peer, Peer, number, string, boolean][] = [
      ['a client reaches the proxy', elsewhere, proxy, 8080, 'TCP', true],
      ["the proxy reaches signet's MCP port", proxy, signet, 3000, 'TCP', true],
      ['the proxy looks names up', proxy, dns, 53, 'UDP', true],
      ['signet reaches Redis', signet, redis, 6379, 'TCP', true],
      ['signet looks names up (TCP)', signet, dns, 53, 'TCP', true],
      ['Prometheus scrapes signet', prometheus, signet, 9464, 'TCP', true],
      ['Prometheus in its own namespace scrapes signet', monitoring, signet, 9464, 'TCP', true],
      ["another namespace's pod reaches signet's metrics", elsewhere, signet, 9464, 'TCP', false],
      ['the proxy reaches Redis', proxy, redis, 6379, 'TCP', false],
      ["the proxy reaches signet's metrics", proxy, signet, 9464, 'TCP', false],
      ["another pod reaches signet's MCP port", stranger, signet, 3000, 'TCP', false],
      ["another namespace reaches signet's MCP port", elsewhere, signet, 3000, 'TCP', false],
      ['another pod reaches Redis', stranger, redis, 6379, 'TCP', false],
      ['signet reaches anything else', signet, elsewhere, 443, 'TCP', false],
      ['the proxy reaches anything else', proxy, elsewhere, 443, 'TCP', false],
      ['Redis reaches anything (DNS included)', redis, dns, 53, 'UDP', false],
      ['Redis reaches signet', redis, signet, 3000, 'TCP', false],
      ['signet reaches the proxy', signet, proxy, 8080, 'TCP', false],
      // The auth check answers the proxy alone (pen test L1 of issue 28), and reaches nothing of the stack.
      ['the proxy asks the auth check', proxy, auth, 3100, 'TCP', true],
      ['signet asks the auth check', signet, auth, 3100, 'TCP', false],
      ['another pod asks the auth check', stranger, auth, 3100, 'TCP', false],
      ['another namespace asks the auth check', elsewhere, auth, 3100, 'TCP', false],
      ["the auth check reaches signet's MCP port", auth, signet, 3000, 'TCP', false],
      ['the auth check reaches Redis', auth, redis, 6379, 'TCP', false],
      // Its metrics (each API key's expiry among them), as signet's: Prometheus alone.
      ['Prometheus scrapes the auth check', prometheus, auth, 9464, 'TCP', true],
      ['Prometheus in its own namespace scrapes the auth check', monitoring, auth, 9464, 'TCP', true],
      ["another namespace's pod reaches the auth check's metrics", elsewhere, auth, 9464, 'TCP', false],
      ["the proxy reaches the auth check's metrics", proxy, auth, 9464, 'TCP', false],
    ];
    const policies = byKind(objects, 'NetworkPolicy').map((n) => n['spec'] as Obj);
    for (const [label, from, to, port, protocol, allowed] of flows) expect(allows(policies, from, to, port, protocol), label).toBe(allowed);
  });

  it("trust X-Forwarded-For only from the proxy pods' range, a documented value narrower than 10.0.0.0/8", () => {
    const env = deployment(objects, 'signet')['spec'].template.spec.containers[0].env as Obj[];
    const trusted = env.find((e) => e.name === 'SIGNET_TRUSTED_PROXIES')!;
    expect(trusted.value).toBeUndefined();
    expect(trusted.valueFrom.configMapKeyRef).toEqual({ name: 'signet-network', key: 'proxy-pods' });
    const value = byKind(objects, 'ConfigMap').find((c) => c['metadata'].name === 'signet-network')!['data']['proxy-pods'] as string;
    for (const cidr of value.split(',')) expect(Number(cidr.split('/')[1]), cidr).toBeGreaterThanOrEqual(16);
    expect(readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')).toContain('proxy-pods');
  });

  it('authenticate the proxy to signet with one Secret both mount, and scrapes with a token: never an address alone', () => {
    const signet = deployment(objects, 'signet')['spec'].template.spec;
    const proxy = deployment(objects, 'signet-proxy')['spec'].template.spec;
    const env = Object.fromEntries((signet.containers[0].env as Obj[]).map((e) => [e.name, e.value]));
    expect(env['SIGNET_PROXY_SECRET_FILE']).toBe('/run/proxy-auth/secret');
    expect(env['SIGNET_METRICS_TOKEN_FILE']).toBe('/run/metrics-auth/token');
    const proxyEnv = byKind(objects, 'ConfigMap').find((c) => c['metadata'].name === 'signet-proxy')!['data'];
    expect(proxyEnv['SIGNET_PROXY_SECRET_FILE']).toBe('/run/proxy-auth/secret');
    for (const [spec, mounts] of [
      [signet, { '/run/proxy-auth': 'signet-proxy-auth', '/run/metrics-auth': 'signet-metrics-auth' }],
      [proxy, { '/run/proxy-auth': 'signet-proxy-auth' }],
    ] as const) {
      for (const [path, secretName] of Object.entries(mounts)) {
        const mount = spec.containers[0].volumeMounts.find((m: Obj) => m.mountPath === path);
        expect(mount?.readOnly, path).toBe(true);
        // 0440 with the pod's fsGroup: its user reads it, others cannot (Signet refuses more).
        expect(spec.volumes.find((v: Obj) => v.name === mount.name).secret, path).toEqual({ secretName, defaultMode: 0o440 });
      }
    }
    for (const name of ['signet-proxy-auth', 'signet-metrics-auth']) {
      const secret = byKind(dev, 'Secret').find((c) => c['metadata'].name === name)!;
      expect(Buffer.from(Object.values(secret['data'] as Record<string, string>)[0]!, 'base64').toString(), name).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('give Redis a password from a Secret: signet reads it as a file, Redis holds only its SHA-256, no manifest or environment holds it', () => {
    const secretMount = (name: string) => {
      const spec = deployment(objects, name)['spec'].template.spec;
      const mount = spec.containers[0].volumeMounts.find((m: Obj) => m.mountPath === '/run/redis-auth');
      expect(mount.readOnly, name).toBe(true);
      return spec.volumes.find((v: Obj) => v.name === mount.name).secret;
    };
    const item = (key: string) => ({ secretName: 'signet-redis-auth', defaultMode: 0o440, items: [{ key, path: key }] });
    expect(secretMount('redis')).toEqual(item('users.acl'));
    expect(secretMount('signet')).toEqual(item('password'));
    const redis = deployment(objects, 'redis')['spec'].template.spec;
    expect(redis.securityContext.fsGroup).toBe(65522);
    expect(redis.containers[0].args.join(' ')).toContain('--aclfile /run/redis-auth/users.acl');
    expect(JSON.stringify(redis)).not.toMatch(/password|REDISCLI_AUTH/);
    const env = deployment(objects, 'signet')['spec'].template.spec.containers[0].env as Obj[];
    expect(env.find((e) => e.name === 'SIGNET_REDIS_URL')!.value).toBe('redis://redis:6379');
    expect(env.find((e) => e.name === 'SIGNET_REDIS_PASSWORD_FILE')!.value).toBe('/run/redis-auth/password');
    // No secret reaches any container's environment.
    for (const d of byKind(objects, 'Deployment'))
      for (const c of d['spec'].template.spec.containers)
        expect(
          (c.env ?? []).filter((e: Obj) => e.valueFrom?.secretKeyRef),
          `${c.name} environment`,
        ).toEqual([]);
  });

  it('give every pod a uid and gid of its own that no host account uses, in a user namespace of its own', () => {
    const ids: Record<string, number> = { signet: 65520, 'signet-proxy': 65521, redis: 65522, 'signet-auth': 65523 };
    for (const [name, id] of Object.entries(ids)) {
      const spec = deployment(objects, name)['spec'].template.spec;
      expect(spec.hostUsers, name).toBe(false);
      expect(spec.securityContext, name).toMatchObject({ runAsUser: id, runAsGroup: id, fsGroup: id });
    }
  });

  it('run hardened: non-root, read-only root filesystem, no privilege escalation, all capabilities dropped, requests and limits', () => {
    for (const d of byKind(objects, 'Deployment')) {
      const spec = d['spec'].template.spec;
      expect(spec.securityContext.runAsNonRoot, d['metadata'].name).toBe(true);
      expect(spec.automountServiceAccountToken).toBe(false);
      for (const c of spec.containers) {
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.resources.requests && c.resources.limits, `${c.name} resources`).toBeTruthy();
      }
    }
    const signet = deployment(objects, 'signet')['spec'].template.spec.containers[0];
    expect(signet.livenessProbe.httpGet.path).toBe('/healthz');
    expect(signet.readinessProbe.httpGet.path).toBe('/readyz');
  });
});

describe('Kubernetes manifests match the compose stack', () => {
  const readme = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');

  it('use the images compose builds and runs', () => {
    const image = (name: string) => deployment(base, name)['spec'].template.spec.containers[0].image.split(':')[0];
    expect(compose['services'].signet.build).toBe('.');
    expect(image('signet')).toBe('signet');
    expect(compose['services'].proxy.build).toBe('./proxy');
    expect(image('signet-proxy')).toBe('signet-proxy');
    expect(deployment(base, 'redis')['spec'].template.spec.containers[0].image).toBe(compose['services'].redis.image);
    // Redis starts the same way (the image's entrypoint, the same arguments): compose writes $$ for a $ the shell should see.
    const redis = deployment(base, 'redis')['spec'].template.spec.containers[0];
    expect(redis.command).toBeUndefined();
    expect(compose['services'].redis.entrypoint).toBeUndefined();
    expect(redis.args).toEqual(compose['services'].redis.command);
    expect(redis.readinessProbe.exec.command[2]).toBe((compose['services'].redis.healthcheck.test[1] as string).replaceAll('$$', '$'));
  });

  it('set the same SIGNET_* variables to the same values, with the intended differences only', () => {
    const k8sEnv = Object.fromEntries(
      deployment(base, 'signet')['spec'].template.spec.containers[0].env.map((e: Obj) => [e.name, e.value]),
    );
    const composeEnv = Object.fromEntries(
      Object.entries(compose['services'].signet.environment as Obj).map(([k, v]) => [k, composeValue(v)]),
    );
    // Intended: Kubernetes also narrows the proxy to the proxy pods' range (compose's backend
    // range holds the Docker host's gateway address, so it would narrow nothing); Kubernetes pins one signing key for all replicas (compose keeps one in its data volume);
    // metrics are on the container's loopback in compose, on the pod network with a token here.
    const differs = new Set(['SIGNET_METRICS_HOST']);
    const k8sOnly = new Set([
      'SIGNET_SIGNING_KEY_FILE',
      'SIGNET_TRUSTED_PROXIES',
      'SIGNET_METRICS_TOKEN_FILE',
      // The hop from the proxy crosses nodes here, not in compose (one host): HTTPS (TLS-006).
      'SIGNET_TLS_CERT_FILE',
      'SIGNET_TLS_KEY_FILE',
    ]);
    for (const [k, v] of Object.entries(composeEnv)) {
      expect(k8sEnv, `Kubernetes sets ${k}`).toHaveProperty(k);
      if (!differs.has(k)) expect(k8sEnv[k], k).toBe(v);
    }
    for (const k of Object.keys(k8sEnv)) {
      if (!(k in composeEnv)) expect(k8sOnly.has(k), `${k} is only in Kubernetes`).toBe(true);
      expect(readme, `${k} is documented`).toContain(`\`${k}\``);
    }
    const proxyConfig = byKind(base, 'ConfigMap').find((c) => c['metadata'].name === 'signet-proxy')!['data'];
    const composeProxy = compose['services'].proxy.environment as Obj;
    expect(proxyConfig.SIGNET_UPSTREAM).toBe(composeProxy.SIGNET_UPSTREAM);
    // The key store is the auth check's, at the same path in both.
    const authConfig = byKind(base, 'ConfigMap').find((c) => c['metadata'].name === 'signet-auth')!['data'];
    expect(authConfig.SIGNET_KEY_STORE).toBe(compose['services'].auth.environment.SIGNET_KEY_STORE);
    expect(proxyConfig.SIGNET_KEY_STORE).toBeUndefined();
    expect(proxyConfig.SIGNET_PROXY_AUTH_CHECK).toBe(`signet-auth:${authConfig.SIGNET_AUTH_CHECK_PORT}`);
    expect(proxyConfig.SIGNET_PROXY_SECRET_FILE).toBe(composeProxy.SIGNET_PROXY_SECRET_FILE);
    for (const k of ['SIGNET_PROXY_TRUSTED_PROXIES', 'SIGNET_PROXY_REAL_IP_HEADER'])
      expect(proxyConfig[k], k).toBe(composeValue(composeProxy[k]));
    for (const k of Object.keys(proxyConfig)) expect(readme, `${k} is documented`).toContain(`\`${k}\``);
  });

  it("let an overlay narrow the proxy pods' range with the patch of docs/operations.md", () => {
    const patched = build('overlays/narrow', {
      'overlays/narrow/kustomization.yaml': `resources:\n  - ../../base\n${recipe('proxy-pods-patch')}`,
    });
    expect(byKind(patched, 'ConfigMap').find((c) => c['metadata'].name === 'signet-network')!['data']['proxy-pods']).toBe('10.42.0.0/16');
  });

  it('lets an overlay remove hostUsers for nodes without user namespaces, with the patch of docs/operations.md', () => {
    const patched = build('overlays/host-users', {
      'overlays/host-users/kustomization.yaml': `resources:\n  - ../../base\n${recipe('host-users-patch')}`,
    });
    const deployments = byKind(patched, 'Deployment');
    expect(deployments.length).toBe(4);
    for (const d of deployments) expect(d['spec'].template.spec, d['metadata'].name).not.toHaveProperty('hostUsers');
  });

  it('the dev overlay generates the Redis password Secret and its ACL file from the files the recipe of docs/operations.md makes', () => {
    const secret = byKind(dev, 'Secret').find((c) => c['metadata'].name === 'signet-redis-auth')!;
    const password = Buffer.from(secret['data'].password, 'base64').toString();
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    const acl = Buffer.from(secret['data']['users.acl'], 'base64').toString();
    expect(acl).toBe(`user default on #${createHash('sha256').update(password).digest('hex')} ~* &* +@all\n`);
  });

  it('the dev-secrets recipe writes every secret for its owner alone, whatever the umask of the shell that runs it', () => {
    const root = tempDir('signet-dev-secrets-');
    execFileSync('bash', ['-e', '-o', 'pipefail', '-c', `umask 022\n${recipe('dev-secrets')}\n[ "$(umask)" = 0022 ]`], { cwd: root });
    const dir = join(root, 'deploy/kubernetes/overlays/dev/secrets');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((f) => join(dir, f))
      .filter((f) => statSync(f).isFile());
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const f of files) expect((statSync(f).mode & 0o777).toString(8), f).toBe('600');
  });

  it('encrypts the hop from the proxy to signet: signet serves the signet-backend-tls pair, the proxy verifies it with its CA alone', () => {
    const spec = deployment(base, 'signet')['spec'].template.spec;
    const c = spec.containers[0];
    const env = Object.fromEntries(c.env.map((e: Obj) => [e.name, e.value]));
    // A path in the container → the key of the Secret mounted there.
    const secretKeyAt = (podSpec: Obj, container: Obj, path: string): [string, string] | null => {
      for (const m of container.volumeMounts) {
        if (!path.startsWith(`${m.mountPath}/`)) continue;
        const v = podSpec.volumes.find((x: Obj) => x.name === m.name);
        const file = path.slice(m.mountPath.length + 1);
        const item = (v.secret?.items ?? []).find((i: Obj) => i.path === file);
        return v.secret ? [v.secret.secretName, item ? item.key : file] : null;
      }
      return null;
    };
    expect(secretKeyAt(spec, c, env['SIGNET_TLS_CERT_FILE'])).toEqual(['signet-backend-tls', 'tls.crt']);
    expect(secretKeyAt(spec, c, env['SIGNET_TLS_KEY_FILE'])).toEqual(['signet-backend-tls', 'tls.key']);
    expect(c.livenessProbe.httpGet.scheme).toBe('HTTPS');
    expect(c.readinessProbe.httpGet.scheme).toBe('HTTPS');
    const proxySpec = deployment(base, 'signet-proxy')['spec'].template.spec;
    const proxyConfig = byKind(base, 'ConfigMap').find((m) => m['metadata'].name === 'signet-proxy')!['data'];
    expect(secretKeyAt(proxySpec, proxySpec.containers[0], proxyConfig.SIGNET_PROXY_UPSTREAM_CA_FILE)).toEqual([
      'signet-backend-tls',
      'ca.crt',
    ]);
    // The proxy pods get the CA and nothing else of that Secret: never signet's key.
    const proxyVolume = proxySpec.volumes.find((v: Obj) => v.secret?.secretName === 'signet-backend-tls');
    expect(proxyVolume.secret.items.map((i: Obj) => i.key)).toEqual(['ca.crt']);
  });

  it("the dev recipe's certificate verifies against its CA for the name the proxy dials, and the cert-manager recipe asks for the same", () => {
    const secret = byKind(dev, 'Secret').find((x) => x['metadata'].name === 'signet-backend-tls')!;
    expect(secret['type']).toBe('kubernetes.io/tls');
    const dir = tempDir('signet-backend-tls-');
    for (const k of ['tls.crt', 'tls.key', 'ca.crt']) writeFileSync(join(dir, k), Buffer.from(secret['data'][k], 'base64'));
    const upstreamHost = String(byKind(dev, 'ConfigMap').find((m) => m['metadata'].name === 'signet-proxy')!['data'].SIGNET_UPSTREAM).split(
      ':',
    )[0]!;
    const verify = (name: string) =>
      spawnSync(
        'openssl',
        ['verify', '-purpose', 'sslserver', '-verify_hostname', name, '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt')],
        {
          encoding: 'utf8',
        },
      );
    expect(verify(upstreamHost).stdout).toContain(': OK');
    expect(verify('signet.signet-dev.svc').status).toBe(0);
    expect(verify('evil.example').status).not.toBe(0);
    // The key is the certificate's.
    const pub = (args: string[]) => execFileSync('openssl', args, { encoding: 'utf8' });
    expect(pub(['pkey', '-in', join(dir, 'tls.key'), '-pubout'])).toBe(pub(['x509', '-in', join(dir, 'tls.crt'), '-noout', '-pubkey']));
    const certificate = parse(recipe('backend-tls-cert-manager')) as Obj;
    expect(certificate.spec.secretName).toBe('signet-backend-tls');
    expect(certificate.spec.dnsNames).toContain(upstreamHost);
    expect(certificate.spec.usages).toContain('server auth');
  });

  it('the dev overlay runs one replica in its own namespace, with generated Secrets kept out of git', () => {
    expect(deployment(dev, 'signet')['spec'].replicas).toBe(1);
    expect(deployment(dev, 'signet-proxy')['spec'].replicas).toBe(1);
    expect(dev.every((o) => o['kind'] === 'Namespace' || o['metadata'].namespace === 'signet-dev')).toBe(true);
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).toContain('deploy/kubernetes/overlays/*/secrets/');
    expect(existsSync(join(dirname(join(KUSTOMIZE, 'overlays/dev/kustomization.yaml')), 'namespace.yaml'))).toBe(true);
  });
});

describe('the auth check on Kubernetes (signet-auth)', () => {
  it('serves HTTPS with a certificate the proxy verifies with the same CA as signet, and holds the key store and the proxy secret', () => {
    const spec = deployment(dev, 'signet-auth')['spec'].template.spec;
    const c = spec.containers[0];
    const config = byKind(dev, 'ConfigMap').find((m) => m['metadata'].name === 'signet-auth')!['data'] as Obj;
    const volumeAt = (path: string) => {
      const mount = c.volumeMounts.find((m: Obj) => path.startsWith(`${m.mountPath}/`));
      expect(mount?.readOnly, path).toBe(true);
      return spec.volumes.find((v: Obj) => v.name === mount.name).secret;
    };
    expect(volumeAt(config['SIGNET_TLS_CERT_FILE']).secretName).toBe('signet-auth-tls');
    expect(volumeAt(config['SIGNET_TLS_KEY_FILE']).secretName).toBe('signet-auth-tls');
    expect(volumeAt(config['SIGNET_KEY_STORE'])).toEqual({ secretName: 'signet-api-keys', defaultMode: 0o440 });
    expect(volumeAt(config['SIGNET_PROXY_SECRET_FILE'])).toEqual({ secretName: 'signet-proxy-auth', defaultMode: 0o440 });
    // Its metrics can be scraped, as signet's: on the pod network, with the same token.
    const signetEnv = Object.fromEntries(
      (deployment(dev, 'signet')['spec'].template.spec.containers[0].env as Obj[]).map((e) => [e.name, e.value]),
    );
    for (const k of ['SIGNET_METRICS_PORT', 'SIGNET_METRICS_HOST', 'SIGNET_METRICS_TOKEN_FILE']) expect(config[k], k).toBe(signetEnv[k]);
    expect(volumeAt(config['SIGNET_METRICS_TOKEN_FILE'])).toEqual({ secretName: 'signet-metrics-auth', defaultMode: 0o440 });
    expect(c.ports).toContainEqual({ name: 'metrics', containerPort: Number(config['SIGNET_METRICS_PORT']) });
    expect(c.readinessProbe.httpGet.scheme).toBe('HTTPS');
    expect(c.args).toEqual(['auth-check']);
    expect(c.image).toBe(deployment(dev, 'signet')['spec'].template.spec.containers[0].image);
    // The proxy no longer holds the store.
    expect(JSON.stringify(deployment(dev, 'signet-proxy'))).not.toContain('signet-api-keys');
    const secret = (name: string) => byKind(dev, 'Secret').find((x) => x['metadata'].name === name)!['data'];
    const dir = tempDir('signet-auth-tls-');
    writeFileSync(join(dir, 'proxy-ca.crt'), Buffer.from(secret('signet-backend-tls')['ca.crt'], 'base64'));
    writeFileSync(join(dir, 'tls.crt'), Buffer.from(secret('signet-auth-tls')['tls.crt'], 'base64'));
    const name = String(byKind(dev, 'ConfigMap').find((m) => m['metadata'].name === 'signet-proxy')!['data'].SIGNET_PROXY_AUTH_CHECK).split(
      ':',
    )[0]!;
    const verify = (host: string) =>
      spawnSync('openssl', [
        'verify',
        '-purpose',
        'sslserver',
        '-verify_hostname',
        host,
        '-CAfile',
        join(dir, 'proxy-ca.crt'),
        join(dir, 'tls.crt'),
      ]).status;
    expect(verify(name)).toBe(0);
    expect(verify('signet')).not.toBe(0);
  });
});

describe('Kubernetes OAuth component (overlays/dev-oauth)', () => {
  const pod = (name: string) => ({ namespace: 'signet', labels: deployment(devOAuth, name)['spec'].template.metadata.labels as Obj });
  const config = (name: string) => byKind(devOAuth, 'ConfigMap').find((c) => c['metadata'].name === name)!['data'] as Obj;

  it('lets the auth check alone out, to HTTPS on public addresses (IPv4 and IPv6) and DNS', () => {
    const policies = byKind(devOAuth, 'NetworkPolicy').map((p) => ({ ...p['spec'], name: p['metadata'].name }));
    const auth = pod('signet-auth');
    const proxy = pod('signet-proxy');
    const signet = pod('signet');
    const redis = pod('redis');
    const issuerOnTheInternet = { namespace: 'internet', labels: {} };
    const dns = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
    const flows: [string, Peer, Peer, number, string, boolean][] = [
      ['the proxy asks the auth check', proxy, auth, 3100, 'TCP', true],
      ['the auth check fetches the issuer keys over HTTPS', auth, issuerOnTheInternet, 443, 'TCP', true],
      ['the auth check looks names up', auth, dns, 53, 'UDP', true],
      ["the auth check reaches signet's MCP port", auth, signet, 3000, 'TCP', false],
      ['the auth check reaches Redis', auth, redis, 6379, 'TCP', false],
      ['the auth check speaks plain HTTP out', auth, issuerOnTheInternet, 80, 'TCP', false],
      ['the proxy reaches the internet', proxy, issuerOnTheInternet, 443, 'TCP', false],
      ["the proxy still reaches signet's MCP port", proxy, signet, 3000, 'TCP', true],
    ];
    for (const [what, from, to, port, protocol, expected] of flows) expect(allows(policies, from, to, port, protocol), what).toBe(expected);
    // The HTTPS egress leaves out the cluster's and shared ranges, link-local (the cloud metadata
    // address), "this network", and their IPv6 counterparts, the NAT64 prefixes included (an IPv6
    // address there reaches any IPv4 one); an IPv6 issuer is reachable (pen test, issue 28).
    const rule = byKind(devOAuth, 'NetworkPolicy').find((p) => p['metadata'].name === 'signet-auth')!['spec'].egress[0];
    expect([...rule.to[0].ipBlock.except].sort()).toEqual(
      ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'].sort(),
    );
    expect(rule.to[1].ipBlock.cidr).toBe('::/0');
    expect([...rule.to[1].ipBlock.except].sort()).toEqual(
      ['::1/128', 'fc00::/7', 'fe80::/10', '::ffff:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48'].sort(),
    );
  });

  it('gives the proxy and the auth check the same mode, issuer and resource', () => {
    const proxy = config('signet-proxy');
    const auth = config('signet-auth');
    for (const k of ['SIGNET_AUTH_MODE', 'SIGNET_OAUTH_ISSUER', 'SIGNET_OAUTH_RESOURCE']) expect(proxy[k], k).toBe(auth[k]);
    expect(proxy['SIGNET_AUTH_MODE']).toBe('keys+oauth');
    expect(byKind(devOAuth, 'Deployment').every((o) => o['metadata'].namespace === 'signet-dev')).toBe(true);
  });
});
