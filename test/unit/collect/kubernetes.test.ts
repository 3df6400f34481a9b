// The Kubernetes collector on Signet's own manifests (kustomize base, overlays, the OAuth
// component) and on inline workloads; the kustomize reading is compared with kubectl's.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectWith, deploymentOf, fact, inline, repoFiles } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

const dir = (d: string): string[] =>
  readdirSync(join(ROOT, d), { withFileTypes: true }).flatMap((f) => (f.isDirectory() ? dir(`${d}/${f.name}`) : [`${d}/${f.name}`]));
const BUILD = ['Dockerfile', 'package.json', 'package-lock.json', 'proxy/Dockerfile', ...dir('proxy/templates')];
const K8S = [
  ...dir('deploy/kubernetes/base'),
  ...dir('deploy/kubernetes/overlays/dev'),
  ...dir('deploy/kubernetes/overlays/dev-oauth'),
  ...dir('deploy/kubernetes/components/oauth'),
];

describe("Kubernetes: Signet's manifests", () => {
  const c = collectWith(repoFiles(...BUILD, ...K8S), {
    kustomizations: ['deploy/kubernetes/base', 'deploy/kubernetes/overlays/dev', 'deploy/kubernetes/overlays/dev-oauth'],
  });

  it('one deployment per kustomization, the signet Deployment; the proxy, Redis and the token verifier are not MCP servers', () => {
    expect(c.deployments.map((d) => d.name)).toEqual([
      'kubernetes:deploy/kubernetes/base/kustomization.yaml:Deployment/signet',
      'kubernetes:deploy/kubernetes/overlays/dev-oauth/kustomization.yaml:Deployment/signet',
      'kubernetes:deploy/kubernetes/overlays/dev/kustomization.yaml:Deployment/signet',
    ]);
    expect(c.notes.filter((n) => /read from the resources/.test(n.what))).toHaveLength(3);
  });

  it('reads the pod spec, policies and Services with their lines; overlay values from the overlay', () => {
    const base = deploymentOf(c, 'base/kustomization.yaml:Deployment/signet');
    expect(base.facts['container']).toMatchObject({
      orchestrator: 'kubernetes',
      runs_as_root: false,
      read_only_root_fs: true,
      capabilities_dropped: true,
      no_new_privileges: true,
      privileged: false,
      seccomp: 'runtime_default',
      service_account_token_mounted: false,
      healthcheck: true,
      resource_limits: true,
      published_ports: 'none',
      image_pinned_by_digest: false,
      // The Redis password is a mounted file (SIGNET_REDIS_PASSWORD_FILE), no longer an env var.
      secrets_source: 'mounted_files',
    });
    expect(base.facts['egress']).toMatchObject({ network_restricted: true, cloud_metadata_credentials_reachable: false });
    expect(base.facts['exposure']).toMatchObject({ behind_reverse_proxy: true, ingress_restricted_to_proxy: true });
    // Only ClusterIP Services: what exposes the proxy (an Ingress kept elsewhere) is not in the files.
    expect(base.undecided).toEqual(
      expect.arrayContaining(['exposure.endpoint_address_class', 'exposure.reachable_from_internet', 'tls.enabled']),
    );
    expect(base.sources['container.read_only_root_fs']![0]!).toMatchObject({ file: 'deploy/kubernetes/base/signet-deployment.yaml' });
    expect(fact(base, 'deployment.replicas')).toBe(3);
    const dev = deploymentOf(c, 'overlays/dev/kustomization.yaml:Deployment/signet');
    expect(fact(dev, 'deployment.replicas')).toBe(1);
    expect(dev.sources['deployment.replicas']![0]).toMatchObject({ file: 'deploy/kubernetes/overlays/dev/kustomization.yaml' });
    expect(dev.sources['container.image_pinned_by_digest']![0]!.why).toBe('image: signet:dev');
  });

  it('reads the base as kubectl kustomize renders it', () => {
    const rendered = execFileSync('kubectl', ['kustomize', join(ROOT, 'deploy/kubernetes/base')]);
    const r = collectWith(
      [...repoFiles(...BUILD, ...K8S), { path: 'deploy/kubernetes/base/kubectl-kustomize.rendered.yaml', bytes: rendered }],
      {
        kustomizations: ['deploy/kubernetes/base'],
        rendered: { 'deploy/kubernetes/base': 'deploy/kubernetes/base/kubectl-kustomize.rendered.yaml' },
      },
    );
    const fromKubectl = deploymentOf(r, 'base/kustomization.yaml:Deployment/signet');
    const ours = deploymentOf(c, 'base/kustomization.yaml:Deployment/signet');
    expect(fromKubectl.facts).toEqual(ours.facts);
    expect(r.notes.map((n) => n.what)).toContain(
      'rendered with kubectl kustomize (deploy/kubernetes/base/kubectl-kustomize.rendered.yaml)',
    );
  });
});

