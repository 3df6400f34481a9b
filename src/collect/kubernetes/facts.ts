// The deployments a set of Kubernetes objects describes: which workload is the MCP server,
// what is in front of it (a proxy workload, an Ingress), and the facts its pod spec, Services,
// NetworkPolicies, ServiceAccount, Secrets and ConfigMaps decide.
import { posix } from 'node:path';
import { literal } from '../../shared/regexp.js';
import { dockerfileFacts, imageFacts, privilegeDrop } from '../build-facts.js';
import { type Context, render } from '../context.js';
import { CNI_HOP, HOST_NETWORK, imageMayHoldSecrets } from '../docker-defaults.js';
import type { DockerfileInfo } from '../dockerfile.js';
import { scriptCommand } from '../entrypoint-script.js';
import { dirOf } from '../inputs.js';
import { NginxConfig } from '../nginx.js';
import { nginxFacts } from '../nginx-facts.js';
import { contextOfDockerfile, manifestsOfBuild, mcpEvidenceOfBuild } from '../packages.js';
import { type EnvValue, isReferenceProxy, recogniseSignet, signetFacts } from '../profiles/signet.js';
import { builtRole, imageRole, namesMcpRoute, type Role, repository, runsAuthenticator } from '../roles.js';
import { passwordInUrl, SECRET_NAME, saysNoSecret, worstSecrets } from '../secrets.js';
import { legacySse, tlsFlags, tlsVerification } from '../server-args.js';
import { type At, FactSheet } from '../sheet.js';
import { getPath, isKnative, type K8sObject, type K8sSet, KUSTOMIZE_HASH, podSpecPath } from './load.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

interface Workload {
  o: K8sObject;
  spec: (string | number)[];
  pod: Obj;
  labels: Obj;
  main: { c: Obj; path: (string | number)[] };
  role: Role;
  dockerfile: DockerfileInfo | null;
}

/** The Dockerfile in the inputs that builds `image`: a directory named like the image, or the package of that name. */

/**
 * The part of an image reference that names the program: a `ko://` reference is a Go package path
 * (`ko://github.com/Cali0707/AutoMCP/demo`), whose host, owner and repository name the project, not it.
 */
const programOf = (image: string): string => (image.startsWith('ko://') ? image.replace(/^ko:\/\/([^/]+\/){3}/, '') : image);
function dockerfileFor(ctx: Context, image: string): DockerfileInfo | null {
  const base = posix.basename(repository(image));
  const dfs = ctx.inputs.all().filter((f) => ctx.kinds.get(f.path) === 'dockerfile');
  for (const f of dfs) {
    const dir = dirOf(f.path);
    const dirName = posix.basename(dir);
    const pkg = ctx.inputs.get(dir ? `${dir}/package.json` : 'package.json');
    let pkgName = '';
    try {
      pkgName = pkg ? String((JSON.parse(pkg.text) as Obj)['name'] ?? '') : '';
    } catch {
      pkgName = '';
    }
    if ((dirName && (dirName === base || base.endsWith(`-${dirName}`))) || (pkgName && pkgName.split('/').pop() === base))
      return ctx.dockerfile(f.path);
  }
  return null;
}

function workloads(ctx: Context, set: K8sSet): Workload[] {
  const out: Workload[] = [];
  for (const o of set.objects) {
    const spec = podSpecPath(o);
    if (!spec || o.kind === 'Job' || o.kind === 'CronJob') continue;
    // A Helm test hook runs only on `helm test`, never as part of the release.
    if (/(^|,)\s*test(-success)?\s*(,|$)/.test(String(getPath(o.value, ['metadata', 'annotations', 'helm.sh/hook']) ?? ''))) continue;
    const pod = getPath(o.value, spec) as Obj;
    if (!isObj(pod)) continue;
    const containers = arr(pod['containers']);
    if (!containers.length) continue;
    const mainIndex = Math.max(
      0,
      containers.findIndex((c) => c['name'] === o.name),
    );
    const c = containers[mainIndex]!;
    const image = String(c['image'] ?? '');
    const df = dockerfileFor(ctx, image);
    if (df) ctx.claimed.add(df.path);
    const role = df ? builtRole(df.base?.image ?? null, df.proxyInstalled?.product ?? null, image) : imageRole(image);
    const tmplLabels =
      o.kind === 'Pod' ? getPath(o.value, ['metadata', 'labels']) : getPath(o.value, [...spec.slice(0, -1), 'metadata', 'labels']);
    out.push({
      o,
      spec,
      pod,
      labels: isObj(tmplLabels) ? tmplLabels : {},
      main: { c, path: [...spec, 'containers', mainIndex] },
      role,
      dockerfile: df,
    });
  }
  return out;
}

/**
 * A Knative Service: the platform routes to it and scales it, not the objects among the files.
 * Its Kourier, Istio or Cloud Run front end faces clients on a domain configured with the
 * cluster (or the Cloud Run service), unless the label makes it cluster-local.
 */
function knativeFacts(sheet: FactSheet, w: Workload): void {
  const meta = (getPath(w.o.value, ['metadata']) ?? {}) as Obj;
  const labels = isObj(meta['labels']) ? meta['labels'] : {};
  const tmpl = (getPath(w.o.value, ['spec', 'template', 'metadata', 'annotations']) ?? {}) as Obj;
  // min-scale and max-scale, or their older names minScale and maxScale (Cloud Run's YAML uses those).
  const scale = [
    ['min-scale', 'minScale'],
    ['max-scale', 'maxScale'],
  ].map(([now, old]) => tmpl[`autoscaling.knative.dev/${now}`] ?? tmpl[`autoscaling.knative.dev/${old}`]);
  sheet.reopen(
    'deployment.replicas',
    `Knative scales the revision${scale.some((v) => v !== undefined) ? ` between ${String(scale[0] ?? 0)} and ${String(scale[1] ?? 'no limit')}` : ', to zero when idle'}`,
  );
  const why =
    "a Knative Service is reached through the platform's ingress (Kourier, Istio, Cloud Run's front end), configured outside these files";
  for (const path of [
    'exposure.behind_reverse_proxy',
    'tls.enabled',
    'exposure.endpoint_address_class',
    'exposure.reachable_from_internet',
  ])
    sheet.reopen(path, why);
  if (labels['networking.knative.dev/visibility'] === 'cluster-local') {
    const at = w.o.at('metadata', 'labels', 'networking.knative.dev/visibility');
    sheet.set('exposure.endpoint_address_class', 'private', at, 'networking.knative.dev/visibility: cluster-local');
    sheet.set('exposure.reachable_from_internet', false, at, 'a cluster-local Knative Service has no public route');
  }
}

