// biome-ignore-all lint/suspicious/noTemplateCurlyInString: OpenShift Template parameters and shell variables, not JavaScript templates
// The Kubernetes collector on Signet's own manifests (kustomize base, overlays, the OAuth
// component) and on inline workloads; the kustomize reading is compared with kubectl's.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { collectWith, deploymentOf, deploymentYaml, fact, inline, lineOf, repoFiles } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

const dir = (d: string): string[] =>
  readdirSync(join(ROOT, d), { withFileTypes: true }).flatMap((f) => (f.isDirectory() ? dir(`${d}/${f.name}`) : [`${d}/${f.name}`]));
const BUILD = ['Dockerfile', 'package.json', 'package-lock.json', 'proxy/Dockerfile', ...dir('proxy/templates')];
const K8S = [
  ...dir('deploy/kubernetes/base'),
  ...dir('deploy/kubernetes/overlays/dev'),
  ...dir('deploy/kubernetes/overlays/dev-oauth'),
  ...dir('deploy/kubernetes/components/oauth'),
];

/** A Deployment `mcp-server` whose one container gets the YAML lines `container` (indented to its fields). */
const mcpDeployment = (container: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp-server }\nspec:\n  selector: { matchLabels: { app: mcp-server } }\n  template:\n    metadata: { labels: { app: mcp-server } }\n    spec:\n      containers:\n        - name: mcp-server\n          image: example/mcp-server:1.0.0\n${container}`;

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

  for (const k of ['base', 'overlays/dev', 'overlays/dev-oauth']) {
    it(`reads ${k} as kubectl kustomize renders it`, () => {
      const at = `deploy/kubernetes/${k}`;
      const r = collectWith(
        [...repoFiles(...BUILD, ...K8S), { path: `${at}/kubectl-kustomize.rendered.yaml`, bytes: renderWithKubectl(k) }],
        { kustomizations: [at], rendered: { [at]: `${at}/kubectl-kustomize.rendered.yaml` } },
      );
      const fromKubectl = deploymentOf(r, `${k}/kustomization.yaml:Deployment/signet`);
      const ours = deploymentOf(c, `${k}/kustomization.yaml:Deployment/signet`);
      expect(ours.facts).toEqual(fromKubectl.facts);
      expect(r.notes.map((n) => n.what)).toContain(`rendered with kubectl kustomize (${at}/kubectl-kustomize.rendered.yaml)`);
    });
  }

  it('applies a Component to the objects its parent accumulated: dev-oauth is OAuth, dev keys only', () => {
    const oauth = deploymentOf(c, 'overlays/dev-oauth/kustomization.yaml:Deployment/signet');
    expect(fact(oauth, 'authentication.method')).toBe('oauth2');
    // What the mode means is Signet's (its profile); the mode itself is the Component's patch line.
    expect(oauth.sources['authentication.method']).toEqual([
      expect.objectContaining({ profile: 'signet' }),
      {
        file: 'deploy/kubernetes/components/oauth/proxy-configmap-patch.yaml',
        line: lineOf('deploy/kubernetes/components/oauth/proxy-configmap-patch.yaml', /SIGNET_AUTH_MODE/),
        why: 'SIGNET_AUTH_MODE=keys+oauth',
      },
    ]);
    expect(fact(deploymentOf(c, 'overlays/dev/kustomization.yaml:Deployment/signet'), 'authentication.method')).toBe('per_client_keys');
  });

  it('records a patch that matches nothing: kubectl refuses one without a target and skips one whose target selects nothing', () => {
    const r = collectWith(
      inline({
        'k/kustomization.yaml': 'resources: [cm.yaml]\ncomponents: [../c]\n',
        'k/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\ndata: { x: "1" }\n',
        'c/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - path: a.yaml\n  - path: b.yaml\n  - target: { kind: Secret, name: s }\n    patch: |-\n      - op: add\n        path: /data/y\n        value: "2"\n',
        'c/a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\ndata: { x: "2" }\n',
        'c/b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: missing }\ndata: { x: "3" }\n',
      }),
    );
    expect(r.notes.filter((n) => /matches no object/.test(n.what))).toEqual([
      { file: 'c/kustomization.yaml', what: 'patch b.yaml matches no object among the resources read (ConfigMap/missing): not applied' },
      { file: 'c/kustomization.yaml', what: 'patch patches[2] matches no object among the resources read (Secret/s): not applied' },
    ]);
  });
});

/**
 * `kubectl kustomize` of one of Signet's kustomizations, on a copy of deploy/kubernetes with a
 * dummy file for every secret the dev overlay generates (git-ignored, so absent from a clone):
 * kubectl reads them, the facts never depend on their contents.
 */
function renderWithKubectl(k: string): Buffer {
  const root = tempDir('signet-kubectl-');
  cpSync(join(ROOT, 'deploy/kubernetes'), join(root, 'kubernetes'), { recursive: true });
  const dev = parse(readFileSync(join(ROOT, 'deploy/kubernetes/overlays/dev/kustomization.yaml'), 'utf8'));
  for (const g of dev.secretGenerator as { files: string[] }[])
    for (const f of g.files) {
      const file = join(root, 'kubernetes/overlays/dev', f.split('=').pop()!);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, 'dummy');
    }
  return execFileSync('kubectl', ['kustomize', join(root, 'kubernetes', k)]);
}

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
    expect(p.sources['container.host_namespaces']![0]).toMatchObject({ file: 'pods.yaml', line: 8 });
  });
});

describe('Kubernetes JSON (kubectl get -o json)', () => {
  // The base as kubectl kustomize renders it, then as a cluster answers `kubectl get -o json`
  // after `kubectl apply`: a List, each item with the fields the API server adds (uid,
  // resourceVersion, managedFields, the last-applied annotation, status), four-space indents.
  const rendered = execFileSync('kubectl', ['kustomize', join(ROOT, 'deploy/kubernetes/base')], { encoding: 'utf8' });
  const objects = parseAllDocuments(rendered).map((d) => d.toJS() as Record<string, any>);
  const served = (o: Record<string, any>, i: number): Record<string, any> => ({
    ...o,
    metadata: {
      ...o['metadata'],
      annotations: {
        ...o['metadata'].annotations,
        'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(o)}\n`,
      },
      creationTimestamp: '2026-11-02T09:14:07Z',
      generation: 1,
      managedFields: [
        {
          apiVersion: o['apiVersion'],
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } },
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          time: '2026-11-02T09:14:07Z',
        },
      ],
      resourceVersion: String(48213 + i),
      uid: `6f1d2c3e-9a4b-4c1d-8e2f-${String(i).padStart(12, '0')}`,
    },
    ...(o['kind'] === 'Deployment'
      ? { status: { observedGeneration: 1, replicas: o['spec'].replicas, readyReplicas: o['spec'].replicas } }
      : {}),
  });
  const list = JSON.stringify({ apiVersion: 'v1', items: objects.map(served), kind: 'List', metadata: { resourceVersion: '' } }, null, 4);
  const fromYaml = deploymentOf(collectWith([...repoFiles(...BUILD), ...inline({ 'rendered.yaml': rendered })]), 'Deployment/signet');
  const fromJson = deploymentOf(collectWith([...repoFiles(...BUILD), ...inline({ 'signet.json': `${list}\n` })]), 'Deployment/signet');

  it('a List is read as the objects it holds, with the same facts as the YAML and lines in the JSON', () => {
    expect(fromJson.name).toBe('kubernetes:signet.json:Deployment/signet');
    expect(fromJson.facts).toEqual(fromYaml.facts);
    const lines = list.split('\n');
    const image = fromJson.sources['container.image_pinned_by_digest']![0] as { file: string; line: number };
    expect(image.file).toBe('signet.json');
    expect(lines[image.line - 1]).toMatch(/^ +"image": "signet:0\.1\.0",$/);
    const replicas = fromJson.sources['deployment.replicas']![0] as { line: number };
    expect(lines[replicas.line - 1]).toMatch(/^ +"replicas": 3,?$/);
  });

  it('a typed list as the API server answers it (DeploymentList: items without kind) and a single object', () => {
    const deployments = objects.filter((o) => o['kind'] === 'Deployment');
    const typed = JSON.stringify(
      {
        apiVersion: 'apps/v1',
        kind: 'DeploymentList',
        items: deployments.map(served).map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
      },
      null,
      4,
    );
    const others = objects
      .filter((o) => o['kind'] !== 'Deployment')
      .map((o, i) => ({ [`object-${i}.json`]: JSON.stringify(served(o, i), null, 4) }));
    const files = [...repoFiles(...BUILD), ...inline(Object.assign({ 'deployments.json': typed }, ...others))];
    const c = collectWith(files);
    const d = deploymentOf(c, 'Deployment/signet');
    expect(d.name).toBe('kubernetes:deployments.json:Deployment/signet');
    expect(d.facts).toEqual(fromYaml.facts);
    // JSON that is no Kubernetes object stays what it was.
    expect(collectWith(inline({ 'settings.json': '{"kind": "settings", "port": 3000}' })).files[0]!.kind).toBe('other');
  });
});

describe("a Helm chart's sources: templates are not manifests until Helm renders them", () => {
  // sooperset/mcp-atlassian's chart as its repository holds it (test/fixtures/collect-walk names the sources).
  const chart = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/helm-chart-sources.json'), 'utf8')) as {
    files: Record<string, string>;
  };
  // A template that happens to parse as YAML: read as a manifest, it would describe a Deployment
  // named "{{ .Release.Name }}-mcp" with facts Helm's values decide.
  const parses = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: "{{ .Release.Name }}-mcp"',
    'spec:',
    '  template:',
    '    spec:',
    '      containers:',
    '        - name: mcp',
    '          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"',
  ].join('\n');

  it('skips every template of a chart with what to do instead, and never reads one as a deployment', () => {
    const c = collectWith(inline({ ...chart.files, 'helm/templates/parses.yaml': parses }));
    expect(c.deployments).toEqual([]);
    const templates = ['helm/templates/deployment.yaml', 'helm/templates/parses.yaml', 'helm/templates/service.yaml'];
    expect(
      c.skipped
        ?.filter((s) => s.path.startsWith('helm/templates/'))
        .map((s) => s.path)
        .sort(),
    ).toEqual(templates);
    for (const s of c.skipped ?? [])
      expect(s.reason).toBe(
        "a Helm chart template (Helm's {{ .Values }}, or under a chart's templates/): not YAML until Helm renders it; check what `helm template RELEASE CHART > rendered.yaml` writes instead",
      );
    expect(
      c.files
        .filter((f) => f.kind === 'helm_template')
        .map((f) => f.path)
        .sort(),
    ).toEqual(templates);
    // Copied out of its chart, Helm's objects ({{ .Values }}, {{ .Release }}) still say what it is.
    const copied = collectWith(inline({ 'k8s/parses.yaml': parses }));
    expect(copied.deployments).toEqual([]);
    expect(copied.files).toEqual([expect.objectContaining({ path: 'k8s/parses.yaml', kind: 'helm_template' })]);
    // A chart's values file with strings for the chart's own tpl is data, no template (containers/kubernetes-mcp-server).
    const values = collectWith(
      inline({
        'charts/mcp/values.yaml':
          'service:\n  port: 8080\nconfig:\n  port: "{{ .Values.service.port }}"\n  name: "{{ .Release.Name }}-gateway"\n',
      }),
    );
    expect(values.skipped).toEqual([]);
    // Nor Compose, whatever keys it holds (seanchatmangpt/erlmcp's kubernetes/helm/values.yaml has `services:`).
    const composeKeys = collectWith(inline({ 'chart/values.yaml': 'services:\n  mcp-server:\n    image: "{{ .Values.image }}"\n' }));
    expect(composeKeys.files).toEqual([expect.objectContaining({ path: 'chart/values.yaml', kind: 'other' })]);
    expect(composeKeys.deployments).toEqual([]);
    expect(values.files).toEqual([expect.objectContaining({ path: 'charts/mcp/values.yaml', kind: 'other' })]);
    // Other Go templates in YAML are data: an Alertmanager message in a ConfigMap beside an MCP server.
    const data = collectWith(
      inline({
        'k8s/server.yaml': [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: {name: mcp-server}',
          'spec:',
          '  template:',
          '    spec:',
          '      containers: [{name: mcp-server, image: "ghcr.io/acme/mcp-server:1.2.0"}]',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata: {name: alerts}',
          'data:',
          '  slack.tmpl: \'{{ define "slack.title" }}{{ .CommonLabels.alertname }} on {{ $labels.instance }}{{ end }}\'',
        ].join('\n'),
      }),
    );
    expect(data.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/server.yaml:Deployment/mcp-server']);
    expect(data.skipped ?? []).toEqual([]);
  });

  it('a plain manifest whose only Helm action is a quoted checksum annotation is read as it is applied', () => {
    // rhel-lightspeed/linux-mcp-server's deploy/openshift/linux-mcp-server/deployment.yaml, applied with `oc apply -f`.
    const manifest = (annotation: string) =>
      deploymentYaml('linux-mcp-server', 'quay.io/acme/linux-mcp-server:1.0.0', [
        'env:',
        '  - { name: LINUX_MCP_TRANSPORT, value: streamable-http }',
      ]).replace(
        '    metadata: { labels: { app: linux-mcp-server } }',
        `    metadata:\n      labels: { app: linux-mcp-server }\n      annotations:\n        ${annotation}`,
      );
    const quoted = collectWith(
      inline({
        'deploy/deployment.yaml': manifest(
          `checksum/config: "{{ include (print $.Template.BasePath \\"/configmap.yaml\\") . | sha256sum }}"`,
        ),
      }),
    );
    expect(quoted.skipped).toEqual([]);
    expect(fact(quoted.deployments[0]!, 'transport.kind')).toBe('http');
    // Any other Helm action still needs rendering.
    const other = collectWith(inline({ 'deploy/deployment.yaml': manifest('replicas: "{{ .Values.replicas }}"') }));
    expect(other.skipped.map((x) => x.path)).toEqual(['deploy/deployment.yaml']);
  });

  it('a templated manifest of another tool that does not parse says it needs rendering', () => {
    // A deployment.yaml.j2-style file: template actions, none of Helm's objects.
    const c = collectWith(
      inline({
        'k8s/deployment.yaml': chart.files['helm/templates/deployment.yaml']!.replace(
          /\.Values\b|\.Release\b|\.Chart\b|\.Template\b|include "/g,
          'x',
        ),
      }),
    );
    expect(c.deployments).toEqual([]);
    expect(c.skipped).toEqual([
      {
        path: 'k8s/deployment.yaml',
        reason: expect.stringMatching(
          /^could not be read as kubernetes: it holds template actions \(\{\{ … \}\}\), which are not YAML until rendered: check the rendered output \(.+\)$/,
        ),
      },
    ]);
  });
});

