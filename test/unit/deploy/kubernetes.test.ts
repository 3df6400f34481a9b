// The Kubernetes manifests, checked without a cluster: rendered by kubectl kustomize, they
// validate against the Kubernetes schemas (kubernetes-models), every reference resolves, and
// images and environment match the compose stack.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ROOT } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

type Obj = Record<string, any>;
const KUSTOMIZE = join(ROOT, 'deploy/kubernetes');

/**
 * The manifests as the cluster gets them: `kubectl kustomize`, run on a copy of
 * deploy/kubernetes in which the dev overlay's git-ignored secret files exist (with dummy
 * content), as they do once its header's commands ran.
 */
function build(overlay: string): Obj[] {
  const copy = join(tempDir('signet-kustomize-'), 'kubernetes');
  cpSync(KUSTOMIZE, copy, { recursive: true });
  const secrets = join(copy, 'overlays/dev/secrets');
  mkdirSync(secrets, { recursive: true });
  for (const f of ['signing-key.pem', 'keys.json']) if (!existsSync(join(secrets, f))) writeFileSync(join(secrets, f), 'generated');
  const out = execFileSync('kubectl', ['kustomize', join(copy, overlay)], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS() as Obj);
}

const base = build('base');
const dev = build('overlays/dev');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Obj;
const byKind = (objs: Obj[], kind: string) => objs.filter((o) => o['kind'] === kind);
const deployment = (objs: Obj[], name: string) => byKind(objs, 'Deployment').find((d) => d['metadata'].name === name)!;
const matches = (selector: Obj, labels: Obj) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);
/** `${VAR:-default}` → default, as compose resolves it with nothing set. */
const composeValue = (v: unknown) => String(v).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

describe.each([
  ['base', base],
  ['overlay dev', dev],
])('Kubernetes manifests (%s)', (_name, objects) => {
  it('validate against the Kubernetes schemas', () => {
    const models: Record<string, new (o: Obj) => { validate(): void }> = { Deployment, Service, NetworkPolicy, ConfigMap, Secret, Namespace };
    for (const o of objects) {
      const Model = models[o['kind']];
      expect(Model, `no schema model for ${o['kind']}`).toBeDefined();
      expect(() => new Model!(o).validate(), `${o['kind']}/${o['metadata'].name}`).not.toThrow();
    }
  });

  it('resolve every reference: selectors, ports, probes, ConfigMaps and Secrets', () => {
    const deployments = byKind(objects, 'Deployment');
    for (const d of deployments) expect(matches(d['spec'].selector.matchLabels, d['spec'].template.metadata.labels), d['metadata'].name).toBe(true);
    for (const s of byKind(objects, 'Service')) {
      const targets = deployments.filter((d) => matches(s['spec'].selector, d['spec'].template.metadata.labels));
      expect(targets, `Service ${s['metadata'].name} selects exactly one Deployment`).toHaveLength(1);
      const ports = targets[0]!['spec'].template.spec.containers.flatMap((c: Obj) => c.ports ?? []);
      for (const p of s['spec'].ports) expect(ports.some((cp: Obj) => cp.name === p.targetPort || cp.containerPort === p.targetPort), `${s['metadata'].name}:${p.targetPort}`).toBe(true);
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
        for (const m of c.volumeMounts ?? []) expect(spec.volumes.some((v: Obj) => v.name === m.name), `${d['metadata'].name} mount ${m.name}`).toBe(true);
      }
      for (const v of spec.volumes ?? []) if (v.secret && _name !== 'base') expect(names('Secret').has(v.secret.secretName), `Secret ${v.secret.secretName}`).toBe(true);
    }
    for (const np of byKind(objects, 'NetworkPolicy')) {
      const target = deployments.filter((d) => matches(np['spec'].podSelector.matchLabels, d['spec'].template.metadata.labels));
      expect(target, `NetworkPolicy ${np['metadata'].name}`).toHaveLength(1);
      const containerPorts = target[0]!['spec'].template.spec.containers.flatMap((c: Obj) => (c.ports ?? []).map((p: Obj) => p.containerPort));
      for (const rule of np['spec'].ingress) for (const p of rule.ports) expect(containerPorts).toContain(p.port);
    }
  });

  it('let only the proxy reach the MCP port, and only signet reach Redis', () => {
    const signetPolicy = byKind(objects, 'NetworkPolicy').find((n) => n['metadata'].name === 'signet')!;
    const mcpRule = signetPolicy['spec'].ingress.find((r: Obj) => r.ports.some((p: Obj) => p.port === 3000));
    expect(mcpRule.from).toHaveLength(1);
    expect(matches(mcpRule.from[0].podSelector.matchLabels, deployment(objects, 'signet-proxy')['spec'].template.metadata.labels)).toBe(true);
    const redisPolicy = byKind(objects, 'NetworkPolicy').find((n) => n['metadata'].name === 'redis')!;
    expect(matches(redisPolicy['spec'].ingress[0].from[0].podSelector.matchLabels, deployment(objects, 'signet')['spec'].template.metadata.labels)).toBe(true);
  });

  it('run hardened: non-root, read-only root filesystem, no privilege escalation, all capabilities dropped, requests and limits', () => {
    for (const d of byKind(objects, 'Deployment')) {
      const spec = d['spec'].template.spec;
      expect(spec.securityContext.runAsNonRoot, d['metadata'].name).toBe(true);
      expect(spec.automountServiceAccountToken).toBe(false);
      for (const c of spec.containers) {
        expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
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
    expect(deployment(base, 'redis')['spec'].template.spec.containers[0].args).toEqual(compose['services'].redis.command);
  });

  it('set the same SIGNET_* variables to the same values, with the intended differences only', () => {
    const k8sEnv = Object.fromEntries(deployment(base, 'signet')['spec'].template.spec.containers[0].env.map((e: Obj) => [e.name, e.value]));
    const composeEnv = Object.fromEntries(Object.entries(compose['services'].signet.environment as Obj).map(([k, v]) => [k, composeValue(v)]));
    // Intended: the trusted network is the compose subnet there, the pod CIDR here; Kubernetes
    // pins one signing key for all replicas (compose keeps one in its data volume).
    const differs = new Set(['SIGNET_TRUSTED_PROXIES']);
    const k8sOnly = new Set(['SIGNET_SIGNING_KEY_FILE']);
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
    expect(proxyConfig.SIGNET_KEY_STORE).toBe(composeProxy.SIGNET_KEY_STORE);
    for (const k of Object.keys(proxyConfig)) expect(readme, `${k} is documented`).toContain(`\`${k}\``);
  });

  it('the dev overlay runs one replica in its own namespace, with generated Secrets kept out of git', () => {
    expect(deployment(dev, 'signet')['spec'].replicas).toBe(1);
    expect(deployment(dev, 'signet-proxy')['spec'].replicas).toBe(1);
    expect(dev.every((o) => o['kind'] === 'Namespace' || o['metadata'].namespace === 'signet-dev')).toBe(true);
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).toContain('deploy/kubernetes/overlays/*/secrets/');
    expect(existsSync(join(dirname(join(KUSTOMIZE, 'overlays/dev/kustomization.yaml')), 'namespace.yaml'))).toBe(true);
  });
});