/** Every string value in a parsed YAML value (an Ingress's hosts, paths and names). */
const stringsIn = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(stringsIn) : isObj(v) ? Object.values(v).flatMap(stringsIn) : [];

const selects = (selector: unknown, labels: Obj) => isObj(selector) && Object.entries(selector).every(([k, v]) => labels[k] === v);
const selectorOf = (p: K8sObject) => (getPath(p.value, ['spec', 'podSelector', 'matchLabels']) ?? {}) as Obj;

/** Operators' resources that ask for an MCP server (ToolHive's MCPServer, VirtualMCPServer, MCPRemoteProxy; ARK's, kagent's MCPServer). */
const OPERATOR_SERVERS = /^(MCPServer|VirtualMCPServer|MCPRemoteProxy)$/i;

export function kubernetesDeployments(ctx: Context, set: K8sSet): FactSheet[] {
  const ws = workloads(ctx, set);
  const tied = new Set(ws.map((w) => w.dockerfile?.path));
  const untied = ctx.inputs
    .all()
    .filter((f) => ctx.kinds.get(f.path) === 'dockerfile' && !tied.has(f.path))
    .map((f) => f.path);
  const services = set.objects.filter((o) => o.kind === 'Service' && !isKnative(o));
  const policies = set.objects.filter((o) => o.kind === 'NetworkPolicy');
  const ingresses = set.objects.filter((o) => o.kind === 'Ingress' || o.kind === 'HTTPRoute' || o.kind === 'Route');
  const configMaps = set.objects.filter((o) => o.kind === 'ConfigMap');
  const secrets = set.objects.filter((o) => o.kind === 'Secret');
  const hpas = set.objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  // Operators' MCP server resources (ARK's, kagent's, ToolHive's MCPServer) that point at a Service.
  const mcpResources = set.objects.filter((o) => /^MCPServer$/i.test(o.kind));
  const servicesOf = (w: Workload) => services.filter((s) => selects(getPath(s.value, ['spec', 'selector']), w.labels));
  const exposedBy = (x: Workload) =>
    servicesOf(x).some((s) => ['LoadBalancer', 'NodePort'].includes(String(getPath(s.value, ['spec', 'type']))));
  const names = (w: Workload) => [w.o.name, ...servicesOf(w).map((s) => s.name)];
  const proxies = ws.filter((w) => w.role?.kind === 'proxy');
  // What a proxy's containers run and read, one string per line: its arguments, environment and
  // ConfigMaps (an nginx.conf, an Envoy bootstrap).
  const text = (w: Workload) =>
    stringsIn([
      arr(w.pod['containers']).map((c) => [c['args'], c['command'], c['env']]),
      configMapsOf(w, configMaps).map((cm) => cm.value['data']),
    ]).join('\n');
  // A Service or workload name as a host of its own (`mcp-server`, `mcp-server.ns.svc.cluster.local:8080`),
  // not a part of another name (`mcp-server-v2`).
  const forwardsTo = (p: Workload, w: Workload) =>
    names(w).some((n) => new RegExp(`(^|[^A-Za-z0-9_.-])${literal(n)}(\\.[a-z0-9-]+)*(?![A-Za-z0-9_-]|\\.[a-z0-9])`, 'm').test(text(p)));

  const wanted = ctx.options.servers ?? [];
  const candidates = ws.filter((w) => w.role === null && !runsAuthenticator(w.main.c['args'], w.main.c['command']));
  const evidence = new Map<Workload, string>();
  for (const w of candidates) {
    if (wanted.includes(w.o.name)) evidence.set(w, 'named with --server');
    // An Ingress (or route) whose name, host or paths name MCP: one to an echo server says nothing.
    else if (
      ingresses.some(
        (i) =>
          [i.name, ...stringsIn(i.value['spec'])].some(namesMcpRoute) &&
          servicesOf(w).some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)),
      )
    )
      evidence.set(w, 'an Ingress of an MCP route routes to it');
    else if (mcpResources.some((m) => servicesOf(w).some((s) => JSON.stringify(m.value['spec']).includes(`"${s.name}"`))))
      evidence.set(w, `an ${mcpResources[0]!.kind} resource names its Service`);
    else if (/mcp/i.test(`${w.o.name} ${programOf(String(w.main.c['image']))} ${JSON.stringify(w.main.c['args'] ?? '')}`)) {
      // Every port it declares is for health or metrics: a controller or operator of the MCP
      // project (kagenti/mcp-gateway's mcp-controller, `--controller` on ports health and metrics), no server.
      const ports = arr(w.main.c['ports']);
      if (
        ports.length &&
        ports.every((p) => /^(health[a-z]*|metrics|probes?|readiness|liveness|webhook|pprof)$/i.test(String(p['name'] ?? '')))
      )
        ctx.note(
          w.o.file,
          `${w.o.kind} ${w.o.name} declares only health and metrics ports (${ports.map((p) => String(p['name'])).join(', ')}): no MCP endpoint, not read as a server; name it with --server if it serves MCP`,
        );
      else evidence.set(w, 'its name, image or arguments name MCP');
    } else if (
      w.dockerfile &&
      mcpEvidenceOfBuild(ctx.inputs, contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied), w.dockerfile.copied)
    )
      evidence.set(w, 'its image is built from an MCP SDK project');
  }
  // A proxy forwarding to a workload marks it only when nothing else names the MCP server: an
  // edge proxy also routes to the admin tools beside it (book-api-mcp-docker-compose-bundle's
  // Envoy sends /pgadmin to pgAdmin).
  if (!evidence.size)
    for (const w of candidates) if (proxies.some((p) => forwardsTo(p, w))) evidence.set(w, 'a proxy workload forwards to it');
  let servers = candidates.filter((w) => (wanted.length ? wanted.includes(w.o.name) : evidence.has(w)));
  // The only workload left, in files the caller named or with an image built from the files (ctx.pointedAt).
  const only = candidates.length === 1 ? candidates[0]! : null;
  // Unless its build shows what it is: package manifests with no MCP SDK.
  const builtAsOther =
    !!only?.dockerfile &&
    manifestsOfBuild(ctx.inputs, contextOfDockerfile(ctx.inputs, only.dockerfile.path, only.dockerfile.copied), only.dockerfile.copied)
      .length > 0;
  if (
    !servers.length &&
    !wanted.length &&
    only &&
    (ctx.pointedAt([...new Set(set.objects.map((o) => o.file))], set.root) || (only.dockerfile && !builtAsOther))
  ) {
    servers = candidates;
    evidence.set(
      only,
      `the only workload that is neither a proxy nor a datastore${only.dockerfile ? ', its image built from the files' : ', in files named'}`,
    );
  }
  if (!servers.length) {
    // Manifests with no workload at all (CRDs, RBAC, an Issuer) have nothing to name: no note,
    // unless an operator's resource asks for an MCP server whose workload the operator creates.
    if (!ws.length) {
      const asked = set.objects.filter((o) => OPERATOR_SERVERS.test(o.kind));
      if (asked.length)
        ctx.note(
          set.root ?? asked[0]!.file,
          `${asked.map((o) => `${o.kind} ${o.name}`).join(', ')}: an operator creates the workload that runs ${asked.length === 1 ? 'this MCP server' : 'these MCP servers'}, and its facts are not read from the resource; check the workload the operator creates (kubectl get deployment,service -o yaml) or declare its facts`,
        );
      return [];
    }
    ctx.note(
      set.root ?? candidates[0]?.o.file ?? ws[0]!.o.file,
      `no workload is recognisably an MCP server (candidates: ${candidates.map((c) => c.o.name).join(', ') || 'none'}); name it with --server`,
    );
    return [];
  }

  return servers.map((w) => {
    const sheet = new FactSheet(`kubernetes:${set.root ?? w.o.file}:${w.o.kind}/${w.o.name}`);
    const at = (...p: (string | number)[]) => w.o.at(...p);
    sheet.set('container.used', true, at(), `${w.o.kind} ${w.o.name} (${evidence.get(w)})`);
    sheet.set('container.orchestrator', 'kubernetes', at(), `a Kubernetes ${w.o.kind}`);
    sheet.set('transport.kind', 'http', at(), 'a Kubernetes workload serves over the network');
    const hpa = hpas.find((h) => getPath(h.value, ['spec', 'scaleTargetRef', 'name']) === w.o.name);
    if (hpa)
      sheet.undecided(
        'deployment.replicas',
        `HorizontalPodAutoscaler ${hpa.name} changes the count between ${String(getPath(hpa.value, ['spec', 'minReplicas']) ?? 1)} and ${String(getPath(hpa.value, ['spec', 'maxReplicas']))}`,
      );
    else if (w.o.kind === 'DaemonSet') sheet.undecided('deployment.replicas', 'a DaemonSet runs one pod per node');
    else {
      const n = w.o.kind === 'Pod' ? 1 : Number(getPath(w.o.value, ['spec', 'replicas']) ?? 1);
      sheet.set(
        'deployment.replicas',
        n,
        at('spec', 'replicas'),
        getPath(w.o.value, ['spec', 'replicas']) === undefined ? 'no replicas: Kubernetes runs one' : `replicas: ${n}`,
      );
    }
    podFacts(sheet, w, set);
    secretsFacts(sheet, w, configMaps, secrets);
    const image = String(w.main.c['image'] ?? '');
    if (w.dockerfile)
      dockerfileFacts(
        sheet,
        w.dockerfile,
        ctx.inputs,
        contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied),
        at(...w.main.path, 'image'),
      );
    else if (image) imageFacts(sheet, image, at(...w.main.path, 'image'), untied);
    // The image reference in the manifest, whatever built it. None (a rendered file whose image
    // line was filtered out, a patch) decides nothing about it.
    if (image)
      sheet.set('container.image_pinned_by_digest', /@sha256:[0-9a-f]{64}$/.test(image), at(...w.main.path, 'image'), `image: ${image}`);
    else {
      const why = `container ${String(w.main.c['name'] ?? '')} names no image in these files`;
      sheet.undecided('container.image_pinned_by_digest', why);
      if (!w.dockerfile) sheet.undecided('supply_chain.deployed_release', why);
    }
    if (!sheet.has('container.runs_as_root'))
      sheet.undecided(
        'container.runs_as_root',
        "neither the pod nor the image's Dockerfile sets the user: the image's default user decides",
      );
    const routedHere = ingresses.some((i) => servicesOf(w).some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)));
    networkFacts(
      sheet,
      w,
      policies,
      proxies.filter((p) => forwardsTo(p, w)),
      ws,
      routedHere,
    );
    // With neither command nor args, the container runs its image's ENTRYPOINT and CMD, as the build among the files writes them.
    if (w.main.c['args'] === undefined && w.main.c['command'] === undefined && w.dockerfile?.commandAt)
      legacySse(sheet, w.dockerfile.commandAt, w.dockerfile.entrypoint);
    // args alone replace the image's CMD and follow its ENTRYPOINT; a command replaces the ENTRYPOINT and drops the CMD.
    else if (w.main.c['command'] === undefined && w.dockerfile?.entrypointAt)
      legacySse(sheet, at(...w.main.path), w.dockerfile.entrypointOnly, w.main.c['args']);
    else legacySse(sheet, at(...w.main.path), w.main.c['command'], w.main.c['args']);
    // An image ENTRYPOINT the container keeps may be a script that ends in the server's command.
    if (w.main.c['command'] === undefined && w.dockerfile) {
      const script = scriptCommand(w.dockerfile, ctx.inputs, contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied));
      if (script && !sheet.has('transport.legacy_sse')) legacySse(sheet, script.at, script.words);
      // A runAsUser in the pod decides who runs; else the script's drop does.
      if (
        getPath(w.main.c, ['securityContext', 'runAsUser']) === undefined &&
        getPath(w.pod, ['securityContext', 'runAsUser']) === undefined
      )
        privilegeDrop(sheet, script);
    }

    // In front: a proxy workload, an Ingress, or a Service of type LoadBalancer/NodePort.
    const front = proxies.find((p) => forwardsTo(p, w));
    const exposed = servicesOf(w).filter((s) => ['LoadBalancer', 'NodePort'].includes(String(getPath(s.value, ['spec', 'type']))));
    const routed = ingresses.filter((i) => servicesOf(w).some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)));
    if (exposed.length) {
      sheet.set(
        'exposure.behind_reverse_proxy',
        false,
        exposed[0]!.at('spec', 'type'),
        `Service ${exposed[0]!.name} (${String(getPath(exposed[0]!.value, ['spec', 'type']))}) exposes the server itself`,
      );
      sheet.undecided('exposure.endpoint_address_class', 'a LoadBalancer or NodePort address is assigned by the cluster');
      // A NodePort (and a LoadBalancer, which allocates one) opens the port on every node's interfaces.
      sheet.set(
        'container.published_ports',
        'all_interfaces',
        exposed[0]!.at('spec', 'type'),
        `Service ${exposed[0]!.name} (${String(getPath(exposed[0]!.value, ['spec', 'type']))}) publishes the server's port on every node`,
      );
    } else if (front) {
      sheet.set('exposure.behind_reverse_proxy', true, front.o.at(), `${front.o.name} forwards to the server`);
      proxyFacts(ctx, sheet, front, names(w), configMaps, exposedBy(front), recogniseSignet(ctx.inputs, w.dockerfile) !== null);
      const frontServices = servicesOf(front);
      const pExposed = frontServices.find((s) => ['LoadBalancer', 'NodePort'].includes(String(getPath(s.value, ['spec', 'type']))));
      const pRouted = ingresses.filter((i) => frontServices.some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)));
      endpoint(sheet, pExposed, pRouted, frontServices);
    } else if (routed.length) {
      sheet.set(
        'exposure.behind_reverse_proxy',
        true,
        routed[0]!.at(),
        `${routed[0]!.kind} ${routed[0]!.name} routes to the server through the cluster's ingress controller`,
      );
      ingressFacts(sheet, routed[0]!);
      endpoint(sheet, undefined, routed, servicesOf(w));
    } else {
      sheet.set('exposure.behind_reverse_proxy', false, at(), 'no proxy workload, Ingress or route in the files forwards to the server');
      endpoint(sheet, undefined, [], servicesOf(w));
    }
    // Nothing in front terminates TLS: the server's own flags say whether it serves TLS.
    if (!front && !sheet.has('tls.enabled')) {
      const words = [w.main.c['command'], w.main.c['args']].flat().filter((x): x is string => typeof x === 'string');
      const flag = tlsFlags(words);
      if (flag && !routed.length) sheet.set('tls.enabled', true, at(...w.main.path), `the server serves TLS itself (${flag} and its key)`);
      // A LoadBalancer or NodePort that clients reach on port 80, with no certificate annotation for
      // the cloud's load balancer to terminate TLS: plain HTTP (CDataSoftware/cdata-sync-mcp-server),
      // whatever an Ingress beside it serves.
      else if (!flag) {
        const plain = exposed.find(
          (svc) =>
            arr(getPath(svc.value, ['spec', 'ports'])).some((p) => p['port'] === 80) &&
            !Object.keys((getPath(svc.value, ['metadata', 'annotations']) ?? {}) as Obj).some((k) => /ssl|tls|cert/i.test(k)),
        );
        if (plain)
          sheet.set(
            'tls.enabled',
            false,
            plain.at('spec', 'ports'),
            `Service ${plain.name} (${String(getPath(plain.value, ['spec', 'type']))}) takes clients on port 80, with no certificate for its load balancer: plain HTTP`,
          );
      }
    }
    if (isKnative(w.o)) knativeFacts(sheet, w);
    const signet = recogniseSignet(ctx.inputs, w.dockerfile);
    if (signet) {
      ctx.note(w.dockerfile!.path, signet);
      const env = containerEnv(w, configMaps);
      const ref = front && isReferenceProxy(ctx.inputs, front.dockerfile) ? front : null;
      const proxyEnv = ref ? containerEnv(ref, configMaps) : null;
      const tlsDir = proxyEnv?.get('SIGNET_TLS_DIR')?.value || '/etc/signet/tls';
      const mountIndex = ref ? arr(ref.main.c['volumeMounts']).findIndex((m) => m['mountPath'] === tlsDir) : -1;
      signetFacts(
        sheet,
        {
          env,
          platform: 'kubernetes',
          behindProxy: sheet.get('exposure.behind_reverse_proxy') === true,
          replicas: sheet.get('deployment.replicas') as number | undefined,
        },
        ref && proxyEnv
          ? {
              env: proxyEnv,
              tlsMount: mountIndex >= 0 ? ref.o.at(...ref.main.path, 'volumeMounts', mountIndex) : null,
              at: ref.o.at(),
              facesClients: exposedBy(ref),
            }
          : null,
      );
      // The signing key file: mode from the Secret volume mounted over its directory.
      const keyFile = env.get('SIGNET_SIGNING_KEY_FILE')?.value;
      const mounts = arr(w.main.c['volumeMounts']);
      const m = keyFile ? mounts.find((x) => keyFile.startsWith(`${String(x['mountPath']).replace(/\/$/, '')}/`)) : undefined;
      const vol = m ? arr(w.pod['volumes']).find((v) => v['name'] === m['name']) : undefined;
      const mode = isObj(vol?.['secret']) ? (vol['secret'] as Obj)['defaultMode'] : undefined;
      if (typeof mode === 'number')
        sheet.set(
          'signing_key.file_mode_restricted',
          (mode & 0o007) === 0,
          w.o.at(...w.spec, 'volumes'),
          `Secret volume ${String(vol!['name'])} with defaultMode 0${mode.toString(8)}`,
        );
    }
    return sheet;
  });
}