describe('manifests with no workload', () => {
  it('say nothing about an MCP server: there is nothing to name with --server', () => {
    // kubernetes-mcp-server's dev/config/cert-manager/selfsigned-issuer.yaml shape: an Issuer alone.
    const issuer = 'apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: selfsigned\nspec:\n  selfSigned: {}\n';
    const alone = collectWith(inline({ 'k8s/issuer.yaml': issuer }));
    expect(alone.deployments).toEqual([]);
    expect(alone.notes ?? []).toEqual([]);
    // A workload that is no MCP server still gets its note, naming it.
    const db =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: docs}\nspec:\n  template:\n    spec:\n      containers: [{name: docs, image: "ghcr.io/acme/docs:1.0"}]\n';
    expect(collectWith(inline({ 'k8s/issuer.yaml': issuer, 'k8s/docs.yaml': db }), { named: [] }).notes).toEqual([
      { file: 'k8s/docs.yaml', what: 'no workload is recognisably an MCP server (candidates: docs); name it with --server' },
    ]);
  });
});

describe('a workload an Ingress routes to', () => {
  // higress-group/higress's samples/hello-world/quickstart.yaml: an echo server behind /hello-world.
  const manifests = (...paths: string[]) =>
    [
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: backend}',
      'spec:',
      '  selector: {app: backend}',
      '  ports: [{port: 3000}]',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: backend}',
      'spec:',
      '  template:',
      '    metadata: {labels: {app: backend}}',
      '    spec:',
      '      containers: [{name: backend, image: "registry.example/echoserver:1.0"}]',
      '---',
      'apiVersion: networking.k8s.io/v1',
      'kind: Ingress',
      'metadata: {name: hello-world}',
      'spec:',
      '  rules:',
      '  - http:',
      '      paths:',
      ...paths.map((path) => `      - {path: ${path}, pathType: Prefix, backend: {service: {name: backend, port: {number: 3000}}}}`),
      '',
    ].join('\n');
  const run = (...paths: string[]) => collectWith(inline({ 'samples/quickstart.yaml': manifests(...paths) }), { named: [] });

  it('is an MCP server when the route names MCP; an echo server behind /hello-world is none', () => {
    expect(run('/hello-world').deployments).toEqual([]);
    expect(run('/hello-world').notes).toEqual([
      { file: 'samples/quickstart.yaml', what: 'no workload is recognisably an MCP server (candidates: backend); name it with --server' },
    ]);
    // OAuth metadata names the server, but is no MCP route; beside /mcp it takes nothing away.
    expect(run('/.well-known/oauth-protected-resource/mcp').deployments).toEqual([]);
    expect(run('/.well-known/oauth-protected-resource/mcp', '/mcp').deployments).toHaveLength(1);
    const mcp = run('/mcp').deployments[0]!;
    expect(mcp.sources['container.used']![0]!.why).toBe('Deployment backend (an Ingress of an MCP route routes to it)');
  });

  it('a host named for MCP counts under a catch-all path, not under a path of its own; nor a route named for a backend', () => {
    // Chunkys0up7/MCP's k8s/ingress.yaml: `mcp-backend-ingress`, host mcp.local, path /api/(.*) to a REST backend.
    const hosted = (name: string, path: string) =>
      collectWith(
        inline({
          'samples/quickstart.yaml': manifests(path)
            .replace('metadata: {name: hello-world}', `metadata: {name: ${name}}`)
            .replace('  - http:', '  - host: mcp.local\n    http:'),
        }),
        { named: [] },
      ).deployments.length;
    expect(hosted('web', '/api/(.*)')).toBe(0);
    expect(hosted('mcp-backend-ingress', '/api/(.*)')).toBe(0);
    expect(hosted('web', '/')).toBe(1);
    expect(hosted('mcp-server-ingress', '/api/(.*)')).toBe(1);
  });

  it('a tls section with ingress-nginx\'s ssl-redirect "false" serves plain HTTP too', () => {
    // Hawaiideveloper/mcp-kubernetes-platform-engineer's k8s/ingress.yaml: ssl-redirect "false".
    const tls = (annotations: string) => {
      const text = manifests('/mcp')
        .replace('metadata: {name: hello-world}', `metadata:\n  name: hello-world\n  annotations:\n${annotations}`)
        .replace('spec:\n  rules:', 'spec:\n  tls: [{hosts: [mcp.example.com], secretName: mcp-tls}]\n  rules:');
      const d = collectWith(inline({ 'samples/quickstart.yaml': text })).deployments[0]!;
      return [fact(d, 'tls.enabled'), d.sources['tls.enabled']?.[0]?.why];
    };
    expect(tls('    nginx.ingress.kubernetes.io/ssl-redirect: "false"\n')).toEqual([
      false,
      'Ingress hello-world: ssl-redirect "false" serves its hosts in plain HTTP beside TLS',
    ]);
    expect(tls('    nginx.ingress.kubernetes.io/ssl-redirect: "true"\n')).toEqual([true, 'the Ingress terminates TLS']);
    // force-ssl-redirect redirects whatever ssl-redirect says.
    expect(
      tls('    nginx.ingress.kubernetes.io/ssl-redirect: "false"\n    nginx.ingress.kubernetes.io/force-ssl-redirect: "true"\n')[0],
    ).toBe(true);
  });

  it("ingress-nginx's limit-rps and limit-rpm both apply: the lower per minute binds", () => {
    // sapientpants/sonarqube-mcp-server's base/ingress.yaml: limit-rps 100 and limit-rpm 1000.
    const limited = (annotations: string) => {
      const text = manifests('/mcp').replace(
        'metadata: {name: hello-world}',
        `metadata:\n  name: hello-world\n  annotations:\n${annotations}`,
      );
      const d = collectWith(inline({ 'samples/quickstart.yaml': text })).deployments[0]!;
      return { n: fact(d, 'rate_limit.per_minute'), why: d.sources['rate_limit.per_minute']![0]!.why };
    };
    expect(limited('    nginx.ingress.kubernetes.io/limit-rps: "100"\n    nginx.ingress.kubernetes.io/limit-rpm: "1000"\n')).toEqual({
      n: 1000,
      why: 'limit-rpm 1000, the lower of limit-rps and limit-rpm',
    });
    expect(limited('    nginx.ingress.kubernetes.io/limit-rps: "10"\n')).toEqual({ n: 600, why: 'limit-rps 10' });
  });
});

describe('the only workload, its image built from the files', () => {
  const files = (dependencies: string) =>
    inline({
      'graph/Dockerfile': 'FROM node:24-trixie-slim\nCOPY package.json server.js ./\nRUN npm install\nCMD ["node", "server.js"]\n',
      'graph/package.json': JSON.stringify({ name: 'graph', dependencies: JSON.parse(dependencies) }),
      'k8s/graph.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: graph}\nspec:\n  template:\n    spec:\n      containers: [{name: graph, image: "acme/graph:1.0.0"}]\n',
    });

  it('is the MCP server unless its manifest shows it is something else', () => {
    expect(collectWith(files('{"@modelcontextprotocol/sdk": "1.20.0"}'), { named: [] }).deployments).toHaveLength(1);
    const rest = collectWith(files('{"express": "5.1.0"}'), { named: [] });
    expect(rest.deployments).toEqual([]);
    expect(rest.notes).toContainEqual({
      file: 'k8s/graph.yaml',
      what: 'no workload is recognisably an MCP server (candidates: graph); name it with --server',
    });
    expect(collectWith(files('{"express": "5.1.0"}'), { servers: ['graph'] }).deployments).toHaveLength(1);
  });
});

describe("a workload's image built by a Dockerfile beside a manifest of that name", () => {
  // douglasqsantos/mcp-server-http-streamable: the Dockerfile at the root, pyproject.toml naming the
  // project as the Deployment names its image, `uv sync --frozen`.
  const files = (manifest: Record<string, string>) =>
    inline({
      Dockerfile: 'FROM python:3.12-slim\nCOPY . /app\nRUN uv sync --frozen\nUSER 1000\nCMD ["uv", "run", "server.py"]\n',
      'uv.lock': 'version = 1\n',
      ...manifest,
      'k8s/01-deployment.yaml': mcpDeployment('').replace('example/mcp-server:1.0.0', 'acme/mcp-server-streamable:latest'),
    });

  it.each([
    ['pyproject.toml', '[project]\nname = "mcp-server-streamable"\ndependencies = ["mcp==1.9.0"]\n'],
    ['pyproject.toml', '[tool.poetry]\nname = "mcp-server-streamable"\n'],
    ['Cargo.toml', '[package]\nname = "mcp-server-streamable"\n[dependencies]\nrmcp = "0.8"\n'],
    ['go.mod', 'module github.com/acme/mcp-server-streamable\n\ngo 1.24\n'],
  ])('%s naming the project as the image: the build decides its supply chain', (file, text) => {
    const d = deploymentOf(collectWith(files({ [file]: text })), 'mcp-server');
    expect(fact(d, 'supply_chain.builds_server')).toBe(true);
    expect(fact(d, 'container.runs_as_root')).toBe(false);
  });

  it('a manifest naming another project links nothing', () => {
    const d = deploymentOf(collectWith(files({ 'pyproject.toml': '[project]\nname = "other-tool"\n' })), 'mcp-server');
    expect(fact(d, 'supply_chain.builds_server')).toBeUndefined();
  });
});

describe('a pod whose own probes fetch its port in HTTPS', () => {
  // CasualClark/OpenSpec's k8s/health-checks.yaml: containerPort 8443 named https, all three probes `scheme: HTTPS`.
  const tls = (probe: string, ports = '[{ containerPort: 8443, name: https }, { containerPort: 9090, name: metrics }]') => {
    const d = collectWith(inline({ 'k8s/app.yaml': mcpDeployment(`          ports: ${ports}\n          readinessProbe: ${probe}\n`) }))
      .deployments[0]!;
    return { value: fact(d, 'tls.enabled'), source: d.sources['tls.enabled']?.[0] };
  };

  it('serves TLS itself, cited at the probe', () => {
    expect(tls('{ httpGet: { path: /health, port: https, scheme: HTTPS } }')).toMatchObject({
      value: true,
      source: { file: 'k8s/app.yaml', why: "the pod's readinessProbe fetches its port 8443 in HTTPS: the server serves TLS itself" },
    });
    expect(tls('{ httpGet: { path: /health, port: 8443, scheme: HTTPS } }').value).toBe(true);
  });

  it('not from a probe in plain HTTP, of another port, or among several serving ports', () => {
    expect(tls('{ httpGet: { path: /health, port: 8443 } }').value).toBeUndefined();
    expect(tls('{ httpGet: { path: /metrics, port: 9090, scheme: HTTPS } }').value).toBeUndefined();
    expect(
      tls('{ httpGet: { path: /health, port: 8443, scheme: HTTPS } }', '[{ containerPort: 8443 }, { containerPort: 8080 }]').value,
    ).toBeUndefined();
  });
});

describe("a pod that keeps its image's entrypoint script", () => {
  // A Dockerfile in weather/ builds acme/weather; its ENTRYPOINT is the script it copies in.
  const files = (container: string) =>
    inline({
      'weather/Dockerfile':
        'FROM python:3.13-slim\nRUN pip install mcp==1.9.0\nCOPY start.sh /usr/local/bin/start.sh\nENTRYPOINT ["start.sh"]\nUSER 1000\n',
      'weather/start.sh': '#!/bin/sh\nset -e\nexec python -m weather --transport sse --port 8000\n',
      'k8s/weather.yaml': [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: weather-mcp}',
        'spec:',
        '  template:',
        '    spec:',
        `      containers: [{name: weather-mcp, image: "acme/weather:1.0.0"${container}}]`,
        '',
      ].join('\n'),
    });

  it('serves what the script ends in; a command of its own replaces the script', () => {
    const d = collectWith(files('')).deployments.find((x) => x.name.includes('weather-mcp'))!;
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(d.sources['transport.legacy_sse']![0]).toMatchObject({ file: 'weather/start.sh', line: 3 });
    const own = collectWith(files(', command: ["python", "-m", "weather"]')).deployments.find((x) => x.name.includes('weather-mcp'))!;
    expect(fact(own, 'transport.legacy_sse')).toBeUndefined();
  });
});

describe("an operator's MCP server resource with no workload among the files", () => {
  it('says the operator creates the workload, so its facts are not read from the resource', () => {
    // stacklok/toolhive examples/operator/mcp-servers/mcpserver_github.yaml (commit e25de16c), shortened.
    const github = [
      'apiVersion: toolhive.stacklok.dev/v1beta1',
      'kind: MCPServer',
      'metadata:',
      '  name: github',
      '  namespace: toolhive-system',
      'spec:',
      '  image: ghcr.io/github/github-mcp-server',
      '  transport: stdio',
      '  proxyPort: 8080',
    ].join('\n');
    const c = collectWith(inline({ 'examples/mcpserver_github.yaml': github }));
    expect(c.deployments).toEqual([]);
    expect(c.notes).toEqual([
      {
        file: 'examples/mcpserver_github.yaml',
        what: 'MCPServer github: an operator creates the workload that runs this MCP server, and its facts are not read from the resource; check the workload the operator creates (kubectl get deployment,service -o yaml) or declare its facts',
      },
    ]);
    // Beside another workload too (StacklokLabs/toolhive-demo-sandbox's cloudflared tunnel next to a VirtualMCPServer).
    const tunnel = deploymentYaml('cloudflared', 'cloudflare/cloudflared:2025.9.0', ['args: [tunnel, run]']);
    const beside = collectWith(inline({ 'examples/mcpserver_github.yaml': `${github}\n---\n${tunnel}` }));
    expect(beside.deployments).toEqual([]);
    expect(beside.notes.map((n) => n.what)).toContain(
      'MCPServer github: an operator creates the workload that runs this MCP server, and its facts are not read from the resource; check the workload the operator creates (kubectl get deployment,service -o yaml) or declare its facts',
    );
  });
});

