// Loose manifests kept by kind in sibling directories (k8s/deployments beside k8s/services) are
// applied together (`kubectl apply -R -f k8s/`, a deploy script): a directory whose workloads lack
// the Service, the route or the gateway resource another directory holds for them is read with it.
// Only what one directory lacks joins them, so alternatives (a dev and a prod directory), each whole,
// stay apart; and never where reading them together would define an object twice.
import { getPath, type K8sObject, podSpecPath } from './load.js';
import { isObj, type Obj, selects, stringsIn } from './values.js';
import { podLabels } from './workloads.js';

/** Kinds that route clients to a Service by its name. */
const ROUTE_KINDS = /^(Ingress|HTTPRoute|GRPCRoute|TLSRoute|TCPRoute|Route|IngressRoute|IngressRouteTCP|HTTPProxy|VirtualService)$/;
/** API groups of Kubernetes itself: any other group is a resource an operator or a gateway reads. */
const CORE_GROUP =
  /^(v1|(apps|batch|policy|autoscaling|networking\.k8s\.io|rbac\.authorization\.k8s\.io|storage\.k8s\.io|scheduling\.k8s\.io|coordination\.k8s\.io|discovery\.k8s\.io|admissionregistration\.k8s\.io|apiextensions\.k8s\.io|certificates\.k8s\.io|node\.k8s\.io)\/\w+)$/;

const namespaceOf = (o: K8sObject) => String(getPath(o.value, ['metadata', 'namespace']) ?? '');
/** A manifest without a namespace goes to the namespace it is applied in, which may be the other's. */
const sameNamespace = (a: K8sObject, b: K8sObject) => !namespaceOf(a) || !namespaceOf(b) || namespaceOf(a) === namespaceOf(b);

/** A Service with no selector selects no pod (its endpoints are set by hand). */
const selectsPod = (svc: K8sObject, labels: Obj) => {
  const sel = getPath(svc.value, ['spec', 'selector']);
  return isObj(sel) && Object.keys(sel).length > 0 && selects(sel, labels);
};

/**
 * The Service's cluster address as another object writes it: `NAME.NAMESPACE.svc[.cluster.local]`.
 * A Service written without a namespace goes to the one it is applied in: any namespace may be its
 * (enzokamal/agentgateway-deployment's backend names `mcp-hubspot-service.agentgateway-system.svc`).
 */
export const clusterAddress = (svc: K8sObject): RegExp =>
  new RegExp(
    `(^|[/@\\s])${svc.name.replace(/[.]/g, '\\.')}\\.${namespaceOf(svc) ? namespaceOf(svc).replace(/[.]/g, '\\.') : '[a-z0-9]([-a-z0-9]*[a-z0-9])?'}\\.svc(\\.|:|/|$)`,
  );

/**
 * A gateway's or an operator's resource (a group other than Kubernetes' own) that names the
 * Service: its cluster address, or its name in a route of that resource (Traefik's IngressRoute).
 */
export function namesService(o: K8sObject, svc: K8sObject): boolean {
  if (CORE_GROUP.test(String(o.value['apiVersion'] ?? 'v1')) || !sameNamespaceOrAddressed(o, svc)) return false;
  const strings = stringsIn(o.value['spec']);
  return strings.some((s) => clusterAddress(svc).test(s)) || (ROUTE_KINDS.test(o.kind) && strings.includes(svc.name));
}

const sameNamespaceOrAddressed = (o: K8sObject, svc: K8sObject) =>
  sameNamespace(o, svc) || stringsIn(o.value['spec']).some((s) => clusterAddress(svc).test(s));

/** Why directory `b` holds what a workload of `a` lacks, if it does. */
function lacks(a: K8sObject[], b: K8sObject[]): string | null {
  const services = (objs: K8sObject[]) => objs.filter((o) => o.kind === 'Service');
  for (const w of a) {
    const spec = podSpecPath(w);
    if (!spec || w.kind === 'Job' || w.kind === 'CronJob') continue;
    const labels = podLabels(w, spec);
    const own = services(a).filter((s) => sameNamespace(s, w) && selectsPod(s, labels));
    if (!own.length) {
      const there = services(b).find((s) => sameNamespace(s, w) && selectsPod(s, labels));
      if (there) return `Service ${there.name} there selects ${w.kind} ${w.name}, which nothing here selects`;
      continue;
    }
    for (const s of own) {
      const routedHere = a.some((o) => (ROUTE_KINDS.test(o.kind) && stringsIn(o.value['spec']).includes(s.name)) || namesService(o, s));
      if (routedHere) continue;
      const route = b.find((o) => ROUTE_KINDS.test(o.kind) && sameNamespace(o, s) && stringsIn(o.value['spec']).includes(s.name));
      if (route) return `${route.kind} ${route.name} there routes to Service ${s.name}, which nothing here routes to`;
      const named = b.find((o) => namesService(o, s));
      if (named) return `${named.kind} ${named.name} there names Service ${s.name}, which nothing here routes to`;
    }
  }
  return null;
}

/**
 * The loose directories read together: each group's directories in order, with why each joined.
 * `clashes` says whether objects read as one set would define an object twice.
 */
export function linkedDirs(
  loose: Map<string, K8sObject[]>,
  clashes: (objects: K8sObject[]) => boolean,
): { dirs: string[]; objects: K8sObject[]; joined: { dir: string; with: string; why: string }[] }[] {
  const dirs = [...loose.keys()].sort();
  const group = new Map(dirs.map((d) => [d, [d]]));
  const joined = new Map(dirs.map((d) => [d, [] as { dir: string; with: string; why: string }[]]));
  const objectsOf = (ds: string[]) => ds.flatMap((d) => loose.get(d)!);
  for (const a of dirs)
    for (const b of dirs) {
      if (a === b || group.get(a) === group.get(b) || clashes(loose.get(a)!) || clashes(loose.get(b)!)) continue;
      const why = lacks(loose.get(a)!, loose.get(b)!);
      if (!why) continue;
      const merged = [...group.get(a)!, ...group.get(b)!].sort();
      if (clashes(objectsOf(merged))) continue;
      const notes = [...joined.get(a)!, ...joined.get(b)!, { dir: a, with: b, why }];
      for (const d of merged) {
        group.set(d, merged);
        joined.set(d, notes);
      }
    }
  const seen = new Set<string[]>();
  const out: { dirs: string[]; objects: K8sObject[]; joined: { dir: string; with: string; why: string }[] }[] = [];
  for (const d of dirs) {
    const g = group.get(d)!;
    if (seen.has(g)) continue;
    seen.add(g);
    out.push({ dirs: g, objects: objectsOf(g), joined: joined.get(d)! });
  }
  return out;
}
