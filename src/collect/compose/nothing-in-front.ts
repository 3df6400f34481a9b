// A Compose server no proxy of the project forwards to: whether one outside the files may, and
// whether the server serves TLS itself, from its own command and environment, a health check or
// a client of the stack.

import type { Context } from '../context.js';
import { tlsFlags, tlsVariables } from '../server-args.js';
import type { At, FactSheet } from '../sheet.js';
import { traefikHttpLabel } from '../traefik.js';
import { plainMcpUrl } from './calls.js';
import { plainHealthcheck } from './container.js';
import { envView, healthcheckOf, labelsOf, type Svc, wordsOf } from './service.js';

/**
 * A client configuration among the files that reaches the server at a port it publishes, in plain
 * HTTP on this machine (Azure-Samples/azure-ai-travel-agents' `.vscode/mcp.json`:
 * `http://localhost:5004/mcp` for `"5004:3000"`): what clients speak to it.
 */
function plainClientUrl(ctx: Context, published: { text: string }): { at: At; url: string } | null {
  const hostPorts = new Set(
    published.text
      .split(', ')
      .map((t) => t.split('/')[0]!.split(':'))
      .filter((parts) => parts.length >= 2)
      .map((parts) => parts.at(-2)!),
  );
  if (!hostPorts.size) return null;
  for (const f of ctx.inputs.all()) {
    if (ctx.kinds.get(f.path) !== 'mcp_client_config') continue;
    for (const m of f.text.matchAll(/"(?:url|serverUrl|httpUrl)"\s*:\s*"(http:\/\/(?:localhost|127\.0\.0\.1)(?::(\d+))?\/[^"]*)"/g))
      if (hostPorts.has(m[2] ?? '80')) return { at: { file: f.path, line: f.text.slice(0, m.index).split('\n').length }, url: m[1]! };
  }
  return null;
}

export function nothingInFront(
  ctx: Context,
  sheet: FactSheet,
  srv: Svc,
  svcs: Svc[],
  published: { kind: string; at: At; text: string },
  run: { at: At; parts: unknown[] },
): void {
  const at = srv.s.at();
  // Labels that route a Traefik the files do not hold to the server (a Swarm stack on an external
  // network): that Traefik may be in front, and may terminate TLS.
  const routed = svcs.some((v) => v.role?.kind === 'proxy' && v.role.product === 'traefik')
    ? null
    : traefikHttpLabel(labelsOf(srv, 'both'));
  const outside = routed && `its label ${routed.key} routes a Traefik the files do not hold to it`;
  if (outside && published.kind === 'none') {
    sheet.undecided('exposure.behind_reverse_proxy', outside);
    sheet.undecided('exposure.ingress_restricted_to_proxy', outside);
  } else {
    const none = outside ? `the server publishes port ${published.text} itself: clients can bypass the Traefik its labels name` : null;
    sheet.set('exposure.behind_reverse_proxy', false, none ? published.at : at, none ?? 'no proxy of the project forwards to the server');
    sheet.set(
      'exposure.ingress_restricted_to_proxy',
      false,
      none ? published.at : at,
      none ? 'a published server port is reachable without the proxy' : 'there is no proxy to restrict ingress to',
    );
  }
  // Nothing in front terminates TLS: the server's own certificate flags or variables, or plain HTTP
  // shown by a health check or by a client of the stack.
  const flag = tlsFlags(wordsOf(run.parts));
  const variable = flag ? null : tlsVariables(envView(srv.df, srv));
  const plain = flag || variable ? null : plainHealthcheck(srv, published);
  const caller = svcs
    .filter((v) => v !== srv)
    .map((v) => ({ v, url: plainMcpUrl(v, srv.s.name) }))
    .find((x): x is { v: Svc; url: string } => x.url !== null);
  const client = flag || variable || plain || caller ? null : plainClientUrl(ctx, published);
  if (flag) sheet.set('tls.enabled', true, run.at, `the server serves TLS itself (${flag} and its key)`);
  else if (variable)
    sheet.set('tls.enabled', true, variable.v.at, `the server serves TLS itself (${variable.name} and its key in its environment)`);
  else if (plain) sheet.set('tls.enabled', false, plain.at, plain.why);
  else if (outside) sheet.undecided('tls.enabled', `${outside}, which may terminate TLS`);
  else if (caller)
    sheet.set(
      'tls.enabled',
      false,
      caller.v.s.at(),
      `service ${caller.v.s.name} calls it at ${caller.url}, with nothing in front: the endpoint speaks plain HTTP`,
    );
  else if (!sheet.looked('tls.enabled') && client)
    sheet.set(
      'tls.enabled',
      false,
      client.at,
      `a client configuration reaches it at ${client.url}, a port it publishes, with nothing in front: plain HTTP`,
    );
  // supergateway has no TLS options: what it serves, nothing in front, is plain HTTP (stadiumphenom/primus_stack's 24 bridges).
  else if (
    !sheet.looked('tls.enabled') &&
    wordsOf(run.parts).some((w) => /^supergateway(@\S*)?$/.test(w.split('/').pop() ?? '')) &&
    wordsOf(run.parts).includes('--stdio')
  )
    sheet.set('tls.enabled', false, run.at, 'supergateway serves plain HTTP (it has no TLS options), and nothing fronts it');
  else if (!sheet.looked('tls.enabled')) {
    // A plain health check on one of several published ports (jrmatherly/mcp-hub-gateway's portal:
    // a UI on 3000, an API on 8080, `curl http://localhost:8080/api/health`) shows that port, not the MCP one.
    const hc = healthcheckOf(srv);
    sheet.undecided(
      'tls.enabled',
      hc &&
        published.kind !== 'none' &&
        published.text.split(', ').length > 1 &&
        /\bhttp:\/\/(localhost|127\.0\.0\.1|\[::1\])\b/.test(hc.test)
        ? `nothing fronts the server and neither its command nor its environment gives it a certificate; its health check fetches plain HTTP, but it publishes several ports (${published.text}) and which serves MCP is not in the files: whether that one serves TLS is in its code`
        : 'nothing fronts the server, and neither its command nor its environment gives it a certificate, nor does a health check show plain HTTP: whether it serves TLS is in its code',
    );
  }
}