describe('what a container runs: its args after the image ENTRYPOINT, a command replacing both', () => {
  // grafana/mcp-grafana's Dockerfile (fixture names the source): ENTRYPOINT [..., "--transport", "sse", ...].
  const { files } = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/collect-walk/grafana-sse-entrypoint.json'), 'utf8')) as {
    files: Record<string, string>;
  };
  const pod = (container: string) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: mcp-grafana }',
      'spec:',
      '  selector: { matchLabels: { app: mcp-grafana } }',
      '  template:',
      '    metadata: { labels: { app: mcp-grafana } }',
      '    spec:',
      '      containers:',
      `        - { name: mcp-grafana, image: "grafana/mcp-grafana:0.7.0"${container} }`,
    ].join('\n');
  const run = (container: string) =>
    deploymentOf(
      collectWith(inline({ 'mcp-grafana/Dockerfile': files['Dockerfile']!, 'k8s/deploy.yaml': pod(container) })),
      'Deployment/mcp-grafana',
    );

  it('args alone follow the ENTRYPOINT, whose --transport sse still runs', () => {
    const d = run(', args: ["--debug"]');
    expect(fact(d, 'transport.legacy_sse')).toBe(true);
    expect(d.sources['transport.legacy_sse']![0]).toMatchObject({ file: 'k8s/deploy.yaml', line: 10 });
    expect(fact(run(''), 'transport.legacy_sse')).toBe(true);
  });

  it('a later --transport in args, or a command, decides instead', () => {
    expect(fact(run(', args: ["--transport", "streamable-http"]'), 'transport.legacy_sse')).toBeUndefined();
    expect(fact(run(', command: ["/app/mcp-grafana"], args: ["--address", ":8000"]'), 'transport.legacy_sse')).toBeUndefined();
  });
});

describe('two manifests of one directory that define the same object', () => {
  // microsoft/mcp-gateway's deployment/k8s: local-deployment.yml and cloud-deployment-template.yml
  // both define Deployment/mcpgateway; only the cloud one has a LoadBalancer Service.
  const deployment = (image: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcpgateway }\nspec:\n  selector: { matchLabels: { app: mcpgateway } }\n  template:\n    metadata: { labels: { app: mcpgateway } }\n    spec:\n      containers:\n        - { name: mcpgateway, image: "${image}" }\n`;
  const files = {
    'k8s/local-deployment.yml': deployment('localhost:5000/mcpgateway:latest'),
    'k8s/cloud-deployment-template.yml': `${deployment('example.azurecr.io/mcpgateway:1.0.0')}---\napiVersion: v1\nkind: Service\nmetadata: { name: mcpgateway-service }\nspec: { type: LoadBalancer, selector: { app: mcpgateway }, ports: [{ port: 80 }] }\n`,
  };

  it('are alternatives: each file is read on its own, and a note says so', () => {
    const out = collectWith(inline(files));
    expect(out.deployments.map((d) => d.name)).toEqual([
      'kubernetes:k8s/cloud-deployment-template.yml:Deployment/mcpgateway',
      'kubernetes:k8s/local-deployment.yml:Deployment/mcpgateway',
    ]);
    const local = deploymentOf(out, 'local-deployment.yml:Deployment/mcpgateway');
    // The cloud file's LoadBalancer is not the local deployment's.
    for (const sources of Object.values(local.sources))
      for (const s of sources) expect(JSON.stringify(s)).not.toContain('cloud-deployment');
    expect(fact(deploymentOf(out, 'cloud-deployment-template.yml:Deployment/mcpgateway'), 'exposure.behind_reverse_proxy')).toBe(false);
    expect(out.notes).toContainEqual({
      file: 'k8s',
      what: 'k8s/cloud-deployment-template.yml and k8s/local-deployment.yml both define Deployment/mcpgateway: read as alternatives, each file on its own; name the files that are applied together to read them as one set',
    });
  });
});

describe("workloads that are not apps/v1's: Argo Rollouts' Rollout, OpenShift's DeploymentConfig", () => {
  const workload = (apiVersion: string, kind: string, selector: string) =>
    [
      `apiVersion: ${apiVersion}`,
      `kind: ${kind}`,
      'metadata: { name: mcp-server }',
      'spec:',
      '  replicas: 3',
      `  selector: ${selector}`,
      '  template:',
      '    metadata: { labels: { app: mcp-server } }',
      '    spec:',
      '      containers:',
      '        - name: mcp-server',
      '          image: ghcr.io/acme/mcp-server:1.4.0',
      '          securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true }',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: mcp-server }',
      'spec: { selector: { app: mcp-server }, ports: [{ port: 8080 }] }',
    ].join('\n');

  it('are read as the pods they run, with the Service in front', () => {
    for (const [apiVersion, kind, selector] of [
      ['argoproj.io/v1alpha1', 'Rollout', '{ matchLabels: { app: mcp-server } }'],
      ['apps.openshift.io/v1', 'DeploymentConfig', '{ app: mcp-server }'],
    ] as const) {
      const d = deploymentOf(collectWith(inline({ 'k8s/app.yaml': workload(apiVersion, kind, selector) })), `${kind}/mcp-server`);
      expect(fact(d, 'deployment.replicas'), kind).toBe(3);
      expect(fact(d, 'container.read_only_root_fs'), kind).toBe(true);
      expect(fact(d, 'container.runs_as_root'), kind).toBe(false);
      expect(fact(d, 'container.orchestrator'), kind).toBe('kubernetes');
    }
  });
});

describe('a Knative Service (the YAML Cloud Run takes too)', () => {
  const knative = (labels: string) =>
    [
      'apiVersion: serving.knative.dev/v1',
      'kind: Service',
      'metadata:',
      '  name: mcp-server',
      `  labels: { ${labels} }`,
      'spec:',
      '  template:',
      '    metadata:',
      "      annotations: { autoscaling.knative.dev/maxScale: '5' }",
      '    spec:',
      '      containers:',
      `        - image: us-docker.pkg.dev/acme/mcp/server@sha256:${'a'.repeat(64)}`,
      '          securityContext: { runAsNonRoot: true }',
      '          env:',
      '            - name: API_TOKEN',
      '              valueFrom: { secretKeyRef: { name: mcp, key: token } }',
    ].join('\n');

  it('is a workload whose pods are read; the platform decides its exposure and its scale', () => {
    const d = deploymentOf(collectWith(inline({ 'service.yaml': knative('app: mcp') })), 'Service/mcp-server');
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(fact(d, 'container.image_pinned_by_digest')).toBe(true);
    expect(fact(d, 'container.secrets_source')).toBe('environment');
    for (const path of ['deployment.replicas', 'exposure.behind_reverse_proxy', 'tls.enabled', 'exposure.reachable_from_internet'])
      expect(fact(d, path), path).toBeUndefined();
    expect(d.undecided).toEqual(expect.arrayContaining(['deployment.replicas', 'exposure.reachable_from_internet', 'tls.enabled']));
  });

  it('cluster-local: no public route', () => {
    const d = deploymentOf(
      collectWith(inline({ 'service.yaml': knative('networking.knative.dev/visibility: cluster-local') })),
      'Service/mcp-server',
    );
    expect(fact(d, 'exposure.reachable_from_internet')).toBe(false);
    expect(fact(d, 'exposure.endpoint_address_class')).toBe('private');
  });
});

describe('a ko:// image names a Go package, not the project it is in', () => {
  const deployment = (image: string) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: feature-request-demo }',
      'spec:',
      '  selector: { matchLabels: { app: demo } }',
      '  template:',
      '    metadata: { labels: { app: demo } }',
      '    spec:',
      '      containers:',
      '        - name: demo',
      `          image: ${image}`,
    ].join('\n');
  // Beside another app, so that neither is the only workload left.
  const worker = deployment('ghcr.io/acme/worker:1.0').replace('feature-request-demo', 'worker').replaceAll('demo', 'worker');
  const servers = (image: string) =>
    collectWith(inline({ 'config/deployment.yaml': deployment(image), 'config/worker.yaml': worker })).deployments.map((d) => d.name);

  it('a REST demo of an MCP project is no MCP server; a package that names MCP is one', () => {
    // Cali0707/AutoMCP's examples/http-conversion/feature-requests: a plain HTTP API that AutoMCP converts.
    expect(servers('ko://github.com/Cali0707/AutoMCP/demo')).toEqual([]);
    expect(servers('ko://github.com/acme/tools/cmd/mcp-server')).toEqual([
      'kubernetes:config/deployment.yaml:Deployment/feature-request-demo',
    ]);
    // A registry image's namespace still counts (Docker's mcp/ catalogue).
    expect(servers('mcp/fetch:latest')).toEqual(['kubernetes:config/deployment.yaml:Deployment/feature-request-demo']);
  });
});

describe('a NodePort or LoadBalancer Service that selects the server', () => {
  // rohitg00/kubectl-mcp-server's deploy/kubernetes/service.yaml: `type: NodePort`, `nodePort: 30800`.
  const manifests = (type: string) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: kubectl-mcp-server }',
      'spec:',
      '  selector: { matchLabels: { app: kubectl-mcp } }',
      '  template:',
      '    metadata: { labels: { app: kubectl-mcp } }',
      '    spec:',
      '      containers:',
      '        - name: server',
      '          image: rohitghumare64/kubectl-mcp-server:1.2.0',
      '          ports: [{ containerPort: 8000 }]',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: kubectl-mcp-server }',
      'spec:',
      `  type: ${type}`,
      '  selector: { app: kubectl-mcp }',
      '  ports: [{ port: 8000, targetPort: 8000 }]',
    ].join('\n');
  const published = (type: string) => {
    const d = collectWith(inline({ 'deploy/all.yaml': manifests(type) })).deployments[0]!;
    return { value: fact(d, 'container.published_ports'), at: d.sources['container.published_ports']?.[0] };
  };

  it('publishes its port on every node: all_interfaces, as a hostPort does; a ClusterIP publishes none', () => {
    expect(published('NodePort')).toEqual({
      value: 'all_interfaces',
      at: { file: 'deploy/all.yaml', line: 18, why: "Service kubectl-mcp-server (NodePort) publishes the server's port on every node" },
    });
    expect(published('LoadBalancer').value).toBe('all_interfaces');
    expect(published('ClusterIP').value).toBe('none');
  });

  it("on a port the pod's own probe fetches in plain HTTP: no TLS; in HTTPS, TLS", () => {
    // rohitg00/kubectl-mcp-server's deployment.yaml:52-55: an httpGet probe on 8000, the NodePort's target.
    const tls = (probe: string) => {
      const text = manifests('NodePort').replace(
        '          ports: [{ containerPort: 8000 }]',
        `          ports: [{ name: http, containerPort: 8000 }]\n          readinessProbe: { httpGet: ${probe} }`,
      );
      const d = collectWith(inline({ 'deploy/all.yaml': text })).deployments[0]!;
      return [fact(d, 'tls.enabled'), d.sources['tls.enabled']?.[0]?.why];
    };
    expect(tls('{ path: /health, port: 8000 }')).toEqual([
      false,
      "Service kubectl-mcp-server (NodePort) takes clients on a port the pod's own probe fetches in plain HTTP, with no certificate for its load balancer",
    ]);
    expect(tls('{ path: /health, port: http }')[0]).toBe(false);
    expect(tls('{ path: /health, port: 8000, scheme: HTTPS }')[0]).toBe(true);
    expect(tls('{ path: /health, port: 9090 }')[0]).toBeUndefined();
    // Beside another port, the probed one may be a health port, not MCP's: it decides nothing.
    const two = manifests('NodePort')
      .replace(
        '          ports: [{ containerPort: 8000 }]',
        '          ports: [{ containerPort: 8443 }, { containerPort: 8081 }]\n          readinessProbe: { httpGet: { path: /health, port: 8081 } }',
      )
      .replace(
        '  ports: [{ port: 8000, targetPort: 8000 }]',
        '  ports: [{ name: https, port: 443, targetPort: 8443 }, { name: health, port: 8081, targetPort: 8081 }]',
      );
    expect(fact(collectWith(inline({ 'deploy/all.yaml': two })).deployments[0]!, 'tls.enabled')).toBeUndefined();
    // A metrics port beside the probed one is set aside (aRustyDev/pcf-mcp: http and metrics, the probe on http).
    const metrics = manifests('LoadBalancer')
      .replace(
        '          ports: [{ containerPort: 8000 }]',
        '          ports: [{ name: http, containerPort: 8000 }, { name: metrics, containerPort: 9090 }]\n          readinessProbe: { httpGet: { path: /health, port: http } }',
      )
      .replace(
        '  ports: [{ port: 8000, targetPort: 8000 }]',
        '  ports: [{ name: http, port: 8080, targetPort: http }, { name: metrics, port: 9090, targetPort: metrics }]',
      );
    expect(fact(collectWith(inline({ 'deploy/all.yaml': metrics })).deployments[0]!, 'tls.enabled')).toBe(false);
  });
});

describe("a kustomization's namePrefix, as kubectl kustomize applies it", () => {
  // Tributary-ai-services/tas-mcp's k8s/overlays/prod: `namePrefix: prod-` over the base, with an HPA
  // and an Ingress that name the prefixed Deployment and Service.
  const files = {
    'k8s/base/kustomization.yaml': 'resources: [deployment.yaml, service.yaml]\n',
    'k8s/base/deployment.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: tas-mcp }',
      'spec:',
      '  replicas: 1',
      '  selector: { matchLabels: { app: tas-mcp } }',
      '  template:',
      '    metadata: { labels: { app: tas-mcp } }',
      '    spec:',
      '      serviceAccountName: tas-mcp',
      '      containers:',
      '        - name: server',
      '          image: ghcr.io/acme/tas-mcp:1.0.0',
      '          envFrom: [{ configMapRef: { name: tas-mcp-config } }]',
    ].join('\n'),
    'k8s/base/service.yaml':
      'apiVersion: v1\nkind: Service\nmetadata: { name: tas-mcp-http }\nspec:\n  selector: { app: tas-mcp }\n  ports: [{ port: 8080 }]\n',
    'k8s/overlays/prod/kustomization.yaml':
      'resources: [../../base, hpa.yaml, ingress.yaml]\nnamePrefix: prod-\nreplicas:\n  - name: tas-mcp\n    count: 5\n',
    'k8s/overlays/prod/hpa.yaml': [
      'apiVersion: autoscaling/v2',
      'kind: HorizontalPodAutoscaler',
      'metadata: { name: tas-mcp-hpa }',
      'spec:',
      '  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: prod-tas-mcp }',
      '  minReplicas: 5',
      '  maxReplicas: 50',
    ].join('\n'),
    'k8s/overlays/prod/ingress.yaml': [
      'apiVersion: networking.k8s.io/v1',
      'kind: Ingress',
      'metadata: { name: tas-mcp-ingress }',
      'spec:',
      '  rules:',
      '    - host: api.tas-mcp.com',
      '      http:',
      '        paths:',
      '          - path: /',
      '            pathType: Prefix',
      '            backend: { service: { name: prod-tas-mcp-http, port: { number: 8080 } } }',
    ].join('\n'),
  };

  it('renames every object, so the HPA and the Ingress written for the prefixed names find theirs', () => {
    const c = collectWith(inline(files), { kustomizations: ['k8s/overlays/prod'] });
    const d = deploymentOf(c, 'kubernetes:k8s/overlays/prod/kustomization.yaml:Deployment/prod-tas-mcp');
    expect(fact(d, 'deployment.replicas')).toBeUndefined();
    expect(d.reasons['deployment.replicas']).toMatch(/^HorizontalPodAutoscaler prod-tas-mcp-hpa changes the count between 5 and 50/);
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(d.sources['exposure.behind_reverse_proxy']![0]!.why).toMatch(/^Ingress prod-tas-mcp-ingress routes to the server/);
  });
});

describe('patches that are not objects of their own', () => {
  const deployment = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: { name: mcp-broker }',
    'spec:',
    '  selector: { matchLabels: { app: mcp-broker } }',
    '  template:',
    '    metadata: { labels: { app: mcp-broker } }',
    '    spec:',
    '      containers:',
    '        - name: mcp-broker',
    '          image: ghcr.io/example/mcp-gateway:1.0.0',
    '          env: [{ name: LOG_LEVEL, value: info }]',
    '          resources: { limits: { cpu: 500m, memory: 256Mi } }',
    '',
  ].join('\n');

  it('a Deployment with no selector and no image is a patch file, not a second server', () => {
    // kagenti/mcp-gateway: config/mcp-system/poll-interval-patch.yaml, applied by
    // `kubectl patch --patch-file` from its Makefile and by no kustomization.
    const patch =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp-broker }\nspec:\n  template:\n    spec:\n      containers:\n        - name: mcp-broker\n          command: [./mcp_gateway, --mcp-check-interval=10]\n';
    const out = collectWith(inline({ 'config/deployment.yaml': deployment, 'config/poll-interval-patch.yaml': patch }));
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:config/deployment.yaml:Deployment/mcp-broker']);
    expect(fact(out.deployments[0]!, 'container.resource_limits')).toBe(true);
    // Nor does it make the real Deployment of its directory one of two alternatives.
    expect(out.notes.filter((n) => /alternatives/.test(n.what))).toEqual([]);
    expect(out.notes).toContainEqual({
      file: 'config/poll-interval-patch.yaml',
      what: 'Deployment mcp-broker: no selector and no image, so it is a patch of another object and not a workload (a kustomization applies it only where it lists it among its patches)',
    });
  });

  it('an inline strategic-merge patch written as a string in patchesStrategicMerge is applied at its own lines', () => {
    // CDataSoftware/cdata-sync-mcp-server's k8s/kustomization.yaml: `patchesStrategicMerge: [ |- apiVersion: … ]`.
    const kustomization = [
      'resources: [deployment.yaml]',
      'patchesStrategicMerge:',
      '  - |-',
      '    apiVersion: apps/v1',
      '    kind: Deployment',
      '    metadata:',
      '      name: mcp-broker',
      '    spec:',
      '      template:',
      '        spec:',
      '          containers:',
      '          - name: mcp-broker',
      '            securityContext: { readOnlyRootFilesystem: true }',
      '',
    ].join('\n');
    const out = collectWith(inline({ 'k8s/deployment.yaml': deployment, 'k8s/kustomization.yaml': kustomization }));
    const d = deploymentOf(out, 'Deployment/mcp-broker');
    expect(fact(d, 'container.read_only_root_fs')).toBe(true);
    expect(d.sources['container.read_only_root_fs']![0]).toMatchObject({ file: 'k8s/kustomization.yaml', line: 13 });
    expect(out.notes.filter((n) => /not applied/.test(n.what))).toEqual([]);
    // The same kustomization rendered by kubectl agrees.
    const root = tempDir('inline-patch');
    mkdirSync(join(root, 'k8s'));
    writeFileSync(join(root, 'k8s/deployment.yaml'), deployment);
    writeFileSync(join(root, 'k8s/kustomization.yaml'), kustomization);
    const rendered = execFileSync('kubectl', ['kustomize', join(root, 'k8s')], { encoding: 'utf8' });
    expect(parse(rendered).spec.template.spec.containers[0].securityContext).toEqual({ readOnlyRootFilesystem: true });
  });
});

describe("a proxy's configuration in a ConfigMap a kustomization generates from a file", () => {
  // 0x1D-1983/book-api-mcp-docker-compose-bundle's k8s/service-mesh: an Envoy edge behind a
  // LoadBalancer, its envoy.yaml generated from envoy-edge.yaml, routing /pgadmin to pgAdmin and
  // everything else to the MCP server.
  const workload = (name: string, image: string, extra = '') =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  selector: { matchLabels: { app: ${name} } }\n  template:\n    metadata: { labels: { app: ${name} } }\n    spec:\n      containers:\n        - { name: ${name}, image: "${image}" }\n${extra}---\napiVersion: v1\nkind: Service\nmetadata: { name: ${name} }\nspec: { selector: { app: ${name} }, ports: [{ port: 8080 }] }\n`;
  const files = {
    'k8s/kustomization.yaml':
      'resources: [server.yaml, pgadmin.yaml, envoy.yaml]\nconfigMapGenerator:\n  - name: envoy-conf\n    files:\n      - envoy.yaml=envoy-edge.yaml\nsecretGenerator:\n  - name: certs\n    files: [tls.key]\n',
    'k8s/server.yaml': workload('bookapi-mcp-server', 'example/bookapi-mcp-server:1.0'),
    'k8s/pgadmin.yaml': workload('pgadmin', 'dpage/pgadmin4:8'),
    'k8s/envoy.yaml': workload(
      'envoy-edge',
      'envoyproxy/envoy:v1.31-latest',
      '      volumes: [{ name: config, configMap: { name: envoy-conf } }]\n',
    ),
    'k8s/envoy-edge.yaml': [
      'static_resources:',
      '  clusters:',
      '    - name: pgadmin',
      '      load_assignment: { endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: pgadmin.default.svc.cluster.local, port_value: 80 } } } }] }] }',
      '    - name: mcp',
      '      load_assignment:',
      '        endpoints:',
      '          - lb_endpoints:',
      '              - endpoint: { address: { socket_address: { address: bookapi-mcp-server.default.svc.cluster.local, port_value: 8080 } } }',
      '',
    ].join('\n'),
    'k8s/tls.key': 'not read',
  };

  it('is read from that file: the proxy forwards to the MCP server, and the admin tool beside it is no server', () => {
    const out = collectWith(inline(files));
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/kustomization.yaml:Deployment/bookapi-mcp-server']);
    const d = out.deployments[0]!;
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(d.sources['exposure.behind_reverse_proxy']![0]!.why).toBe('envoy-edge forwards to the server');
  });

  it("never reads a generated Secret's files", () => {
    const out = collectWith(
      inline({ ...files, 'k8s/tls.key': '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ\n-----END PRIVATE KEY-----\n' }),
    );
    expect(JSON.stringify(out)).not.toContain('MC4CAQAwBQYDK2VwBCIEIJ');
  });
});

