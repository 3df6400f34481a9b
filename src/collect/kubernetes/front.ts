import { type Context, render } from '../context.js';
import { CNI_HOP } from '../docker-defaults.js';
import { dirOf } from '../inputs.js';
import { NginxConfig } from '../nginx.js';
import { nginxFacts } from '../nginx-facts.js';
import type { At, FactSheet } from '../sheet.js';
import { getPath, type K8sObject } from './load.js';
import { arr, isObj, type Obj } from './values.js';
import type { Workload } from './workloads.js';

/**
 * A Knative Service: the platform routes to it and scales it, not the objects among the files.
 * Its Kourier, Istio or Cloud Run front end faces clients on a domain configured with the
 * cluster (or the Cloud Run service), unless the label makes it cluster-local.
 */
export function knativeFacts(sheet: FactSheet, w: Workload): void {
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

export function endpoint(sheet: FactSheet, exposed: K8sObject | undefined, routed: K8sObject[], svcs: K8sObject[]): void {
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

/**
 * Whether clients reach the server through this route only over TLS: an Ingress with a `tls`
 * section; an OpenShift Route terminating TLS (edge, reencrypt, passthrough) without
 * insecureEdgeTerminationPolicy Allow; a Traefik IngressRoute with a `tls` section, while one
 * without leaves it to its entry points, whose TLS and redirections are Traefik's static
 * configuration. `on` null: the files do not say.
 */
export function routeTls(r: K8sObject): { on: boolean | null; at: At; why: string } | null {
  const tls = getPath(r.value, ['spec', 'tls']);
  if (r.kind === 'Ingress') {
    const on = arr(tls).length > 0;
    // ingress-nginx's `ssl-redirect: "false"` serves the hosts of a tls section in plain HTTP too.
    const notes = (getPath(r.value, ['metadata', 'annotations']) as Obj | undefined) ?? {};
    const redirect = notes['nginx.ingress.kubernetes.io/ssl-redirect'];
    // force-ssl-redirect "true" redirects whatever ssl-redirect says.
    const forced = String(notes['nginx.ingress.kubernetes.io/force-ssl-redirect']).toLowerCase() === 'true';
    if (on && String(redirect).toLowerCase() === 'false' && !forced)
      return {
        on: false,
        at: r.at('metadata', 'annotations', 'nginx.ingress.kubernetes.io/ssl-redirect'),
        why: `Ingress ${r.name}: ssl-redirect "false" serves its hosts in plain HTTP beside TLS`,
      };
    return { on, at: r.at('spec', on ? 'tls' : 'rules'), why: on ? 'the Ingress terminates TLS' : 'the Ingress has no tls section' };
  }
  if (r.kind === 'Route') {
    const termination = isObj(tls) ? String(tls['termination'] ?? '').toLowerCase() : '';
    const insecure = isObj(tls) ? String(tls['insecureEdgeTerminationPolicy'] ?? 'None') : 'None';
    return {
      on: termination !== '' && insecure !== 'Allow',
      at: r.at('spec', termination ? 'tls' : 'to'),
      why:
        termination === ''
          ? `Route ${r.name} has no tls: the router serves it in plain HTTP`
          : insecure === 'Allow'
            ? `Route ${r.name}: insecureEdgeTerminationPolicy Allow serves plain HTTP too`
            : `Route ${r.name}: TLS ${termination} at the router, no plain HTTP (insecureEdgeTerminationPolicy ${insecure})`,
    };
  }
  if (r.kind === 'IngressRoute') {
    if (isObj(tls))
      return {
        on: true,
        at: r.at('spec', 'tls'),
        why: `IngressRoute ${r.name} has a tls section: Traefik serves its routes over TLS only`,
      };
    const listed = getPath(r.value, ['spec', 'entryPoints']);
    const entryPoints = Array.isArray(listed) ? listed.map(String) : [];
    return {
      on: null,
      at: r.at(),
      why: `IngressRoute ${r.name} has no tls section: whether its entry points (${entryPoints.join(', ') || 'all of them'}) serve TLS, or redirect plain HTTP, is in Traefik's static configuration, not in these files`,
    };
  }
  return null;
}

/** OpenShift Route: the hop to the pod by its termination. */
function routeHop(sheet: FactSheet, route: K8sObject): void {
  const tls = getPath(route.value, ['spec', 'tls']);
  const termination = isObj(tls) ? String(tls['termination'] ?? '').toLowerCase() : '';
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

/**
 * What the routes in front of the server decide (Ingresses, OpenShift Routes, Traefik
 * IngressRoutes): TLS by the weakest of them, since a client may take any; the rest from the first.
 */
export function ingressFacts(sheet: FactSheet, routed: K8sObject[]): void {
  const tls = routed.map(routeTls).filter((t) => t !== null);
  const plain = tls.find((t) => t.on === false);
  const open = tls.find((t) => t.on === null);
  if (plain) sheet.set('tls.enabled', false, plain.at, plain.why);
  else if (open) sheet.undecided('tls.enabled', open.why);
  else if (tls.length) sheet.set('tls.enabled', true, tls[0]!.at, tls[0]!.why);
  // ingress-nginx's enable-cors answers with cors-allow-origin, `*` unless set (yskale/redis_mcp_server).
  for (const r of routed.filter((x) => x.kind === 'Ingress')) {
    const ann = (getPath(r.value, ['metadata', 'annotations']) ?? {}) as Obj;
    const origin = String(ann['nginx.ingress.kubernetes.io/cors-allow-origin'] ?? '*').trim();
    if (String(ann['nginx.ingress.kubernetes.io/enable-cors']) === 'true' && origin === '*') {
      sheet.set(
        'http.cors_allow_any_origin',
        true,
        r.at('metadata', 'annotations', 'nginx.ingress.kubernetes.io/enable-cors'),
        `Ingress ${r.name}: enable-cors with ${ann['nginx.ingress.kubernetes.io/cors-allow-origin'] === undefined ? 'no cors-allow-origin (ingress-nginx answers *)' : 'cors-allow-origin *'}`,
      );
      break;
    }
  }
  const ing = routed[0]!;
  if (ing.kind === 'Route') {
    routeHop(sheet, ing);
    // cert-manager's OpenShift Routes support (redhat-ai-tools/ocm-mcp's template: `cert-manager.io/issuer-name`
    // on an edge Route) issues the Route's certificate and renews it.
    const ann = (getPath(ing.value, ['metadata', 'annotations']) ?? {}) as Obj;
    if (
      isObj(getPath(ing.value, ['spec', 'tls'])) &&
      Object.keys(ann).some((k) => /^cert-manager\.io\/(issuer-name|issuer|cluster-issuer)$/.test(k))
    )
      sheet.set(
        'tls.certificate_auto_renewal',
        true,
        ing.at('metadata', 'annotations'),
        'cert-manager issues and renews the Route certificate',
      );
    return;
  }
  if (ing.kind === 'IngressRoute') sheet.undecided('tls.backend_hop', CNI_HOP);
  if (ing.kind !== 'Ingress') return;
  const hasTls = arr(getPath(ing.value, ['spec', 'tls'])).length > 0;
  const ann = (getPath(ing.value, ['metadata', 'annotations']) ?? {}) as Obj;
  const a = (k: string) => (ann[k] === undefined ? undefined : String(ann[k]));
  const rpm = a('nginx.ingress.kubernetes.io/limit-rpm');
  const rps = a('nginx.ingress.kubernetes.io/limit-rps');
  if (rpm || rps) {
    sheet.set('rate_limit.enabled', true, ing.at('metadata', 'annotations'), 'ingress-nginx limit annotations');
    // Both set, ingress-nginx applies both: the lower per minute binds (sapientpants/sonarqube-mcp-server's 100 rps and 1000 rpm).
    const limits = [
      ...(rps ? [{ n: Number(rps) * 60, key: 'nginx.ingress.kubernetes.io/limit-rps', why: `limit-rps ${rps}` }] : []),
      ...(rpm ? [{ n: Number(rpm), key: 'nginx.ingress.kubernetes.io/limit-rpm', why: `limit-rpm ${rpm}` }] : []),
    ].sort((x, y) => x.n - y.n);
    const lowest = limits[0]!;
    sheet.set(
      'rate_limit.per_minute',
      lowest.n,
      ing.at('metadata', 'annotations', lowest.key),
      limits.length > 1 ? `${lowest.why}, the lower of limit-rps and limit-rpm` : lowest.why,
    );
    sheet.set('rate_limit.scope', 'ip', ing.at('metadata', 'annotations'), 'ingress-nginx limits per client address');
  }
  if (a('nginx.ingress.kubernetes.io/backend-protocol') === 'HTTPS' && a('nginx.ingress.kubernetes.io/proxy-ssl-verify') === 'on')
    sheet.set('tls.backend_hop', 'encrypted', ing.at('metadata', 'annotations'), 'backend-protocol HTTPS with proxy-ssl-verify on');
  else sheet.undecided('tls.backend_hop', CNI_HOP);
  if (hasTls && (a('cert-manager.io/cluster-issuer') || a('cert-manager.io/issuer')))
    sheet.set(
      'tls.certificate_auto_renewal',
      true,
      ing.at('metadata', 'annotations'),
      'cert-manager issues and renews the Ingress certificate',
    );
}

export function configMapsOf(w: Workload, configMaps: K8sObject[]): K8sObject[] {
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

export function proxyFacts(
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