describe('Kubernetes workloads', () => {
  it('host namespaces, host paths, a privileged root pod, a LoadBalancer straight to the server', () => {
    const manifest = [
      'apiVersion: apps/v1',
      'kind: DaemonSet',
      'metadata: { name: node-mcp }',
      'spec:',
      '  selector: { matchLabels: { app: node-mcp } }',
      '  template:',
      '    metadata: { labels: { app: node-mcp } }',
      '    spec:',
      '      hostNetwork: true',
      '      hostPID: true',
      '      containers:',
      '        - name: node-mcp',
      '          image: ghcr.io/acme/node-mcp:latest',
      '          securityContext: { runAsUser: 0, privileged: true }',
      '          env:',
      '            - { name: API_TOKEN, value: "t0ps3cret" }',
      '          volumeMounts: [{ name: root, mountPath: /host }]',
      '      volumes:',
      '        - { name: root, hostPath: { path: / } }',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: node-mcp }',
      'spec: { type: LoadBalancer, selector: { app: node-mcp }, ports: [{ port: 80 }] }',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'k8s/ds.yaml': manifest })), 'DaemonSet/node-mcp');
    expect(d.facts['container']).toMatchObject({
      runs_as_root: true,
      privileged: true,
      seccomp: 'unconfined',
      secrets_source: 'manifest_plaintext',
    });
    expect(d.facts['container']).toMatchObject({ host_namespaces: true, host_path_mounts: 'host_system' });
    expect(d.sources['container.host_namespaces']![0]!.why).toBe('hostNetwork: true, hostPID: true');
    expect(d.undecided).toEqual(
      expect.arrayContaining(['deployment.replicas', 'container.service_account_token_mounted', 'exposure.endpoint_address_class']),
    );
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(false);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    // No NetworkPolicy among the files: one applied to the namespace elsewhere would restrict it.
    for (const open of ['egress.network_restricted', 'exposure.ingress_restricted_to_proxy']) {
      expect(fact(d, open), open).toBeUndefined();
      expect(d.reasons[open], open).toMatch(/no NetworkPolicy among the files/);
    }
  });
});

describe('Kubernetes output files', () => {
  it('helm template output (documents with # Source: comments) and a kubectl List read as the manifests they hold', () => {
    const helm = [
      '---',
      '# Source: mcp/templates/service.yaml',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: release-mcp }',
      'spec: { type: ClusterIP, selector: { app: mcp }, ports: [{ port: 8080 }] }',
      '---',
      '# Source: mcp/templates/deployment.yaml',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: release-mcp }',
      'spec:',
      '  replicas: 2',
      '  selector: { matchLabels: { app: mcp } }',
      '  template:',
      '    metadata: { labels: { app: mcp } }',
      '    spec:',
      '      automountServiceAccountToken: false',
      '      containers:',
      '        - name: release-mcp',
      `          image: "ghcr.io/acme/mcp:1.4.0@sha256:${'d'.repeat(64)}"`,
      '          securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true }',
    ].join('\n');
    const d = deploymentOf(collectWith(inline({ 'rendered/all.yaml': helm })), 'Deployment/release-mcp');
    expect(d.facts['container']).toMatchObject({
      runs_as_root: false,
      read_only_root_fs: true,
      image_pinned_by_digest: true,
      service_account_token_mounted: false,
    });
    expect(fact(d, 'deployment.replicas')).toBe(2);
    expect(d.sources['deployment.replicas']![0]).toMatchObject({ file: 'rendered/all.yaml', line: 13 });
    // kubectl get pods -o yaml
    const list = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '  - apiVersion: v1',
      '    kind: Pod',
      '    metadata: { name: mcp }',
      '    spec:',
      '      hostPID: true',
      '      containers: [{ name: mcp, image: "mcp/x:1.0.0" }]',
    ].join('\n');
    const p = deploymentOf(collectWith(inline({ 'pods.yaml': list })), 'Pod/mcp');
    expect(fact(p, 'container.host_namespaces')).toBe(true);
  });
});