describe('an init container that reads a Secret into a volume the server mounts', () => {
  it('is where the server gets it: mounted files, not "none"', () => {
    // enkryptai/secure-mcp-gateway's manifest example: an initContainer fetches the keys file with a secretKeyRef token.
    const pod = (init: string) =>
      collectWith(
        inline({
          'k8s/gw.yaml': `${deploymentYaml('gateway', 'acme/mcp-gateway:1.0.0', [
            'ports: [{ containerPort: 8000 }]',
            'volumeMounts: [{ name: keys, mountPath: /keys }]',
          ])}      initContainers:\n        - name: fetch-keys\n          image: curlimages/curl:8.10.1\n          env:\n            - name: API_TOKEN\n              valueFrom: { secretKeyRef: { name: gw, key: token } }\n          volumeMounts: [{ name: ${init}, mountPath: /out }]\n      volumes:\n        - { name: keys, emptyDir: {} }\n        - { name: scratch, emptyDir: {} }\n`,
          Dockerfile: 'FROM python:3.12-slim\nRUN pip install mcp==1.20.0\nUSER 1000\nCMD ["python", "-m", "gateway"]\n',
          'pyproject.toml': '[project]\nname = "mcp-gateway"\ndependencies = ["mcp==1.20.0"]\n',
        }),
      ).deployments[0]!;
    const d = pod('keys');
    expect(fact(d, 'container.secrets_source')).toBe('mounted_files');
    expect(d.sources['container.secrets_source']![0]!.why).toBe(
      'init container fetch-keys reads a Secret and writes into volume keys, which the server mounts',
    );
    expect(fact(pod('scratch'), 'container.secrets_source')).toBe('none');
  });
});

describe('a committed Secret the pod reads', () => {
  // mindset-dev/bigtorig-mcp-hub's k8s/: the Deployment reads mcp-hub-secrets by secretKeyRef,
  // and secrets-example.yaml beside it writes that Secret's values.
  const deployment = (env: string, volumes = '') =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp-hub }\nspec:\n  selector: { matchLabels: { app: mcp-hub } }\n  template:\n    metadata: { labels: { app: mcp-hub } }\n    spec:\n      containers:\n        - name: mcp-hub\n          image: ghcr.io/acme/mcp-hub:1.0.0\n${env}${volumes}`;
  const secret = (name: string) =>
    `apiVersion: v1\nkind: Secret\nmetadata: { name: ${name} }\nstringData:\n  mysql-password: "securepass123"\n`;
  const source = (files: Record<string, string>) => {
    const d = collectWith(inline(files)).deployments[0]!;
    return { value: fact(d, 'container.secrets_source'), why: d.sources['container.secrets_source']?.[0]?.why };
  };
  const keyRef =
    '          env:\n            - name: MYSQL_PASSWORD\n              valueFrom: { secretKeyRef: { name: mcp-hub-secrets, key: mysql-password } }\n';

  it('by secretKeyRef, envFrom or a volume: its values are in the files', () => {
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': secret('mcp-hub-secrets') })).toEqual({
      value: 'manifest_plaintext',
      why: 'Secret mcp-hub-secrets has its values written in the manifest',
    });
    const volume =
      '          volumeMounts: [{ name: creds, mountPath: /run/creds }]\n      volumes:\n        - { name: creds, secret: { secretName: mcp-hub-secrets } }\n';
    expect(source({ 'k8s/deployment.yaml': deployment('', volume), 'k8s/secrets.yaml': secret('mcp-hub-secrets') }).value).toBe(
      'manifest_plaintext',
    );
  });

  it('an identifier kept in a Secret is no secret of the pod', () => {
    // DustHoff/msgraphmcp: AZURE_CLIENT_ID and AZURE_TENANT_ID by secretKeyRef, its client secret commented out.
    const ids =
      '          env:\n            - name: AZURE_CLIENT_ID\n              valueFrom: { secretKeyRef: { name: azure, key: client-id } }\n            - name: AZURE_TENANT_ID\n              valueFrom: { secretKeyRef: { name: azure, key: tenant-id } }\n';
    // The image is built elsewhere: what it holds stays open, but no Secret is the source.
    expect(source({ 'k8s/deployment.yaml': deployment(ids) }).value).toBeUndefined();
    // A connection URL may carry a password: still a secret.
    const url = '          env:\n            - name: DATABASE_URL\n              valueFrom: { secretKeyRef: { name: db, key: url } }\n';
    expect(source({ 'k8s/deployment.yaml': deployment(url) }).value).toBe('environment');
  });

  it("a SOPS-encrypted Secret holds ciphertext, not the values; a $(VAR) in a URL is another variable's", () => {
    // Quazmoz/K8SHomelab: mcpo-config.secret.enc.yaml (Flux decrypts it) and context-forge.yaml's `$(DB_PASSWORD)`.
    const sops =
      'apiVersion: v1\nkind: Secret\nmetadata: { name: mcp-hub-secrets }\nstringData:\n  mysql-password: ENC[AES256_GCM,data:q8k=,iv:a,tag:b,type:str]\nsops:\n  age:\n    - recipient: age1xyz\n  version: 3.9.0\n';
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': sops })).toEqual({
      value: 'environment',
      why: 'MYSQL_PASSWORD from a Secret (secretKeyRef)',
    });
    const url = `${keyRef}            - name: DATABASE_URL\n              value: postgresql://app:$(MYSQL_PASSWORD)@db:5432/mcp\n`;
    expect(source({ 'k8s/deployment.yaml': deployment(url) }).value).toBe('environment');
    expect(source({ 'k8s/deployment.yaml': deployment(url.replace('$(MYSQL_PASSWORD)', 'hunter22')) }).value).toBe('manifest_plaintext');
  });

  it('another Secret, even one whose name is part of the read one, says nothing of it', () => {
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': secret('mcp-hub') }).value).toBe('environment');
  });

  it('placeholders are no values written: the pod reads the Secret the operator fills in', () => {
    // sapientpants/sonarqube-mcp-server's base/secret.yaml: `SONARQUBE_TOKEN: "PLACEHOLDER_DO_NOT_USE"`.
    const placeholder = secret('mcp-hub-secrets').replace('"securepass123"', '"PLACEHOLDER_DO_NOT_USE"');
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': placeholder }).value).toBe('environment');
    // Base64 in `data`: `your-api-key-here`.
    const encoded = `apiVersion: v1\nkind: Secret\nmetadata: { name: mcp-hub-secrets }\ndata:\n  mysql-password: ${Buffer.from('your-api-key-here').toString('base64')}\n`;
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': encoded }).value).toBe('environment');
    // A template's whole-value reference, filled in by a deploy script (microsoft/mcp-gateway's cloud template).
    const template = secret('mcp-hub-secrets').replace('"securepass123"', '"${GATEWAY_SECRET}"');
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': template }).value).toBe('environment');
    // ynotopec/infocepo-infra-mcp's `"{{.values.api_key}}"`, zacharycox-tamu/mcp-checkuptime's `token: ""`
    // ("Leave empty if creating via kubectl"), MoisesTapia/mcp-sonarqube's base64 of the key's own name.
    for (const value of ['"{{.values.api_key}}"', '""', '"mysql_password"'])
      expect(
        source({
          'k8s/deployment.yaml': deployment(keyRef),
          'k8s/secrets.yaml': secret('mcp-hub-secrets').replace('"securepass123"', value),
        }).value,
        value,
      ).toBe('environment');
    const ownName = `apiVersion: v1\nkind: Secret\nmetadata: { name: mcp-hub-secrets }\ndata:\n  mysql-password: ${Buffer.from('mysql-password').toString('base64')}\n`;
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': ownName }).value).toBe('environment');
    // Yugal0708/Waggle-mcp's secret.example.yaml: a username beside a password to replace; DustHoff/msgraphmcp's
    // placeholder left unencoded in `data`; SolaceProducts' `changeme` beside `BROKER_USERNAME: admin`.
    const withUser = `${secret('mcp-hub-secrets').replace('"securepass123"', 'REPLACE_WITH_REAL_PASSWORD')}  NEO4J_USERNAME: neo4j\n`;
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': withUser }).value).toBe('environment');
    const unencoded =
      'apiVersion: v1\nkind: Secret\nmetadata: { name: mcp-hub-secrets }\ndata:\n  mysql-password: REPLACE_WITH_BASE64_CLIENT_SECRET\n';
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': unencoded }).value).toBe('environment');
    for (const v of ['changeme', 'CHANGE_ME'])
      expect(
        source({
          'k8s/deployment.yaml': deployment(keyRef),
          'k8s/secrets.yaml': `${secret('mcp-hub-secrets').replace('"securepass123"', v)}  BROKER_USERNAME: admin\n`,
        }).value,
        v,
      ).toBe('environment');
    // A username alone is no secret, but a real password beside it is one written.
    const realWithUser = `${secret('mcp-hub-secrets')}  NEO4J_USERNAME: neo4j\n`;
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': realWithUser }).value).toBe('manifest_plaintext');
    // One real value beside an empty one is a value written.
    const mixed = `${secret('mcp-hub-secrets')}  api-token: ""\n`;
    expect(source({ 'k8s/deployment.yaml': deployment(keyRef), 'k8s/secrets.yaml': mixed }).value).toBe('manifest_plaintext');
    // A placeholder written in env alone: where the real one is kept is open.
    const literal = '          env:\n            - { name: API_KEY, value: your-pcf-api-key-here }\n';
    expect(source({ 'k8s/deployment.yaml': deployment(literal) })).toEqual({ value: undefined, why: undefined });
  });
});