/** A container's environment with the line of each value: the image's ENV, envFrom ConfigMaps, then env (literal values). */
function containerEnv(w: Workload, configMaps: K8sObject[]): Map<string, EnvValue> {
  const out = new Map<string, EnvValue>();
  for (const [k, v] of w.dockerfile?.env ?? []) out.set(k, { value: v, at: w.dockerfile!.envAt.get(k)! });
  for (const [i, e] of arr(w.main.c['envFrom']).entries()) {
    const ref = e['configMapRef'];
    const cm = isObj(ref) ? configMaps.find((m) => m.name === ref['name']) : undefined;
    for (const [k, v] of Object.entries((cm?.value['data'] ?? {}) as Obj))
      if (typeof v === 'string') out.set(k, { value: v, at: cm!.at('data', k) });
    void i;
  }
  for (const [i, e] of arr(w.main.c['env']).entries()) {
    if (typeof e['value'] === 'string') out.set(String(e['name']), { value: e['value'], at: w.o.at(...w.main.path, 'env', i) });
    else if (isObj(e['valueFrom'])) out.set(String(e['name']), { value: '(from a reference)', at: w.o.at(...w.main.path, 'env', i) });
  }
  return out;
}

function endpoint(sheet: FactSheet, exposed: K8sObject | undefined, routed: K8sObject[], svcs: K8sObject[]): void {
  if (exposed)
    sheet.undecided(
      'exposure.endpoint_address_class',
      `Service ${exposed.name} is a ${String(getPath(exposed.value, ['spec', 'type']))}: its address is assigned by the cluster`,
    );
  else if (routed.length)
    sheet.undecided(
      'exposure.endpoint_address_class',
      `${routed[0]!.kind} ${routed[0]!.name}: the ingress controller's address is not in the files`,
    );
  else if (svcs.length) {
    // A cluster's Ingresses and gateways are often kept apart from the application's manifests.
    const why = `only ClusterIP Services (${svcs.map((s) => s.name).join(', ')}) in the files: an Ingress, gateway or load balancer defined elsewhere decides`;
    sheet.undecided('exposure.endpoint_address_class', why);
    sheet.undecided('exposure.reachable_from_internet', why);
  }
}

