// The hosts and paths by which a route reaches one Service: an Ingress that sends
// `mcp.example.com` to the MCP server and `example.com` to a dashboard (datanexum/databridge-mcp)
// names MCP for the server only.
import { getPath, type K8sObject } from './load.js';
import { arr, isObj, stringsIn } from './values.js';

/** The strings of a route that lead to Service `service`: its name when it is the route's, else the hosts and paths of its rules that send there. */
export function routeStringsTo(route: K8sObject, service: string): string[] {
  const spec = route.value['spec'];
  if (!isObj(spec)) return [];
  const to = (backend: unknown) => stringsIn(backend).includes(service);
  if (route.kind === 'Ingress') {
    const out: string[] = [];
    if (to(spec['defaultBackend'] ?? spec['backend'])) out.push('/');
    for (const rule of arr(spec['rules']))
      for (const p of arr(getPath(rule, ['http', 'paths'])))
        if (to(p['backend'])) out.push(String(rule['host'] ?? ''), String(p['path'] ?? '/'));
    return out;
  }
  if (route.kind === 'HTTPRoute') {
    const rules = arr(spec['rules']).filter((r) => to(r['backendRefs']));
    return rules.length ? [...stringsIn(spec['hostnames']), ...rules.flatMap((r) => stringsIn(r['matches']))] : [];
  }
  if (route.kind === 'IngressRoute')
    return arr(spec['routes'])
      .filter((r) => to(r['services']))
      .map((r) => String(r['match'] ?? ''));
  if (route.kind === 'Route')
    return to(spec['to']) || to(spec['alternateBackends']) ? [String(spec['host'] ?? ''), String(spec['path'] ?? '')] : [];
  return stringsIn(spec);
}