describe("an MCP project's controller", () => {
  it('declares only health and metrics ports: no MCP endpoint, not a server', () => {
    // kagenti/mcp-gateway's config/mcp-system/deployment-controller.yaml: the gateway's image run with
    // --controller, on ports health 8081 and metrics 8082, beside the broker that serves MCP.
    const workload = (name: string, args: string, ports: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  selector: { matchLabels: { app: ${name} } }\n  template:\n    metadata: { labels: { app: ${name} } }\n    spec:\n      containers:\n        - name: ${name}\n          image: ghcr.io/kagenti/mcp-gateway:0.4.0\n          command: [./mcp_gateway, ${args}]\n          ports: [${ports}]\n---\n`;
    const out = collectWith(
      inline({
        'config/all.yaml':
          workload('mcp-controller', '--controller', '{ name: health, containerPort: 8081 }, { name: metrics, containerPort: 8082 }') +
          workload('mcp-broker-router', '--mcp-broker-public-address=0.0.0.0:8080', '{ name: http, containerPort: 8080 }'),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:config/all.yaml:Deployment/mcp-broker-router']);
    expect(out.notes).toContainEqual({
      file: 'config/all.yaml',
      what: 'Deployment mcp-controller declares only health and metrics ports (health, metrics): no MCP endpoint, not read as a server; name it with --server if it serves MCP',
    });
  });
});

describe("a switch that turns off the server's certificate verification", () => {
  it('read through configMapKeyRef from a ConfigMap among the files, cited there', () => {
    // Gheorghe-Valer/mcp's k8s/configmap.yaml `SAP_VALIDATE_SSL: "false"`, read by deployment.yaml's configMapKeyRef.
    const files = (value: string) =>
      inline({
        'k8s/configmap.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: mcp-config }\ndata:\n  SAP_URL: https://sap.example.com\n  SAP_VALIDATE_SSL: "${value}"\n`,
        'k8s/deployment.yaml':
          'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: sap-mcp }\nspec:\n  selector: { matchLabels: { app: sap-mcp } }\n  template:\n    metadata: { labels: { app: sap-mcp } }\n    spec:\n      containers:\n        - name: sap-mcp\n          image: gvaler/mcp:1.0.0\n          env:\n            - name: SAP_VALIDATE_SSL\n              valueFrom:\n                configMapKeyRef: { name: mcp-config, key: SAP_VALIDATE_SSL }\n',
      });
    const d = collectWith(files('false')).deployments[0]!;
    expect(fact(d, 'egress.tls_verification_disabled')).toBe(true);
    expect(d.sources['egress.tls_verification_disabled']![0]).toMatchObject({
      file: 'k8s/configmap.yaml',
      line: 6,
      why: 'SAP_VALIDATE_SSL=false turns off certificate verification',
    });
    expect(fact(collectWith(files('true')).deployments[0]!, 'egress.tls_verification_disabled')).toBeUndefined();
  });
});

describe('a server that serves TLS itself', () => {
  it('with a certificate and its key on its command line, nothing in front', () => {
    // nirmata/kyverno-mcp's k8s-manifests/deployment.yaml: --tls-cert and --tls-key, a ClusterIP Service.
    const manifest = (args: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: kyverno-mcp }\nspec:\n  selector: { matchLabels: { app: kyverno-mcp } }\n  template:\n    metadata: { labels: { app: kyverno-mcp } }\n    spec:\n      containers:\n        - name: kyverno-mcp\n          image: ghcr.io/nirmata/kyverno-mcp:0.3.0\n          args: [${args}]\n`;
    const tls = (args: string) => {
      const d = collectWith(inline({ 'k8s/deployment.yaml': manifest(args) })).deployments[0]!;
      return { value: fact(d, 'tls.enabled'), why: d.sources['tls.enabled']?.[0]?.why };
    };
    expect(tls('--http-addr, ":8000", --tls-cert, /etc/tls/tls.crt, --tls-key, /etc/tls/tls.key')).toEqual({
      value: true,
      why: 'the server serves TLS itself (--tls-cert and its key)',
    });
    // A certificate without its key, or none, says nothing.
    expect(tls('--http-addr, ":8000", --tls-cert, /etc/tls/tls.crt').value).toBeUndefined();
    expect(tls('--http-addr, ":8000"').value).toBeUndefined();
  });

  it('with a certificate and its key in its environment, named for the server', () => {
    const env = (vars: string) =>
      collectWith(
        inline({
          'k8s/deployment.yaml': deploymentYaml('mcp-server', 'ghcr.io/acme/mcp-server:1.0.0', [
            'env:',
            ...vars.split(',').flatMap((v) => [`  - name: ${v}`, `    value: /etc/tls/${v.toLowerCase()}`]),
          ]),
        }),
      ).deployments[0]!;
    const d = env('MCP_TLS_CERT,MCP_TLS_KEY');
    expect(fact(d, 'tls.enabled')).toBe(true);
    expect(d.sources['tls.enabled']![0]!.why).toBe('the server serves TLS itself (MCP_TLS_CERT and its key in its environment)');
    // A client certificate to the database is none.
    expect(fact(env('POSTGRES_SSL_CERT,POSTGRES_SSL_KEY'), 'tls.enabled')).toBeUndefined();
  });

  it('a LoadBalancer on port 80 with no certificate for it is plain HTTP', () => {
    // CDataSoftware/cdata-sync-mcp-server's k8s/service.yaml: LoadBalancer port 80 to the http port.
    const manifest = (annotations: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp }\nspec:\n  selector: { matchLabels: { app: mcp } }\n  template:\n    metadata: { labels: { app: mcp } }\n    spec:\n      containers:\n        - { name: mcp, image: "ghcr.io/acme/mcp:1.0.0" }\n---\napiVersion: v1\nkind: Service\nmetadata: { name: mcp-external, annotations: { ${annotations} } }\nspec:\n  type: LoadBalancer\n  selector: { app: mcp }\n  ports:\n    - { name: http, port: 80, targetPort: 3000 }\n`;
    const d = collectWith(inline({ 'k8s/all.yaml': manifest('') })).deployments[0]!;
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]!.why).toBe(
      'Service mcp-external (LoadBalancer) takes clients on port 80, with no certificate for its load balancer: plain HTTP',
    );
    // The cloud's load balancer given a certificate may terminate TLS there: open.
    const aws = manifest('service.beta.kubernetes.io/aws-load-balancer-ssl-cert: "arn:aws:acm:…"');
    expect(fact(collectWith(inline({ 'k8s/all.yaml': aws })).deployments[0]!, 'tls.enabled')).toBeUndefined();
  });
});

describe("a pod's ServiceAccount", () => {
  it('is the one of its own namespace, cited where it is defined', () => {
    // GoogleCloudPlatform/kubectl-ai: k8s/kubectl-ai.yaml (no namespace) beside kubectl-ai-gke.yaml,
    // whose ServiceAccount of the same name lives in namespace kubectl-ai and mounts no token.
    const pod = (ns: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: kubectl-ai${ns} }\nspec:\n  selector: { matchLabels: { app: kubectl-ai } }\n  template:\n    metadata: { labels: { app: kubectl-ai } }\n    spec:\n      serviceAccountName: kubectl-ai\n      containers:\n        - { name: kubectl-ai, image: "ghcr.io/acme/mcp-kubectl:1.0.0" }\n`;
    // Read as one set: the other namespace's ServiceAccount first, then the pod's own.
    const manifest = `kind: ServiceAccount\napiVersion: v1\nmetadata:\n  name: kubectl-ai\n  namespace: kubectl-ai\nautomountServiceAccountToken: false\n---\n${pod('')}---\nkind: ServiceAccount\napiVersion: v1\nmetadata:\n  name: kubectl-ai\n`;
    const d = collectWith(inline({ 'k8s/all.yaml': manifest })).deployments[0]!;
    expect(fact(d, 'container.service_account_token_mounted')).toBe(true);
    expect(d.sources['container.service_account_token_mounted']![0]).toMatchObject({ file: 'k8s/all.yaml', line: 22 });
  });

  it('a projected token volume mounts one whatever automountServiceAccountToken says; a projected ConfigMap is no secret', () => {
    // giantswarm/mcp-kubernetes' chart: automountServiceAccountToken: false, then a projected serviceAccountToken volume.
    const pod = (sources: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp-kubernetes }\nspec:\n  selector: { matchLabels: { app: mcp } }\n  template:\n    metadata: { labels: { app: mcp } }\n    spec:\n      automountServiceAccountToken: false\n      containers:\n        - name: mcp-kubernetes\n          image: gsoci.azurecr.io/giantswarm/mcp-kubernetes:0.0.42\n          volumeMounts: [{ name: kube-api, mountPath: /var/run/secrets/kubernetes.io/serviceaccount }]\n      volumes:\n        - name: kube-api\n          projected:\n            sources:\n${sources}`;
    const token = collectWith(
      inline({
        'k8s/deployment.yaml': pod(
          '              - serviceAccountToken: { path: token, expirationSeconds: 3600 }\n              - configMap: { name: kube-root-ca.crt }\n',
        ),
      }),
    ).deployments[0]!;
    expect(fact(token, 'container.service_account_token_mounted')).toBe(true);
    expect(token.sources['container.service_account_token_mounted']![0]).toMatchObject({
      line: 15,
      why: 'volume kube-api projects a ServiceAccount token into the container',
    });
    expect(fact(token, 'container.secrets_source')).toBeUndefined();
    // A token for another audience (Vault's) is no API token: automountServiceAccountToken: false stands.
    const vault = collectWith(
      inline({ 'k8s/deployment.yaml': pod('              - serviceAccountToken: { path: token, audience: vault }\n') }),
    ).deployments[0]!;
    expect(fact(vault, 'container.service_account_token_mounted')).toBe(false);
    const configOnly = collectWith(inline({ 'k8s/deployment.yaml': pod('              - configMap: { name: settings }\n') }))
      .deployments[0]!;
    expect(fact(configOnly, 'container.service_account_token_mounted')).toBe(false);
  });
});

