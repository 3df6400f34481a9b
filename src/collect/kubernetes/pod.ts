import { checksNothing, HOST_NETWORK } from '../docker-defaults.js';
import type { EnvValue } from '../profiles/signet.js';
import { hostCheckOffByVariable, tlsVerification } from '../server-args.js';
import type { FactSheet } from '../sheet.js';
import { getPath, type K8sObject, type K8sSet } from './load.js';
import { arr, isObj, type Obj } from './values.js';
import type { Workload } from './workloads.js';

/** What an admission controller may set on a pod whose manifest leaves the field out. */
const ADMISSION = (field: string) =>
  `no ${field} in the container's securityContext: admission may set it (OpenShift's restricted-v2 SCC drops every capability and sets allowPrivilegeEscalation: false; Kubernetes alone leaves it open), so the running pod decides`;

/** A container's environment with the line of each value: the image's ENV, envFrom ConfigMaps, then env (literal values). */
export function containerEnv(w: Workload, configMaps: K8sObject[]): Map<string, EnvValue> {
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
    else if (isObj(e['valueFrom'])) {
      // `valueFrom.configMapKeyRef`: the value the ConfigMap among the files writes (Gheorghe-Valer/mcp's SAP_VALIDATE_SSL).
      const ref = getPath(e, ['valueFrom', 'configMapKeyRef']);
      const cm = isObj(ref) ? configMaps.find((m) => m.name === ref['name']) : undefined;
      const v = cm && isObj(ref) ? ((cm.value['data'] ?? {}) as Obj)[String(ref['key'])] : undefined;
      if (cm && typeof v === 'string') out.set(String(e['name']), { value: v, at: cm.at('data', String((ref as Obj)['key'])) });
      else out.set(String(e['name']), { value: '(from a reference)', at: w.o.at(...w.main.path, 'env', i) });
    }
  }
  return out;
}

export function podFacts(sheet: FactSheet, w: Workload, set: K8sSet): void {
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
  // A projected serviceAccountToken volume the server mounts (giantswarm/mcp-kubernetes, beside
  // `automountServiceAccountToken: false`) gives it a token all the same.
  const mountedHere = new Set(arr(c['volumeMounts']).map((m) => String(m['name'])));
  const projectedToken = arr(w.pod['volumes']).findIndex(
    (v) =>
      mountedHere.has(String(v['name'])) &&
      arr(getPath(v, ['projected', 'sources'])).some(
        // With no audience the token is the API server's; one for another audience (Vault's) is refused there.
        (src) => isObj(src['serviceAccountToken']) && src['serviceAccountToken']['audience'] === undefined,
      ),
  );
  if (projectedToken >= 0)
    sheet.set(
      'container.service_account_token_mounted',
      true,
      at(...w.spec, 'volumes', projectedToken),
      `volume ${String(arr(w.pod['volumes'])[projectedToken]!['name'])} projects a ServiceAccount token into the container`,
    );
  else if (automount !== undefined)
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
  // An exec probe that can never fail (devopsexpertlearning/mcp-search-server's `node -e
  // "process.exit(0)"`) checks nothing of the server, as a Docker health check of that kind.
  const probes = (['livenessProbe', 'readinessProbe'] as const).filter((k) => c[k] !== undefined);
  const noOp = (k: string) => {
    const command = getPath(c, [k, 'exec', 'command']);
    return Array.isArray(command) && checksNothing(command.map(String).join(' '));
  };
  const real = probes.find((k) => !noOp(k));
  sheet.set(
    'container.healthcheck',
    real !== undefined,
    at(...cp, real ?? probes[0] ?? 'name'),
    real
      ? 'liveness or readiness probe'
      : probes.length
        ? `the ${probes.join(' and ')} can never fail: ${probes.length > 1 ? 'their commands check' : 'its command checks'} nothing of the server`
        : 'no liveness or readiness probe',
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
  // The container's environment as the files give it: env values, the ConfigMaps they and envFrom name, the image's ENV.
  const given = containerEnv(
    w,
    set.objects.filter((o) => o.kind === 'ConfigMap'),
  );
  const env = Object.fromEntries([...given].filter(([, v]) => v.value !== '(from a reference)').map(([k, v]) => [k, v.value]));
  const envAt = (k: string) => given.get(k)!.at;
  tlsVerification(sheet, env, envAt);
  hostCheckOffByVariable(sheet, env, envAt);
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