/** An OpenShift Route: TLS at the router (edge, reencrypt, passthrough), plain HTTP too only with insecureEdgeTerminationPolicy Allow. */
function routeFacts(sheet: FactSheet, route: K8sObject): void {
  const tls = getPath(route.value, ['spec', 'tls']);
  const termination = isObj(tls) ? String(tls['termination'] ?? '').toLowerCase() : '';
  const insecure = isObj(tls) ? String(tls['insecureEdgeTerminationPolicy'] ?? 'None') : 'None';
  const on = termination !== '' && insecure !== 'Allow';
  sheet.set(
    'tls.enabled',
    on,
    route.at('spec', termination ? 'tls' : 'to'),
    termination === ''
      ? `Route ${route.name} has no tls: the router serves it in plain HTTP`
      : insecure === 'Allow'
        ? `Route ${route.name}: insecureEdgeTerminationPolicy Allow serves plain HTTP too`
        : `Route ${route.name}: TLS ${termination} at the router, no plain HTTP (insecureEdgeTerminationPolicy ${insecure})`,
  );
  if (termination === 'reencrypt')
    sheet.set(
      'tls.backend_hop',
      'encrypted',
      route.at('spec', 'tls'),
      'reencrypt: the router opens TLS to the pod and verifies its certificate (destinationCACertificate, or the service CA)',
    );
  else if (termination === 'passthrough')
    sheet.set('tls.backend_hop', 'encrypted', route.at('spec', 'tls'), 'passthrough: TLS from the client ends at the pod');
  else sheet.undecided('tls.backend_hop', CNI_HOP);
}