describe('manifests kept by kind in sibling directories', () => {
  // Bionic-AI-Solutions/open-search's k8s/deployments and k8s/services, applied together by deploy.sh.
  const deployment = (name: string, app: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  selector: { matchLabels: { app: ${app} } }\n  template:\n    metadata: { labels: { app: ${app} } }\n    spec:\n      containers:\n        - { name: ${name}, image: "example/${name}:1.0.0", ports: [{ containerPort: 8000 }] }\n`;
  const service = (name: string, app: string, type = 'LoadBalancer') =>
    `apiVersion: v1\nkind: Service\nmetadata: { name: ${name} }\nspec: { type: ${type}, selector: { app: ${app} }, ports: [{ port: 8000 }] }\n`;

  it('are one set where one directory holds what the other lacks: the Service that selects the workload', () => {
    const out = collectWith(
      inline({
        'k8s/deployments/mcp-server.yaml': deployment('mcp-server', 'mcp-server'),
        'k8s/services/mcp-server.yaml': service('mcp-server', 'mcp-server'),
      }),
    );
    const d = deploymentOf(out, 'Deployment/mcp-server');
    expect(fact(d, 'container.published_ports')).toBe('all_interfaces');
    expect(d.sources['container.published_ports']![0]).toMatchObject({ file: 'k8s/services/mcp-server.yaml' });
    expect(out.notes).toContainEqual({
      file: 'k8s/deployments',
      what: 'read with k8s/services as one set: Service mcp-server there selects Deployment mcp-server, which nothing here selects',
    });
  });

  it('stay apart where each directory is whole, or reading them together would define an object twice', () => {
    // deploy/dev and deploy/prod: each its own Deployment and Service of the same labels.
    const whole = collectWith(
      inline({
        'deploy/dev/all.yaml': `${deployment('mcp-dev', 'mcp')}---\n${service('mcp-dev', 'mcp', 'ClusterIP')}`,
        'deploy/prod/all.yaml': `${deployment('mcp-prod', 'mcp')}---\n${service('mcp-prod', 'mcp')}`,
      }),
    );
    expect(fact(deploymentOf(whole, 'Deployment/mcp-dev'), 'container.published_ports')).toBe('none');
    const twice = collectWith(
      inline({
        'a/deployment.yaml': deployment('mcp', 'mcp'),
        'b/all.yaml': `${deployment('mcp', 'mcp')}---\n${service('mcp', 'mcp')}`,
      }),
    );
    expect(fact(deploymentOf(twice, 'a/deployment.yaml:Deployment/mcp'), 'container.published_ports')).toBe('none');
  });

  it("a gateway's resource that names the Service's cluster address fronts it, in a form not read", () => {
    // lucchmielowski/agentgateway-kyverno-demo: manifests/gateway's kgateway Backend targets
    // mcp-website-fetcher.default.svc.cluster.local, the Service in manifests/mcp.
    const out = collectWith(
      inline({
        'manifests/mcp/url-fetcher.yaml': `${deployment('mcp-website-fetcher', 'mcp-website-fetcher')}---\n${service('mcp-website-fetcher', 'mcp-website-fetcher', 'ClusterIP')}`,
        'manifests/gateway/mcp-backend.yaml':
          'apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: { name: mcp, namespace: kgateway-system }\nspec:\n  type: MCP\n  mcp:\n    targets:\n      - name: website\n        static: { host: mcp-website-fetcher.default.svc.cluster.local, port: 80, protocol: SSE }\n',
      }),
    );
    const d = deploymentOf(out, 'Deployment/mcp-website-fetcher');
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBeUndefined();
    expect(d.reasons['exposure.behind_reverse_proxy']).toBe(
      "Backend mcp (manifests/gateway/mcp-backend.yaml) names the server's Service at mcp-website-fetcher.default.svc.cluster.local: a gateway whose resources are not read may front it",
    );
    // A Service written without a namespace is the one of any namespace it is applied in
    // (enzokamal/agentgateway-deployment's backend names mcp-hubspot-service.agentgateway-system.svc).
    const elsewhere = collectWith(
      inline({
        'manifests/mcp/url-fetcher.yaml': `${deployment('mcp-website-fetcher', 'mcp-website-fetcher')}---\n${service('mcp-website-fetcher', 'mcp-website-fetcher', 'ClusterIP')}`,
        'manifests/gateway/mcp-backend.yaml':
          'apiVersion: agentgateway.dev/v1alpha1\nkind: AgentgatewayBackend\nmetadata: { name: mcp }\nspec:\n  mcp:\n    targets:\n      - name: website\n        static: { host: mcp-website-fetcher.agentgateway-system.svc.cluster.local, port: 8000 }\n',
      }),
    );
    expect(fact(deploymentOf(elsewhere, 'Deployment/mcp-website-fetcher'), 'exposure.behind_reverse_proxy')).toBeUndefined();
  });
});

describe('a default-deny NetworkPolicy and no proxy in front', () => {
  // sainiteshGit/dotnet-mcp-k8s's deploy/base: `podSelector: {}`, `policyTypes: [Ingress, Egress]`, no rules.
  it('admits no source, and there is no proxy to restrict ingress to: the reason says that', () => {
    const d = collectWith(
      inline({
        'deploy/all.yaml': `${mcpDeployment('          ports: [{ containerPort: 8080 }]\n')}---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: default-deny }\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress]\n`,
      }),
    ).deployments[0]!;
    expect(fact(d, 'exposure.ingress_restricted_to_proxy')).toBe(false);
    expect(d.sources['exposure.ingress_restricted_to_proxy']![0]!.why).toBe(
      'no proxy workload or Ingress is in front: there is no proxy to restrict ingress to',
    );
  });
});

describe("a kustomization's patch that adds a variable to the base's container", () => {
  // sainiteshGit/dotnet-mcp-k8s's overlays/dev: mcp-allow-mutations-patch.yaml adds MCP_ALLOW_MUTATIONS.
  const files = {
    'deploy/base/deployment.yaml': mcpDeployment('          securityContext: { privileged: false }\n'),
    'deploy/base/kustomization.yaml': 'resources: [deployment.yaml]\n',
    'deploy/overlays/dev/kustomization.yaml': 'resources: [../../base]\npatches:\n  - path: mutations-patch.yaml\n',
    'deploy/overlays/dev/mutations-patch.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp-server }\nspec:\n  template:\n    spec:\n      containers:\n        - name: mcp-server\n          env: [{ name: MCP_ALLOW_MUTATIONS, value: "true" }]\n',
  };

  it('cites the base for what the base writes, and the patch only for what it sets', () => {
    const d = collectWith(inline(files)).deployments[0]!;
    expect(d.sources['container.privileged']![0]).toMatchObject({ file: 'deploy/base/deployment.yaml', line: 12 });
    // A fact from the container as a whole is the base's container, which the patch only adds to.
    expect(d.sources['container.docker_socket_mounted']![0]).toMatchObject({ file: 'deploy/base/deployment.yaml' });
  });
});

describe("a Kubernetes workload's transport", () => {
  const workload = (container: string, more = '') => `${mcpDeployment(container)}${more}`;
  const service = (targetPort: string) =>
    `---\napiVersion: v1\nkind: Service\nmetadata: { name: mcp-server }\nspec: { selector: { app: mcp-server }, ports: [{ port: 3000, targetPort: ${targetPort} }] }\n`;
  const transport = (text: string) => {
    const d = collectWith(inline({ 'k8s/all.yaml': text })).deployments[0]!;
    return fact(d, 'transport.kind') ?? `undecided: ${d.reasons['transport.kind']}`;
  };

  it('is what runs names, a port it declares or a Service reaches; with none, open', () => {
    // sapientpants/sonarqube-mcp-server: no ports ("stdio transport - no ports needed"), a Service whose
    // targetPort names a port no container declares.
    expect(transport(workload('          args: [node, dist/index.js]\n', service('http')))).toBe(
      'undecided: the container declares no port, no Service reaches a port of it, and what it runs names no transport: a stdio server (kubectl exec -i, attach) looks the same',
    );
    expect(transport(workload('          args: [--transport, stdio]\n', service('3000')))).toBe('stdio');
    expect(transport(workload('          env: [{ name: MCP_TRANSPORT, value: sse }]\n'))).toBe('http');
    expect(transport(workload('          ports: [{ name: http, containerPort: 3000 }]\n', service('http')))).toBe('http');
    expect(transport(workload('          args: [node, dist/index.js]\n', service('3000')))).toBe('http');
  });
});

describe("a kustomization's secretGenerator", () => {
  // aRustyDev/pcf-mcp's overlays/development: `literals: [pcf-api-key=dev-api-key]`.
  const files = (generator: string) => ({
    'k8s/deployment.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: pcf-mcp }\nspec:\n  selector: { matchLabels: { app: pcf-mcp } }\n  template:\n    metadata: { labels: { app: pcf-mcp } }\n    spec:\n      containers:\n        - name: pcf-mcp\n          image: ghcr.io/acme/pcf-mcp:1.0.0\n          env:\n            - name: PCF_API_KEY\n              valueFrom: { secretKeyRef: { name: pcf-secrets, key: pcf-api-key } }\n',
    'k8s/kustomization.yaml': `resources: [deployment.yaml]\nsecretGenerator:\n  - name: pcf-secrets\n${generator}`,
  });
  const source = (generator: string) => {
    const d = collectWith(inline(files(generator))).deployments[0]!;
    return { value: fact(d, 'container.secrets_source'), at: d.sources['container.secrets_source']?.[0] };
  };

  it('with literals writes the values in the kustomization; from files kept elsewhere, it does not', () => {
    expect(source('    literals:\n      - pcf-api-key=dev-api-key\n')).toEqual({
      value: 'manifest_plaintext',
      at: { file: 'k8s/kustomization.yaml', line: 4, why: 'Secret pcf-secrets has its values written in the manifest' },
    });
    expect(source('    files: [pcf-api-key=secrets/pcf-api-key.txt]\n').value).toBe('environment');
  });
});

describe('a Traefik IngressRoute in front', () => {
  // pnparadise/fetch-mcp-server's k8s/mcp-server.yaml: an IngressRoute on websecure with a tls section.
  const workload = [
    'apiVersion: v1',
    'kind: Service',
    'metadata: { name: mcp-server }',
    'spec: { selector: { app: mcp-server }, ports: [{ port: 3001 }] }',
    '---',
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: { name: mcp-server }',
    'spec:',
    '  selector: { matchLabels: { app: mcp-server } }',
    '  template:',
    '    metadata: { labels: { app: mcp-server } }',
    '    spec:',
    '      containers:',
    '        - name: mcp-server',
    '          image: ghcr.io/example/fetch-mcp:1.2.0',
    '          ports: [{ containerPort: 3001 }]',
    '---',
    '',
  ].join('\n');
  const route = (name: string, entryPoints: string, tls: string) =>
    `apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: { name: ${name} }\nspec:\n  entryPoints: [${entryPoints}]\n  routes:\n    - match: Host(\`mcp.example.com\`)\n      kind: Rule\n      services: [{ name: mcp-server, port: 3001 }]\n${tls}---\n`;
  const collect = (routes: string) => collectWith(inline({ 'k8s/mcp-server.yaml': workload + routes })).deployments[0]!;

  it('is a reverse proxy, serving TLS where it has a tls section', () => {
    const d = collect(route('mcp', 'websecure', '  tls: { secretName: mcp-tls }\n'));
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    // Cited where the IngressRoute starts, the third document of its file, not at line 1.
    expect(d.sources['exposure.behind_reverse_proxy']![0]).toMatchObject({
      line: 19,
      why: "IngressRoute mcp routes to the server through the cluster's ingress controller",
    });
    expect(fact(d, 'tls.enabled')).toBe(true);
    expect(d.sources['tls.enabled']![0]).toMatchObject({ line: 28 });
  });

  it("without one, the entry points' TLS is Traefik's static configuration: open", () => {
    const d = collect(route('mcp', 'websecure', ''));
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    expect(fact(d, 'tls.enabled')).toBeUndefined();
    expect(d.reasons['tls.enabled']).toBe(
      "IngressRoute mcp has no tls section: whether its entry points (websecure) serve TLS, or redirect plain HTTP, is in Traefik's static configuration, not in these files",
    );
  });

  it('the weakest route decides: a plain Ingress beside a TLS IngressRoute is a way in without TLS', () => {
    const plain =
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: { name: mcp-plain }\nspec:\n  rules:\n    - http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: mcp-server, port: { number: 3001 } } } }] }\n';
    const d = collect(route('mcp', 'websecure', '  tls: { secretName: mcp-tls }\n') + plain);
    expect(fact(d, 'tls.enabled')).toBe(false);
    expect(d.sources['tls.enabled']![0]!.why).toBe('the Ingress has no tls section');
  });
});

