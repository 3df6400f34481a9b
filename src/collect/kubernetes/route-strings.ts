// The hosts and paths by which a route reaches one Service: an Ingress that sends
// `mcp.example.com` to the MCP server and `example.com` to a dashboard (datanexum/databridge-mcp)
// names MCP for the server only.
import { getPath, type K8sObject } from './load.js';
import { arr, isObj, stringsIn } from './values.js';

/** A path that takes every request: `/`, `/*`, `/(.*)`. */
const CATCH_ALL = /^\/?(\*|\(\.\*\))?$/;

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
        if (to(p['backend'])) {
          // A host names what all of it serves; under a path of its own (`mcp.local` with `/api/(.*)`,
          // Chunkys0up7/MCP's REST backend) the path says what this rule sends there.
          const path = String(p['path'] ?? '/');
          out.push(...(CATCH_ALL.test(path) ? [String(rule['host'] ?? '')] : []), path);
        }
    return out;
  }
  if (route.kind === 'HTTPRoute') {
    const rules = arr(spec['rules']).filter((r) => to(r['backendRefs']));
    const paths = rules.flatMap((r) => stringsIn(r['matches']));
    const anyPath = rules.some((r) => !arr(r['matches']).length) || paths.every((x) => CATCH_ALL.test(x) || !x.startsWith('/'));
    return rules.length ? [...(anyPath ? stringsIn(spec['hostnames']) : []), ...paths] : [];
  }
  if (route.kind === 'IngressRoute')
    return arr(spec['routes'])
      .filter((r) => to(r['services']))
      .map((r) => String(r['match'] ?? ''));
  if (route.kind === 'Route')
    return to(spec['to']) || to(spec['alternateBackends']) ? [String(spec['host'] ?? ''), String(spec['path'] ?? '')] : [];
  return stringsIn(spec);
}