function ingressFacts(sheet: FactSheet, ing: K8sObject): void {
  if (ing.kind === 'Route') {
    routeFacts(sheet, ing);
    return;
  }
  if (ing.kind !== 'Ingress') return;
  const tls = arr(getPath(ing.value, ['spec', 'tls']));
  sheet.set(
    'tls.enabled',
    tls.length > 0,
    ing.at('spec', tls.length ? 'tls' : 'rules'),
    tls.length ? 'the Ingress terminates TLS' : 'the Ingress has no tls section',
  );
  const ann = (getPath(ing.value, ['metadata', 'annotations']) ?? {}) as Obj;
  const a = (k: string) => (ann[k] === undefined ? undefined : String(ann[k]));
  const rpm = a('nginx.ingress.kubernetes.io/limit-rpm');
  const rps = a('nginx.ingress.kubernetes.io/limit-rps');
  if (rpm || rps) {
    sheet.set('rate_limit.enabled', true, ing.at('metadata', 'annotations'), 'ingress-nginx limit annotations');
    sheet.set(
      'rate_limit.per_minute',
      rps ? Number(rps) * 60 : Number(rpm),
      ing.at('metadata', 'annotations'),
      rps ? `limit-rps ${rps}` : `limit-rpm ${rpm}`,
    );
    sheet.set('rate_limit.scope', 'ip', ing.at('metadata', 'annotations'), 'ingress-nginx limits per client address');
  }
  if (a('nginx.ingress.kubernetes.io/backend-protocol') === 'HTTPS' && a('nginx.ingress.kubernetes.io/proxy-ssl-verify') === 'on')
    sheet.set('tls.backend_hop', 'encrypted', ing.at('metadata', 'annotations'), 'backend-protocol HTTPS with proxy-ssl-verify on');
  else sheet.undecided('tls.backend_hop', CNI_HOP);
  if (tls.length && (a('cert-manager.io/cluster-issuer') || a('cert-manager.io/issuer')))
    sheet.set(
      'tls.certificate_auto_renewal',
      true,
      ing.at('metadata', 'annotations'),
      'cert-manager issues and renews the Ingress certificate',
    );
}

function configMapsOf(w: Workload, configMaps: K8sObject[]): K8sObject[] {
  const names = new Set<string>();
  for (const v of arr(w.pod['volumes'])) if (isObj(v['configMap'])) names.add(String(v['configMap']['name']));
  for (const c of arr(w.pod['containers'])) {
    for (const e of arr(c['envFrom'])) if (isObj(e['configMapRef'])) names.add(String(e['configMapRef']['name']));
    for (const e of arr(c['env'])) {
      const ref = getPath(e, ['valueFrom', 'configMapKeyRef', 'name']);
      if (ref) names.add(String(ref));
    }
  }
  return configMaps.filter((cm) => names.has(cm.name));
}