describe('workloads beside the MCP server', () => {
  const deployment = (name: string, image: string, extra = '', port = 8000) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  selector: { matchLabels: { app: ${name} } }\n  template:\n    metadata: { labels: { app: ${name} } }\n    spec:\n      containers:\n        - name: ${name}\n          image: ${image}\n          ports: [{ containerPort: ${port} }]\n${extra}---\napiVersion: v1\nkind: Service\nmetadata: { name: ${name} }\nspec: { selector: { app: ${name} }, ports: [{ port: ${port} }] }\n---\n`;

  it("one that replaces the MCP image's command with another program is no server: a note", () => {
    // datanexum/databridge-mcp's k8s/workers.yaml: Celery workers of the MCP server's image.
    const out = collectWith(
      inline({
        'k8s/all.yaml':
          deployment('databridge-mcp', 'ghcr.io/datanexum/databridge-mcp:latest') +
          deployment(
            'worker-general',
            'ghcr.io/datanexum/databridge-mcp:latest',
            '          command: ["celery", "-A", "src.task_queue.celery_app", "worker"]\n',
          ),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/all.yaml:Deployment/databridge-mcp']);
    expect(out.notes).toContainEqual({
      file: 'k8s/all.yaml',
      what: 'Deployment worker-general runs another program (its command) from the image Deployment databridge-mcp serves MCP from: not read as a server; name it with --server if it serves MCP',
    });
    // Named for MCP, or running an MCP command, it stays a server of its own.
    const own = collectWith(
      inline({
        'k8s/all.yaml':
          deployment('databridge-mcp', 'ghcr.io/datanexum/databridge-mcp:latest') +
          deployment(
            'worker-general',
            'ghcr.io/datanexum/databridge-mcp:latest',
            '          command: ["python", "run_mcp.py", "--stdio"]\n',
          ),
      }),
    );
    expect(own.deployments).toHaveLength(2);
  });

  it("an Ingress's MCP host names the backend it sends there, not another of its rules", () => {
    // datanexum/databridge-mcp's k8s/ingress.yaml: mcp.databridge.example.com to the server, databridge.example.com to the dashboard.
    const ingress =
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: { name: databridge }\nspec:\n  rules:\n    - host: databridge.example.com\n      http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: databridge-dashboard, port: { number: 5050 } } } }] }\n    - host: mcp.databridge.example.com\n      http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: databridge-server, port: { number: 786 } } } }] }\n';
    const out = collectWith(
      inline({
        'k8s/all.yaml':
          deployment('databridge-dashboard', 'ghcr.io/datanexum/databridge-ai:latest', '', 5050) +
          deployment('databridge-server', 'ghcr.io/datanexum/databridge:latest', '', 786) +
          ingress,
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/all.yaml:Deployment/databridge-server']);
  });
});

describe('ingress-nginx CORS', () => {
  // yskale/redis_mcp_server's k8s/ingress.yaml: enable-cors with no cors-allow-origin, which ingress-nginx answers with *.
  const files = (annotations: string) => ({
    'k8s/all.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: { name: redis-mcp-server }',
      'spec:',
      '  selector: { matchLabels: { app: redis-mcp } }',
      '  template:',
      '    metadata: { labels: { app: redis-mcp } }',
      '    spec:',
      '      containers: [{ name: server, image: ghcr.io/yskale/redis-mcp-server:1.0.0, ports: [{ containerPort: 8000 }] }]',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: { name: redis-mcp-server }',
      'spec: { selector: { app: redis-mcp }, ports: [{ port: 8000 }] }',
      '---',
      'apiVersion: networking.k8s.io/v1',
      'kind: Ingress',
      'metadata:',
      '  name: mcp',
      '  annotations:',
      annotations,
      'spec:',
      '  rules:',
      '    - http: { paths: [{ path: /sse, pathType: Prefix, backend: { service: { name: redis-mcp-server, port: { number: 8000 } } } }] }',
      '',
    ].join('\n'),
  });

  it('enable-cors without an origin list allows any origin; with one it says nothing of the server', () => {
    const any = collectWith(inline(files('    nginx.ingress.kubernetes.io/enable-cors: "true"'))).deployments[0]!;
    expect(fact(any, 'http.cors_allow_any_origin')).toBe(true);
    expect(any.sources['http.cors_allow_any_origin']![0]).toMatchObject({
      line: 21,
      why: 'Ingress mcp: enable-cors with no cors-allow-origin (ingress-nginx answers *)',
    });
    const listed = collectWith(
      inline(
        files(
          '    nginx.ingress.kubernetes.io/enable-cors: "true"\n    nginx.ingress.kubernetes.io/cors-allow-origin: "https://app.example.com"',
        ),
      ),
    ).deployments[0]!;
    expect(fact(listed, 'http.cors_allow_any_origin')).toBeUndefined();
  });
});

describe("a pod's own listen flag", () => {
  it('--host 127.0.0.1 listens on loopback only; with hostNetwork, 0.0.0.0 is a host port on every interface', () => {
    const pod = (spec: string, args: string) =>
      collectWith(
        inline({
          'k8s/deployment.yaml': `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: mcp }\nspec:\n  selector: { matchLabels: { app: mcp } }\n  template:\n    metadata: { labels: { app: mcp } }\n    spec:\n${spec}      containers:\n        - name: mcp\n          image: ghcr.io/acme/mcp-server:1.0.0\n          args: ${args}\n          ports: [{ containerPort: 8000 }]\n`,
        }),
      ).deployments[0]!;
    expect(fact(pod('', '["--host", "127.0.0.1", "--port", "8000"]'), 'exposure.bind_address_class')).toBe('loopback');
    const host = pod('      hostNetwork: true\n', '["--host=0.0.0.0", "--port", "8000"]');
    expect(fact(host, 'container.published_ports')).toBe('all_interfaces');
    expect(host.sources['container.published_ports']![0]!.why).toBe('hostNetwork and --host 0.0.0.0: a host port on every interface');
  });
});

describe('an OpenShift BuildConfig', () => {
  it('ties the image a Deployment runs to the Dockerfile it builds from', () => {
    // rdwj/mcp-server-template's openshift.yaml: a BuildConfig builds ImageStreamTag mcp-server:latest
    // from Containerfile (USER 1001); the Deployment runs image mcp-server:latest.
    const manifest = [
      'apiVersion: build.openshift.io/v1',
      'kind: BuildConfig',
      'metadata: { name: mcp-server }',
      'spec:',
      '  source: { type: Binary }',
      '  strategy: { type: Docker, dockerStrategy: { dockerfilePath: Containerfile } }',
      '  output: { to: { kind: ImageStreamTag, name: "mcp-server:latest" } }',
      '---',
      deploymentYaml('mcp-server', 'image-registry.openshift-image-registry.svc:5000/demo/mcp-server:latest'),
    ].join('\n');
    const out = collectWith(
      inline({
        'openshift.yaml': manifest,
        Containerfile:
          'FROM registry.access.redhat.com/ubi9/python-311\nRUN pip install fastmcp==2.12.0\nCOPY . .\nUSER 1001\nCMD ["python", "server.py"]\n',
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:openshift.yaml:Deployment/mcp-server']);
    const d = out.deployments[0]!;
    expect(fact(d, 'container.runs_as_root')).toBe(false);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'Containerfile', line: 4 });
  });
});

describe('an OpenShift Template', () => {
  // redhat-ai-tools/rosa-mcp-server's openshift/template.yaml, deployed with `oc process -f … | oc apply -f -`.
  const template = [
    'apiVersion: template.openshift.io/v1',
    'kind: Template',
    'metadata: { name: foo-mcp }',
    'parameters:',
    '  - { name: IMAGE, value: quay.io/acme/foo-mcp }',
    '  - { name: IMAGE_TAG, value: "1.2.0" }',
    '  - { name: SLACK_TOKEN, required: true }',
    'objects:',
    '- apiVersion: apps/v1',
    '  kind: Deployment',
    '  metadata: { name: foo-mcp }',
    '  spec:',
    '    selector: { matchLabels: { app: foo-mcp } }',
    '    template:',
    '      metadata: { labels: { app: foo-mcp } }',
    '      spec:',
    '        containers:',
    '        - name: foo-mcp',
    '          image: ${IMAGE}:${IMAGE_TAG}',
    '          ports: [{ containerPort: 8080 }]',
    '          env:',
    '          - { name: SLACK_TOKEN, value: "${SLACK_TOKEN}" }',
    '- apiVersion: v1',
    '  kind: Service',
    '  metadata: { name: foo-mcp }',
    '  spec: { selector: { app: foo-mcp }, ports: [{ port: 8080, targetPort: 8080 }] }',
    '- apiVersion: route.openshift.io/v1',
    '  kind: Route',
    '  metadata:',
    '    name: foo-mcp',
    '    annotations: { cert-manager.io/issuer-kind: ClusterIssuer, cert-manager.io/issuer-name: "${ISSUER}" }',
    '  spec:',
    '    to: { kind: Service, name: foo-mcp }',
    '    tls: { termination: edge, insecureEdgeTerminationPolicy: Redirect }',
    '',
  ].join('\n');

  it('is read for its objects, each parameter its written default, one without a default left open', () => {
    const out = collectWith(inline({ 'openshift/template.yaml': template }));
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:openshift/template.yaml:Deployment/foo-mcp']);
    const d = out.deployments[0]!;
    expect(fact(d, 'supply_chain.deployed_release')).toBe('exact_version');
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({ file: 'openshift/template.yaml', line: 19 });
    expect(fact(d, 'tls.enabled')).toBe(true);
    // cert-manager's OpenShift Routes support issues and renews the edge certificate (redhat-ai-tools/ocm-mcp).
    expect(fact(d, 'tls.certificate_auto_renewal')).toBe(true);
    expect(fact(d, 'exposure.behind_reverse_proxy')).toBe(true);
    // SLACK_TOKEN is given to `oc process`: where its value is kept is not in the files.
    expect(fact(d, 'container.secrets_source')).toBeUndefined();
  });

  it('is a set of its own: plain manifests beside it, applied with kubectl, get none of its objects', () => {
    // anastasds/openshift-mcp: slack.yaml (Deployment and Service in namespace opendatahub) beside slack_template.yaml.
    const plain = deploymentYaml('foo-mcp', 'quay.io/acme/foo-mcp:1.2.0').replace(
      'metadata:\n  name: foo-mcp',
      'metadata:\n  name: foo-mcp\n  namespace: opendatahub',
    );
    const out = collectWith(inline({ 'openshift/template.yaml': template, 'openshift/plain.yaml': plain }));
    expect(out.deployments.map((d) => d.name)).toEqual([
      'kubernetes:openshift/plain.yaml:Deployment/foo-mcp',
      'kubernetes:openshift/template.yaml:Deployment/foo-mcp',
    ]);
    expect(fact(deploymentOf(out, 'plain.yaml:Deployment/foo-mcp'), 'exposure.behind_reverse_proxy')).not.toBe(true);
    expect(fact(deploymentOf(out, 'template.yaml:Deployment/foo-mcp'), 'exposure.behind_reverse_proxy')).toBe(true);
  });
});

describe('an image a deploy step fills in', () => {
  const release = (image: string) => {
    const d = collectWith(inline({ 'k8s/deployment.yaml': deploymentYaml('mcp-server', image) })).deployments[0]!;
    return [
      fact(d, 'container.image_pinned_by_digest') ?? 'undecided',
      fact(d, 'supply_chain.deployed_release') ?? `undecided: ${d.reasons['supply_chain.deployed_release']}`,
    ];
  };

  it('a variable or a placeholder tag names no release', () => {
    // meetpatel1111/k8s-mcp-infra's `image: ${MCP_IMAGE}`, filled in by envsubst in its workflow.
    expect(release('${MCP_IMAGE}')).toEqual([
      'undecided',
      'undecided: image ${MCP_IMAGE} is a variable a deploy step fills in: what it names is not in the files',
    ]);
    // wontaeJeong/mcp-platform-gitops' `newTag: REPLACE_WITH_GIT_SHA`, set to each commit by CI.
    expect(release('ghcr.io/acme/mcp-server:REPLACE_WITH_GIT_SHA')).toEqual([
      false,
      'undecided: image ghcr.io/acme/mcp-server:REPLACE_WITH_GIT_SHA is a placeholder a deploy step fills in: what it names is not in the files',
    ]);
    expect(release('ghcr.io/acme/mcp-server:1.4.2')).toEqual([false, 'exact_version']);
  });
});

describe('which container of a pod is the server', () => {
  const pod = (containers: string) =>
    collectWith(
      inline({
        'chat.yaml': `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: chat }\nspec:\n  selector: { matchLabels: { app: chat } }\n  template:\n    metadata: { labels: { app: chat } }\n    spec:\n      containers:\n${containers}`,
      }),
    );
  const ui = '        - name: ui\n          image: localhost/ui:latest\n          ports: [{ containerPort: 8080 }]\n';
  const mcp =
    '        - name: assisted-service-mcp\n          image: localhost/assisted-service-mcp:latest\n          env:\n            - name: TRANSPORT\n              value: streamable-http\n';

  it('the one container named for MCP, wherever it stands', () => {
    // rh-ecosystem-edge/assisted-chat's pod: lightspeed-stack first, assisted-service-mcp later.
    for (const containers of [ui + mcp, mcp + ui]) {
      const d = deploymentOf(pod(containers), 'chat.yaml:Deployment/chat');
      expect(fact(d, 'transport.kind')).toBe('http');
      expect(d.sources['transport.kind']![0]).toMatchObject({
        line: containers.split('\n').findIndex((l) => l.includes('name: TRANSPORT')) + 10,
      });
    }
    // Two named for MCP: the first, as before (its port decides the transport).
    const two = deploymentOf(pod(ui.replace('name: ui', 'name: mcp-ui-server') + mcp), 'chat.yaml:Deployment/chat');
    expect(two.sources['transport.kind']![0]!.why).toMatch(/8080/);
  });

  it('the MCP Inspector is a client, by its name or its image: a note, no server', () => {
    // rh-ecosystem-edge/assisted-chat's resources/local-dev-components.yaml: mcp-inspector on 6274 and 6277.
    const out = collectWith(
      inline({
        'k8s/inspector.yaml': deploymentYaml('mcp-inspector', 'quay.io/acme/inspector:latest'),
        'k8s/other.yaml': deploymentYaml('debugger', 'ghcr.io/acme/mcp/inspector:0.16.0').replace(/debugger/g, 'dbg'),
        'k8s/server.yaml': deploymentYaml('mcp-server', 'ghcr.io/acme/mcp-server:1.0.0'),
      }),
    );
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/server.yaml:Deployment/mcp-server']);
    expect(out.notes.map((n) => n.what)).toContain(
      'Deployment mcp-inspector runs the MCP Inspector, a client that debugs servers: not read as a server',
    );
    // Named with --server, it is read as one.
    const named = collectWith(inline({ 'k8s/inspector.yaml': deploymentYaml('mcp-inspector', 'quay.io/acme/inspector:latest') }), {
      servers: ['mcp-inspector'],
    });
    expect(named.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/inspector.yaml:Deployment/mcp-inspector']);
  });
});

describe('a port for health only', () => {
  it('is no MCP endpoint: the transport stays open, unless a Service reaches another port', () => {
    // Tributary-ai-services/tas-mcp's postgres-mcp-deployment.yaml: `health-http` on 3401 beside a stdio server.
    const manifest = (service: string) =>
      collectWith(
        inline({
          'k8s/postgres-mcp.yaml': `${deploymentYaml('postgres-mcp', 'ghcr.io/acme/postgres-mcp:1.0.0', [
            'ports:',
            '  - { containerPort: 3401, name: health-http }',
          ])}${service}`,
        }),
      ).deployments[0]!;
    const d = manifest('');
    expect(fact(d, 'transport.kind')).toBeUndefined();
    expect(d.reasons['transport.kind']).toBe(
      'the container declares only ports for health or metrics (health-http), and what it runs names no transport: whether it serves MCP on the network is in its code',
    );
    const svc = (port: number) =>
      `---\napiVersion: v1\nkind: Service\nmetadata: { name: postgres-mcp }\nspec:\n  type: NodePort\n  selector: { app: postgres-mcp }\n  ports:\n    - { port: ${port}, targetPort: ${port} }\n`;
    expect(fact(manifest(svc(3401)), 'transport.kind')).toBeUndefined();
    expect(fact(manifest(svc(8080)), 'transport.kind')).toBe('http');
  });

  it('so is a port a variable named for health sets, whatever the port is called', () => {
    // Tributary-ai-services/tas-mcp's napkin-mcp: port `http` 8087, `HEALTH_PORT: "8087"` from its ConfigMap.
    const manifest = (env: string) =>
      collectWith(
        inline({
          'k8s/napkin.yaml': `${deploymentYaml('napkin-mcp', 'ghcr.io/acme/napkin-mcp:1.0.0', [
            'ports:',
            '  - { containerPort: 8087, name: http }',
            'envFrom:',
            '  - configMapRef: { name: napkin-config }',
          ])}---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: napkin-config }\ndata:\n${env}`,
        }),
      ).deployments[0]!;
    const d = manifest('  HEALTH_PORT: "8087"\n');
    expect(fact(d, 'transport.kind')).toBeUndefined();
    expect(d.reasons['transport.kind']).toMatch(/^the container declares only ports for health or metrics \(8087, its HEALTH_PORT\)/);
    // The same port set for the server too serves it.
    expect(fact(manifest('  HEALTH_PORT: "8087"\n  PORT: "8087"\n'), 'transport.kind')).toBe('http');
    expect(fact(manifest('  LOG_LEVEL: info\n'), 'transport.kind')).toBe('http');
  });
});

describe("a listen address from the container's environment", () => {
  it('is read from the pod env or the image ENV; open where neither fixes it', () => {
    // guolisen/mcp_k8s_server: `--host "$HOST"` in the image's CMD, HOST=0.0.0.0 in the Deployment's env.
    const pod = (env: string[], imageEnv = '') =>
      collectWith(
        inline({
          'k8s/mcp.yaml': deploymentYaml('mcp-k8s-server', 'ghcr.io/acme/mcp-k8s-server:1.0.0', [
            'ports: [{ containerPort: 8000 }]',
            ...env,
          ]),
          'mcp-k8s-server/Dockerfile': `FROM python:3.12-slim\nRUN pip install mcp==1.20.0\n${imageEnv}USER 1000\nCMD uvicorn app:app --host $HOST --port 8000\n`,
        }),
      ).deployments[0]!;
    expect(fact(pod(['env:', '  - { name: HOST, value: "127.0.0.1" }']), 'exposure.bind_address_class')).toBe('loopback');
    expect(fact(pod(['env:', '  - { name: HOST, value: "0.0.0.0" }']), 'exposure.bind_address_class')).toBe('private');
    expect(fact(pod([], 'ENV HOST=127.0.0.1\n'), 'exposure.bind_address_class')).toBe('loopback');
    expect(pod([]).reasons['exposure.bind_address_class']).toBe(
      '--host $HOST: the address it listens on comes from a variable the files do not fix',
    );
  });
});

describe('an image a build script among the files tags', () => {
  it('is that build: its Dockerfile decides, as a directory named like the image does', () => {
    // maneeshanif/todo-spec-driven: start-all.sh builds todo-mcp-server:latest from backend/Dockerfile.mcp, imagePullPolicy Never.
    const out = (script: string) =>
      collectWith(
        inline({
          'k8s/mcp.yaml': deploymentYaml('todo-mcp-server', 'todo-mcp-server:latest', [
            'imagePullPolicy: Never',
            'ports: [{ containerPort: 8001 }]',
          ]),
          'scripts/local-dev/start-all.sh': `#!/bin/bash\nset -e\n${script}\n`,
          'backend/Dockerfile.mcp':
            'FROM python:3.12-slim\nCOPY pyproject.toml uv.lock ./\nRUN pip install uv && uv sync --frozen\nUSER appuser\nCMD ["uv", "run", "--frozen", "python", "-m", "mcp_server"]\n',
          'backend/pyproject.toml': '[project]\nname = "todo-backend"\ndependencies = ["mcp==1.20.0"]\n',
          'backend/uv.lock': 'version = 1\n',
        }),
      ).deployments.find((d) => d.name.startsWith('kubernetes:'))!;
    const d = out('docker build -f backend/Dockerfile.mcp -t todo-mcp-server:latest backend');
    expect([fact(d, 'supply_chain.builds_server'), fact(d, 'container.runs_as_root')]).toEqual([true, false]);
    expect(d.sources['container.runs_as_root']![0]).toMatchObject({ file: 'backend/Dockerfile.mcp', line: 4 });
    // Another tag is another image.
    expect(fact(out('docker build -f backend/Dockerfile.mcp -t todo-api:latest backend'), 'container.runs_as_root')).toBeUndefined();
  });
});

