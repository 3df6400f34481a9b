// The proxy's authenticator: a service the project's proxy asks about each request (Caddy
// `forward_auth`, what an nginx `auth_request` location proxies to, a Traefik forwardAuth
// middleware). Part of the edge, whatever SDK its build shares with the server
// (taewook486/real-estate-mcp's OAuth sidecar), unless a route whose path names MCP reaches it too.
import { literal } from '../../shared/regexp.js';
import type { Context } from '../context.js';
import { type ComposeProject, isObj } from './load.js';
import { composeDir, containerEnv, hostNames, type Svc, volumesOf } from './service.js';

/** The services the project's proxies authenticate with, each with the proxy that asks it. */
export function authenticatorsOf(ctx: Context, project: ComposeProject, svcs: Svc[], proxies: Svc[]): Map<string, string> {
  const out = new Map<string, string>();
  const traefik = proxies.find((p) => p.role?.kind === 'proxy' && p.role.product === 'traefik');
  // forwardAuth addresses in a Traefik dynamic configuration among the files (atrawog/mcp-oauth-gateway's
  // traefik/dynamic/middlewares.yml: `forwardAuth: address: "http://auth:8000/verify"`) and in labels.
  const fileAddresses = traefik
    ? ctx.inputs
        .all()
        .filter((f) => ctx.kinds.get(f.path) === 'traefik')
        .flatMap((f) => [...f.text.matchAll(/forwardAuth\s*:\s*\n\s+address\s*:\s*(\S+)/g)].map((m) => m[1]!))
    : [];
  for (const v of svcs) {
    if (v.role !== null) continue;
    const targets = (p: Svc) => hostNames(v, p);
    const by = proxies.find(
      (p) =>
        ctx.proxyAuthenticates(p.contextDir, volumesOf(p), targets(p), composeDir(project), containerEnv(p)) &&
        !ctx.proxyConfigNames(p.contextDir, volumesOf(p), targets(p), composeDir(project), containerEnv(p), 'route'),
    );
    const address = new RegExp(`://${literal(v.s.name)}([:/"']|$)`);
    const byLabel = svcs.find((o) =>
      Object.entries(isObj(o.s.spec['labels']) ? o.s.spec['labels'] : {}).some(
        ([k, val]) => /\.forwardauth\.address$/i.test(k) && address.test(String(val)),
      ),
    );
    const byFile = traefik && fileAddresses.some((a) => address.test(a)) ? traefik : undefined;
    const proxy = by ?? byLabel ?? byFile;
    if (proxy) out.set(v.s.name, proxy.s.name);
  }
  return out;
}