function proxyFacts(
  ctx: Context,
  sheet: FactSheet,
  proxy: Workload,
  targets: string[],
  configMaps: K8sObject[],
  facesClients: boolean,
  answersInOnePiece: boolean,
): void {
  if (proxy.role?.kind !== 'proxy' || proxy.role.product !== 'nginx') return;
  // nginx files: ConfigMap keys mounted into the proxy, and its image's build context.
  const files: { path: string; text: string; lineOffset: number; name?: string }[] = [];
  for (const cm of configMapsOf(proxy, configMaps)) {
    for (const [k, v] of Object.entries((cm.value['data'] ?? {}) as Obj)) {
      // A generated ConfigMap's key keeps the lines of the file it was made from.
      const file = (cm.value['__files'] as Record<string, string> | undefined)?.[k];
      if (typeof v === 'string' && /[{;]\s*$/m.test(v) && /\b(server|location|upstream|http)\b/.test(v))
        files.push(
          file ? { path: file, text: v, lineOffset: 0, name: k } : { path: cm.file, text: v, lineOffset: cm.at('data', k).line, name: k },
        );
    }
  }
  if (proxy.dockerfile) {
    // The image's templates, rendered with the container's environment (image ENV, env, envFrom ConfigMaps).
    const env = new Map(proxy.dockerfile.env);
    for (const cm of configMapsOf(proxy, configMaps))
      for (const [k, v] of Object.entries((cm.value['data'] ?? {}) as Obj)) if (typeof v === 'string') env.set(k, v);
    for (const e of arr(proxy.main.c['env'])) if (typeof e['value'] === 'string') env.set(String(e['name']), e['value']);
    for (const f of ctx.proxyFiles(dirOf(proxy.dockerfile.path), [], '', ['nginx'])) files.push({ ...render(f, env), lineOffset: 0 });
  }
  if (!files.length) return;
  // The proxy faces clients only through a LoadBalancer or NodePort Service; behind an Ingress, the controller does.
  nginxFacts(sheet, new NginxConfig(files), { targets, platform: 'kubernetes', facesClients, answersInOnePiece });
}

function podFacts(sheet: FactSheet, w: Workload, set: K8sSet): void {
  const c = w.main.c;
  const cp = w.main.path;
  const at = (...p: (string | number)[]) => w.o.at(...p);
  const csc = isObj(c['securityContext']) ? c['securityContext'] : {};
  const psc = isObj(w.pod['securityContext']) ? w.pod['securityContext'] : {};
  const scAt = (field: string) =>
    csc[field] !== undefined
      ? at(...cp, 'securityContext', field)
      : psc[field] !== undefined
        ? at(...w.spec, 'securityContext', field)
        : at(...cp);
  const pick = (field: string) => csc[field] ?? psc[field];
  const uid = pick('runAsUser');
  if (uid !== undefined) sheet.set('container.runs_as_root', Number(uid) === 0, scAt('runAsUser'), `runAsUser: ${String(uid)}`);
  else if (pick('runAsNonRoot') === true)
    sheet.set('container.runs_as_root', false, scAt('runAsNonRoot'), 'runAsNonRoot: true (the kubelet refuses to start it as uid 0)');
  const ro = csc['readOnlyRootFilesystem'] === true;
  sheet.set(
    'container.read_only_root_fs',
    ro,
    scAt('readOnlyRootFilesystem'),
    ro ? 'readOnlyRootFilesystem: true' : 'no readOnlyRootFilesystem: true',
  );
  const caps = isObj(csc['capabilities']) ? csc['capabilities'] : {};
  const dropAll =
    ((caps['drop'] as unknown[]) ?? []).some((x) => /^(CAP_)?ALL$/i.test(String(x))) && !((caps['add'] as unknown[]) ?? []).length;
  // Unset, admission may set what the manifest leaves out (OpenShift's restricted-v2 SCC drops
  // every capability and sets allowPrivilegeEscalation: false), as it may set seccomp.
  if (!isObj(csc['capabilities'])) sheet.undecided('container.capabilities_dropped', ADMISSION('capabilities'));
  else
    sheet.set(
      'container.capabilities_dropped',
      dropAll,
      scAt('capabilities'),
      dropAll ? 'capabilities.drop: [ALL], nothing added' : 'not every capability dropped',
    );
  const privileged = csc['privileged'] === true;
  sheet.set('container.privileged', privileged, scAt('privileged'), privileged ? 'privileged: true' : 'not privileged');
  const ape = csc['allowPrivilegeEscalation'];
  if (ape === undefined && !privileged) sheet.undecided('container.no_new_privileges', ADMISSION('allowPrivilegeEscalation'));
  else
    sheet.set(
      'container.no_new_privileges',
      ape === false && !privileged,
      scAt(privileged ? 'privileged' : 'allowPrivilegeEscalation'),
      ape === false ? 'allowPrivilegeEscalation: false' : privileged ? 'privileged: true' : 'allowPrivilegeEscalation: true',
    );
  const sp = (
    isObj(csc['seccompProfile']) ? csc['seccompProfile'] : isObj(psc['seccompProfile']) ? psc['seccompProfile'] : null
  ) as Obj | null;
  if (privileged) sheet.set('container.seccomp', 'unconfined', scAt('privileged'), 'privileged: true disables seccomp');
  else if (sp) {
    const t = String(sp['type']);
    sheet.set(
      'container.seccomp',
      t === 'RuntimeDefault' ? 'runtime_default' : t === 'Localhost' ? 'custom' : 'unconfined',
      scAt('seccompProfile'),
      `seccompProfile type ${t}`,
    );
  } else
    sheet.undecided(
      'container.seccomp',
      'no seccompProfile: Unconfined unless the kubelet runs with --seccomp-default or admission injects one',
    );
  const hostUsers = w.pod['hostUsers'];
  sheet.set(
    'container.user_namespace',
    hostUsers === false,
    at(...w.spec, hostUsers === undefined ? '' : 'hostUsers'),
    hostUsers === false ? 'hostUsers: false' : 'no hostUsers: false: the pod shares the host user namespace',
  );
  // The API token: the pod's setting, else its ServiceAccount's (when that object is among the files).
  const automount = w.pod['automountServiceAccountToken'];
  const saName = String(w.pod['serviceAccountName'] ?? 'default');
  // In the pod's own namespace: GoogleCloudPlatform/kubectl-ai's GKE manifest beside it defines a
  // ServiceAccount of the same name in namespace kubectl-ai.
  const nsOf = (o: K8sObject) => String(getPath(o.value, ['metadata', 'namespace']) ?? '');
  const sa = set.objects.find((o) => o.kind === 'ServiceAccount' && o.name === saName && nsOf(o) === nsOf(w.o));
  if (automount !== undefined)
    sheet.set(
      'container.service_account_token_mounted',
      automount !== false,
      at(...w.spec, 'automountServiceAccountToken'),
      `automountServiceAccountToken: ${String(automount)}`,
    );
  else if (sa) {
    const v = sa.value['automountServiceAccountToken'];
    sheet.set(
      'container.service_account_token_mounted',
      v !== false,
      sa.at(v === undefined ? 'metadata' : 'automountServiceAccountToken'),
      `ServiceAccount ${saName}: automountServiceAccountToken ${v === undefined ? 'not set (mounted by default)' : String(v)}`,
    );
  } else
    sheet.undecided(
      'container.service_account_token_mounted',
      `the pod leaves it to ServiceAccount ${saName}, which is not among the files`,
    );
  const probes = c['livenessProbe'] ?? c['readinessProbe'];
  sheet.set(
    'container.healthcheck',
    !!probes,
    at(...cp, c['livenessProbe'] ? 'livenessProbe' : c['readinessProbe'] ? 'readinessProbe' : 'name'),
    probes ? 'liveness or readiness probe' : 'no liveness or readiness probe',
  );
  const limits = (getPath(c, ['resources', 'limits']) ?? {}) as Obj;
  const both = limits['cpu'] !== undefined && limits['memory'] !== undefined;
  sheet.set(
    'container.resource_limits',
    both,
    at(...cp, both ? 'resources' : 'name'),
    both ? 'cpu and memory limits' : 'no cpu and memory limits',
  );
  const hostPorts = arr(c['ports']).filter((p) => p['hostPort'] !== undefined);
  sheet.set(
    'container.published_ports',
    hostPorts.length === 0 ? 'none' : hostPorts.every((p) => /^127\./.test(String(p['hostIP'] ?? ''))) ? 'loopback' : 'all_interfaces',
    at(...cp, hostPorts.length ? 'ports' : 'name'),
    hostPorts.length ? `hostPort ${hostPorts.map((p) => String(p['hostPort'])).join(', ')}` : 'no hostPort',
  );
  // Host namespaces and host paths (doctrine 1.3, Pod Security Standards Baseline).
  const shared = ['hostNetwork', 'hostPID', 'hostIPC'].filter((k) => w.pod[k] === true);
  sheet.set(
    'container.host_namespaces',
    shared.length > 0,
    at(...w.spec, shared[0] ?? ''),
    shared.length ? shared.map((k) => `${k}: true`).join(', ') : 'no hostNetwork, hostPID or hostIPC',
  );
  const env = Object.fromEntries(
    arr(c['env'])
      .filter((e) => typeof e['value'] === 'string')
      .map((e) => [String(e['name']), e['value']]),
  );
  tlsVerification(sheet, env, (k) =>
    at(
      ...cp,
      'env',
      arr(c['env']).findIndex((e) => e['name'] === k),
    ),
  );
  const vols = arr(w.pod['volumes']);
  const mounted = new Set(arr(c['volumeMounts']).map((m) => String(m['name'])));
  const hostPaths = vols.filter((v) => isObj(v['hostPath']) && mounted.has(String(v['name'])));
  const sock = hostPaths.find((v) => /(docker|containerd|crio|podman)\.sock$/.test(String((v['hostPath'] as Obj)['path'])));
  sheet.set(
    'container.docker_socket_mounted',
    !!sock,
    sock ? at(...w.spec, 'volumes') : at(...cp),
    sock ? `hostPath ${String((sock['hostPath'] as Obj)['path'])} is mounted` : 'no container runtime socket mounted',
  );
  // Every hostPath volume is host_system (a node's paths belong to the node, Pod Security Standards Baseline).
  sheet.set(
    'container.host_path_mounts',
    hostPaths.length ? 'host_system' : 'none',
    hostPaths.length ? at(...w.spec, 'volumes') : at(...cp),
    hostPaths.length
      ? `hostPath volumes: ${hostPaths.map((v) => String((v['hostPath'] as Obj)['path'])).join(', ')}`
      : 'no hostPath volume',
  );
  sheet.set(
    'exposure.bind_address_class',
    w.pod['hostNetwork'] === true ? 'public' : 'private',
    at(...w.spec),
    w.pod['hostNetwork'] === true ? 'hostNetwork' : 'the server listens on its pod address',
  );
  if (w.pod['hostNetwork'] === true) {
    sheet.reopen('exposure.bind_address_class', HOST_NETWORK('hostNetwork: true'));
    if (sheet.get('container.published_ports') !== 'all_interfaces')
      sheet.reopen('container.published_ports', HOST_NETWORK('hostNetwork: true'));
  }
}

function secretsFacts(sheet: FactSheet, w: Workload, configMaps: K8sObject[], secrets: K8sObject[]): void {
  const found: { kind: string; at: At; why: string }[] = [];
  // The Secrets the pod reads, by name: a committed one's values are in the files.
  const referenced = new Set<string>();
  const at = (...p: (string | number)[]) => w.o.at(...p);
  arr(w.pod['containers']).forEach((c, ci) => {
    arr(c['env']).forEach((e, ei) => {
      const name = String(e['name'] ?? '');
      const eAt = at(...w.spec, 'containers', ci, 'env', ei);
      const keyRef = getPath(e, ['valueFrom', 'secretKeyRef']);
      if (isObj(keyRef)) {
        found.push({ kind: 'environment', at: eAt, why: `${name} from a Secret (secretKeyRef)` });
        referenced.add(String(keyRef['name'] ?? ''));
      } else if (SECRET_NAME.test(name) && !/_FILE$/.test(name)) {
        if (isObj(getPath(e, ['valueFrom', 'configMapKeyRef'])))
          found.push({ kind: 'config_map', at: eAt, why: `${name} from a ConfigMap` });
        else if (typeof e['value'] === 'string' && e['value'] !== '' && !saysNoSecret(e['value']))
          found.push({ kind: 'manifest_plaintext', at: eAt, why: `${name} has a literal value in the manifest` });
      } else if (typeof e['value'] === 'string' && passwordInUrl(e['value']))
        found.push({ kind: 'manifest_plaintext', at: eAt, why: `${name} is a connection URL with a password written in the manifest` });
    });
    arr(c['envFrom']).forEach((e, ei) => {
      if (isObj(e['secretRef'])) referenced.add(String(e['secretRef']['name'] ?? ''));
      if (isObj(e['secretRef']))
        found.push({
          kind: 'environment',
          at: at(...w.spec, 'containers', ci, 'envFrom', ei),
          why: `envFrom Secret ${String(e['secretRef']['name'])}`,
        });
      const ref = e['configMapRef'];
      if (isObj(ref)) {
        const cm = configMaps.find((m) => m.name === ref['name']);
        const key = Object.keys((cm?.value['data'] ?? {}) as Obj).find((k) => SECRET_NAME.test(k) && !/_FILE$/.test(k));
        if (cm && key) found.push({ kind: 'config_map', at: cm.at('data', key), why: `ConfigMap ${cm.name} holds ${key}` });
      }
    });
  });
  for (const v of arr(w.pod['volumes'])) {
    if (isObj(v['secret']) || isObj(v['projected']))
      found.push({ kind: 'mounted_files', at: at(...w.spec, 'volumes'), why: `Secret volume ${String(v['name'])}` });
    if (isObj(v['secret'])) referenced.add(String(v['secret']['secretName'] ?? ''));
    for (const src of arr(getPath(v, ['projected', 'sources'])))
      if (isObj(src['secret'])) referenced.add(String(src['secret']['name'] ?? ''));
  }
  // A Secret the server uses whose value is written in the files (not generated from a file kept elsewhere).
  for (const s of secrets) {
    // Generated by kustomize from files kept elsewhere: ours marked, kubectl's rendered output
    // named with its content hash.
    const literal =
      !s.value['__generated'] &&
      !KUSTOMIZE_HASH.test(s.name) &&
      (isObj(s.value['stringData']) || isObj(s.value['data'])) &&
      Object.keys({ ...((s.value['stringData'] as Obj) ?? {}), ...((s.value['data'] as Obj) ?? {}) }).length > 0;
    if (literal && referenced.has(s.name)) {
      found.push({
        kind: 'manifest_plaintext',
        at: s.at(s.value['stringData'] ? 'stringData' : 'data'),
        why: `Secret ${s.name} has its values written in the manifest`,
      });
    }
  }
  if (found.length) {
    const worst = worstSecrets(found);
    sheet.set('container.secrets_source', worst.kind, worst.at, worst.why);
  } else {
    // An image built elsewhere: what it holds is not in the manifests.
    if (w.dockerfile)
      sheet.set('container.secrets_source', 'none', at(...w.spec), 'no Secret, secret-named variable or secret volume reaches the pod');
    else sheet.undecided('container.secrets_source', imageMayHoldSecrets(String(w.main.c['image'] ?? 'its image')));
  }
}

/** What an admission controller may set on a pod whose manifest leaves the field out. */
const ADMISSION = (field: string) =>
  `no ${field} in the container's securityContext: admission may set it (OpenShift's restricted-v2 SCC drops every capability and sets allowPrivilegeEscalation: false; Kubernetes alone leaves it open), so the running pod decides`;

/** NetworkPolicies add up, and a namespace's default-deny policy often lives with the cluster, not the app. */
const NO_POLICY = (dir: string) =>
  `no NetworkPolicy among the files limits ${dir} for the server; one applied to its namespace elsewhere (a default-deny policy kept with the cluster) would, and that is not in the files`;

function networkFacts(sheet: FactSheet, w: Workload, policies: K8sObject[], fronts: Workload[], ws: Workload[], viaIngress: boolean): void {
  const mine = policies.filter((p) => selects(selectorOf(p), w.labels) || Object.keys(selectorOf(p)).length === 0);
  const types = (p: K8sObject) =>
    (
      (getPath(p.value, ['spec', 'policyTypes']) as unknown[]) ??
      (getPath(p.value, ['spec', 'egress']) ? ['Ingress', 'Egress'] : ['Ingress'])
    ).map(String);
  const egress = mine.filter((p) => types(p).includes('Egress'));
  if (!egress.length) {
    sheet.undecided('egress.network_restricted', NO_POLICY('egress'));
    sheet.undecided(
      'egress.cloud_metadata_credentials_reachable',
      'egress is open; whether a metadata service answers depends on the cluster',
    );
  } else {
    const rules = egress.flatMap((p) => arr(getPath(p.value, ['spec', 'egress'])).map((r) => ({ p, r })));
    const open = rules.find(
      ({ r }) =>
        // A rule without `to` (or with an empty one) allows every destination on its ports.
        !Array.isArray(r['to']) ||
        arr(r['to']).length === 0 ||
        arr(r['to']).some((t) => /^0\.0\.0\.0\/0$|^::\/0$/.test(String(getPath(t, ['ipBlock', 'cidr']) ?? ''))),
    );
    if (open) {
      sheet.set(
        'egress.network_restricted',
        false,
        open.p.at('spec', 'egress'),
        `NetworkPolicy ${open.p.name} allows egress to any address`,
      );
      sheet.undecided(
        'egress.cloud_metadata_credentials_reachable',
        'egress reaches any address; whether a metadata service answers depends on the cluster',
      );
    } else {
      sheet.set(
        'egress.network_restricted',
        true,
        egress[0]!.at('spec', 'policyTypes'),
        `NetworkPolicy ${egress.map((p) => p.name).join(', ')} limits egress`,
      );
      const ipBlocks = rules.flatMap(({ r }) => arr(r['to'])).filter((t) => isObj(t['ipBlock']));
      if (!ipBlocks.length)
        sheet.set(
          'egress.cloud_metadata_credentials_reachable',
          false,
          egress[0]!.at('spec', 'egress'),
          'egress goes to pods and namespaces only, never to an address block',
        );
      else
        sheet.undecided(
          'egress.cloud_metadata_credentials_reachable',
          'egress allows address blocks; whether they contain a metadata service is not checked',
        );
    }
  }
  const ingress = mine.filter((p) => types(p).includes('Ingress'));
  if (!ingress.length) sheet.undecided('exposure.ingress_restricted_to_proxy', NO_POLICY('ingress'));
  else {
    const rules = ingress.flatMap((p) => arr(getPath(p.value, ['spec', 'ingress'])).map((r) => ({ p, r })));
    const proxyLabels = fronts.map((f) => f.labels);
    const others = rules.filter(
      ({ r }) =>
        !Array.isArray(r['from']) ||
        arr(r['from']).length === 0 ||
        arr(r['from']).some((f) => {
          // Behind an Ingress, the ingress controller's pods (selected by a namespace or labels that name it) are the proxy.
          if (viaIngress && !f['ipBlock'] && JSON.stringify(f).toLowerCase().includes('ingress')) return false;
          const sel = getPath(f, ['podSelector', 'matchLabels']);
          if (!isObj(sel) || f['namespaceSelector'] || f['ipBlock']) return true;
          // A rule for pods that are not the proxy (e.g. a metrics scraper on another port) does not reach the MCP port only if it names other ports.
          return (
            !proxyLabels.some((l) => selects(sel, l)) && !ws.some((x) => x !== w && x.role?.kind === 'datastore' && selects(sel, x.labels))
          );
        }),
    );
    const onMcpPort = others.filter(
      ({ r }) =>
        !Array.isArray(r['ports']) ||
        arr(r['ports']).some((p) => arr(w.main.c['ports']).some((cp) => cp['containerPort'] === p['port'] || cp['name'] === p['port'])),
    );
    const mcpPorts = arr(w.main.c['ports']);
    const strict =
      (fronts.length > 0 || viaIngress) &&
      onMcpPort.filter(
        ({ r }) =>
          !Array.isArray(r['ports']) ||
          arr(r['ports']).some((p) => mcpPorts[0]?.['containerPort'] === p['port'] || mcpPorts[0]?.['name'] === p['port']),
      ).length === 0;
    sheet.set(
      'exposure.ingress_restricted_to_proxy',
      strict,
      ingress[0]!.at('spec', 'ingress'),
      strict
        ? `NetworkPolicy ${ingress.map((p) => p.name).join(', ')} admits only the proxy on the server's port`
        : 'a NetworkPolicy rule admits other sources on the server port',
    );
  }
}