describe("a NetworkPolicy that admits only the cluster's ingress controller", () => {
  it('restricts ingress to that proxy, in front though its Ingress is kept elsewhere', () => {
    // MikkoParkkola/mcp-gateway's enterprise-alpha/base/networkpolicy.yaml: namespace ingress-nginx on 39400.
    const policy = (from: string) =>
      collectWith(
        inline({
          'k8s/all.yaml': `${deploymentYaml('mcp-gateway', 'ghcr.io/acme/mcp-gateway:1.0.0', ['ports: [{ containerPort: 39400 }]'])}---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: mcp-gateway }\nspec:\n  podSelector: { matchLabels: { app: mcp-gateway } }\n  policyTypes: [Ingress]\n  ingress:\n    - from:\n        - ${from}\n      ports: [{ port: 39400 }]\n`,
        }),
      ).deployments[0]!;
    const d = policy('namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: ingress-nginx } }');
    expect([fact(d, 'exposure.ingress_restricted_to_proxy'), fact(d, 'exposure.behind_reverse_proxy')]).toEqual([true, true]);
    expect(d.sources['exposure.behind_reverse_proxy']![0]).toMatchObject({ file: 'k8s/all.yaml', line: 20 });
    // Any other namespace is no proxy.
    const other = policy('namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: agents } }');
    expect([fact(other, 'exposure.ingress_restricted_to_proxy'), fact(other, 'exposure.behind_reverse_proxy')]).toEqual([false, false]);
  });
});

describe('a gateway that finds its backends by a label', () => {
  it('may front a server that carries it: not "nothing in front"', () => {
    // actual-software/mcp-bridge: the gateway's ConfigMap selects `mcp.bridge/enabled: "true"`, the
    // label deployment/kubernetes/mcp-servers/k8s-tools-deployment.yaml's Service carries.
    const server = (label: string) =>
      `${deploymentYaml('k8s-tools', 'ghcr.io/acme/mcp-k8s-tools:1.0.0', ['ports:', '  - { containerPort: 9000, name: mcp }'])}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: mcp-k8s-tools\n  labels:\n    ${label}\nspec:\n  selector: { app: k8s-tools }\n  ports:\n    - { port: 9000, targetPort: 9000 }\n`;
    const gateway =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: gateway-config }\ndata:\n  gateway.yaml: |\n    service_discovery:\n      mode: kubernetes\n      label_selector:\n        mcp.bridge/enabled: "true"\n';
    const d = (label: string) =>
      collectWith(inline({ 'servers/k8s-tools.yaml': server(label), 'gateway/configmap.yaml': gateway })).deployments.find((x) =>
        x.name.includes('k8s-tools'),
      )!;
    const found = d('mcp.bridge/enabled: "true"');
    expect(fact(found, 'exposure.behind_reverse_proxy')).toBeUndefined();
    expect(found.reasons['exposure.behind_reverse_proxy']).toBe(
      'the server carries the label mcp.bridge/enabled, which gateway/configmap.yaml:9 names: a gateway that finds its backends by that label may front it',
    );
    // A common label selects anything: no gateway is read into it.
    expect(fact(d('app.kubernetes.io/part-of: tools'), 'exposure.behind_reverse_proxy')).toBe(false);
  });
});

describe("egress to the clouds' metadata services", () => {
  const reach = (egress: string) => {
    const d = collectWith(
      inline({
        'k8s/all.yaml': `${deploymentYaml('mcp-server', 'ghcr.io/acme/mcp-server:1.0.0')}---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: egress }\nspec:\n  podSelector: { matchLabels: { app: mcp-server } }\n  policyTypes: [Egress]\n  egress:\n${egress}`,
      }),
    ).deployments[0]!;
    return { value: fact(d, 'egress.cloud_metadata_credentials_reachable'), why: d.reasons['egress.cloud_metadata_credentials_reachable'] };
  };

  it('an address block that leaves them out reaches none; one that holds one may', () => {
    // gpadidala/grafana-mcp's k8s/base/networkpolicy.yaml: 0.0.0.0/0 except 169.254.0.0/16.
    const except = (list: string) => `    - to:\n        - ipBlock: { cidr: 0.0.0.0/0, except: [${list}] }\n`;
    expect(reach(except('169.254.0.0/16, 100.100.100.200/32')).value).toBe(false);
    expect(reach('    - to:\n        - ipBlock: { cidr: 10.0.0.0/8 }\n').value).toBe(false);
    expect(reach(except('169.254.0.0/16'))).toEqual({
      value: undefined,
      why: 'egress allows 0.0.0.0/0, which holds 100.100.100.200; whether a metadata service answers depends on the cluster',
    });
    expect(reach(except('10.0.0.0/8')).why).toMatch(/holds 169\.254\.169\.254/);
    expect(reach('    - to:\n        - ipBlock: { cidr: "::/0" }\n').why).toMatch(/holds fd00:ec2::254/);
    expect(reach('    - to:\n        - ipBlock: { cidr: not-a-block }\n').why).toBe(
      'egress allows not-a-block, not read as an address block',
    );
    // A rule without `to` reaches every address.
    expect(reach('    - ports: [{ port: 443 }]\n').why).toBe(
      'egress reaches any address; whether a metadata service answers depends on the cluster',
    );
  });
});

describe("a workload that mounts a client's list of MCP servers", () => {
  it('is their client where its image holds an MCP SDK only: a note', () => {
    // cfchase/text-to-image-demo's chatbot backend: FastAPI with a fastmcp Client, mcp-config.json from a ConfigMap.
    const backend = (config: string) =>
      collectWith(
        inline({
          'k8s/backend.yaml': `${deploymentYaml('backend', 'quay.io/acme/backend:latest', [
            'ports: [{ containerPort: 8000 }]',
            'volumeMounts:',
            '  - { name: mcp-config, mountPath: /app/mcp-config.json, subPath: mcp-config.json }',
          ])}      volumes:\n        - name: mcp-config\n          configMap: { name: mcp-config }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: mcp-config }\ndata:\n  mcp-config.json: '${config}'\n`,
          'backend/Dockerfile':
            'FROM python:3.12-slim\nCOPY pyproject.toml uv.lock ./\nRUN pip install uv && uv sync --frozen\nCMD ["uvicorn", "app.main:app"]\n',
          'backend/pyproject.toml': '[project]\nname = "backend"\ndependencies = ["fastapi", "fastmcp>=2"]\n',
        }),
      );
    const out = backend('{"mcpServers": {"image-gen": {"url": "http://image-gen:8080/mcp"}}}');
    expect(out.deployments.filter((d) => d.name.startsWith('kubernetes:'))).toEqual([]);
    expect(out.notes.map((n) => n.what)).toContain(
      "Deployment backend mounts ConfigMap mcp-config, a client's list of MCP servers (mcpServers), and its image holds an MCP SDK only: a client of those servers, not read as one; name it with --server if it serves MCP",
    );
    // Another configuration is no such sign.
    expect(backend('{"logLevel": "info"}').deployments.filter((d) => d.name.startsWith('kubernetes:'))).toHaveLength(1);
  });
});

describe("a workload given another MCP server's address", () => {
  it('is its client, whatever `mcp` its name holds: a note', () => {
    // Tributary-ai-services/tas-mcp's examples/triggers/python/sensor.yaml: a FastAPI trigger handler.
    const handler = (value: string) =>
      collectWith(
        inline({
          'k8s/triggers.yaml': deploymentYaml('tas-mcp-python-triggers', 'tas-mcp/python-triggers:latest', [
            'ports: [{ containerPort: 8080 }]',
            'env:',
            '  - name: MCP_GRPC_ENDPOINT',
            `    value: "${value}"`,
          ]),
          'k8s/server.yaml': deploymentYaml('tas-mcp', 'ghcr.io/acme/tas-mcp:1.0.0'),
        }),
      );
    const out = handler('tas-mcp-service:50051');
    expect(out.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/server.yaml:Deployment/tas-mcp']);
    expect(out.notes.map((n) => n.what)).toContain(
      "Deployment tas-mcp-python-triggers is given an MCP server's address to call (MCP_GRPC_ENDPOINT=tas-mcp-service:50051): a client of that server, not read as one; name it with --server if it serves MCP",
    );
    expect(handler('http://tas-mcp.mcp.svc.cluster.local:8080/mcp').deployments).toHaveLength(1);
    // Its own public address, or a bind address, is none to call.
    expect(handler('https://mcp.example.com/mcp').deployments).toHaveLength(2);
    expect(handler('0.0.0.0').deployments).toHaveLength(2);
    // A gateway is given its backends' addresses and serves MCP itself (TheLukasHenry/proxy-server's mcp-proxy).
    const gateway = collectWith(
      inline({
        'k8s/mcp-proxy.yaml': deploymentYaml('mcp-proxy', 'mcp-proxy:local', [
          'ports: [{ containerPort: 8001, name: http-mcp }]',
          'env:',
          '  - name: MCP_FILESYSTEM_URL',
          '    value: "http://mcp-filesystem:8001"',
        ]),
      }),
    );
    expect(gateway.deployments.map((d) => d.name)).toEqual(['kubernetes:k8s/mcp-proxy.yaml:Deployment/mcp-proxy']);
  });
});

describe('a route of an MCP route names its kind', () => {
  it('an OpenShift Route or an HTTPRoute, as written', () => {
    const why = (route: string) =>
      collectWith(
        inline({
          'k8s/all.yaml': `${deploymentYaml('backend', 'ghcr.io/acme/backend:1.0.0')}---\napiVersion: v1\nkind: Service\nmetadata: { name: backend }\nspec:\n  selector: { app: backend }\n  ports: [{ port: 8080 }]\n---\n${route}`,
        }),
      ).deployments[0]!.sources['container.used']![0]!.why;
    expect(
      why('apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: { name: mcp }\nspec:\n  to: { kind: Service, name: backend }\n'),
    ).toBe('Deployment backend (a Route of an MCP route routes to it)');
    expect(
      why(
        'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: { name: mcp }\nspec:\n  rules:\n    - backendRefs: [{ name: backend, port: 8080 }]\n',
      ),
    ).toBe('Deployment backend (an HTTPRoute of an MCP route routes to it)');
  });
});

describe('a credential by its shape under any name', () => {
  it('is written in the manifest or the compose file', () => {
    // kagenti/mcp-gateway's config/test-servers/api-key-server-deployment.yaml: EXPECTED_AUTH.
    const k8s = (value: string) =>
      fact(
        collectWith(
          inline({
            'k8s/api-key-server.yaml': deploymentYaml('mcp-server', 'ghcr.io/acme/mcp-server:1.0.0', [
              'env:',
              '  - name: EXPECTED_AUTH',
              `    value: "${value}"`,
            ]),
          }),
        ).deployments[0]!,
        'container.secrets_source',
      );
    expect(k8s('Bearer test-api-key-secret-token')).toBe('manifest_plaintext');
    expect(k8s('Bearer <your-token>')).not.toBe('manifest_plaintext');
    const compose = (value: string) =>
      fact(
        collectWith(
          inline({
            'compose.yaml': `services:\n  mcp:\n    build: .\n    environment:\n      EXPECTED_AUTH: "${value}"\n`,
            Dockerfile: 'FROM node:22-slim\nCOPY . .\nCMD ["node", "mcp-server.js"]\n',
          }),
        ).deployments[0]!,
        'container.secrets_source',
      );
    expect(compose('Bearer test-api-key-secret-token')).toBe('manifest_plaintext');
    expect(compose('Bearer your-token-here')).not.toBe('manifest_plaintext');
  });
});
