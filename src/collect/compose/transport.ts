// Whether a Compose service speaks MCP over the network or on its stdin.

import { type ScriptCommand, scriptEnv } from '../entrypoint-script.js';
import { healthPortVariable } from '../health-ports.js';
import { asksHelp, idles } from '../roles.js';
import { isTransportVariable, transportNamed } from '../server-args.js';
import type { At, FactSheet } from '../sheet.js';
import { traefikHttpLabel } from '../traefik.js';
import { callsByUrl } from './calls.js';
import { Unresolved } from './interpolate.js';
import { isObj } from './load.js';
import { containerEnv, healthcheckOf, labelsOf, mcpLabels, type Svc, wordsOf } from './service.js';

/** Container ports of protocols other than HTTP: SSH, VNC, RDP, databases and brokers. */
const NOT_HTTP: Record<number, string> = {
  22: 'SSH',
  3389: 'RDP',
  5900: 'VNC',
  5901: 'VNC',
  5432: 'PostgreSQL',
  3306: 'MySQL',
  6379: 'Redis',
  27017: 'MongoDB',
  1433: 'SQL Server',
  5672: 'AMQP',
  53: 'DNS',
};

/**
 * Where every published port is another protocol's (HamCops/omarchy-dotfiles' `"5900:5900"  # VNC
 * port`, washyu/mcp_python_server's SSH on 22) or UDP, those ports as text; else null.
 */
function otherProtocolPorts(ports: unknown): string | null {
  const list = Array.isArray(ports) ? ports : [];
  const named: string[] = [];
  for (const p of list) {
    const text = p instanceof Unresolved ? null : isObj(p) ? null : String(p);
    const target = isObj(p) ? Number(p['target']) : Number(/(\d+)(\/\w+)?$/.exec(text ?? '')?.[1]);
    const udp = isObj(p) ? p['protocol'] === 'udp' : /\/udp$/.test(text ?? '');
    if (udp) named.push(`${target || '?'}/udp`);
    else if (NOT_HTTP[target]) named.push(`${target} (${NOT_HTTP[target]})`);
    else return null;
  }
  return named.length ? named.join(', ') : null;
}

/** Published ports that are each set by a variable named for health (`HEALTH_PORT=8087`), as `8087 (HEALTH_PORT)`; null otherwise. */
function healthOnlyPorts(ports: unknown, env: ReadonlyMap<string, string>): string | null {
  const list = Array.isArray(ports) ? ports : [];
  const named: string[] = [];
  for (const p of list) {
    const text = p instanceof Unresolved ? null : isObj(p) ? null : String(p);
    const target = isObj(p) ? String(p['target'] ?? '') : (/(\d+)(\/\w+)?$/.exec(text ?? '')?.[1] ?? '');
    const variable = target ? healthPortVariable(target, env) : null;
    if (!variable) return null;
    named.push(`${target}, ${variable}`);
  }
  return named.length ? named.join('; ') : null;
}

/**
 * Whether the service speaks MCP over the network or on its stdin. A published port or a proxy in
 * front says network; without them, `docker compose run --rm server` attached to a client's stdio
 * is a stdio server (BeehiveInnovations/zen-mcp-server's compose file), so it takes the command
 * line, `stdin_open`, EXPOSE or `expose:`, another service's URL for it, or an HTTP health check.
 */
export function transport(
  sheet: FactSheet,
  srv: Svc,
  svcs: Svc[],
  entryPorts: { kind: string; at: At },
  proxy: Svc | undefined,
  run: { at: At; parts: unknown[] },
  script: ScriptCommand | null,
): void {
  const spec = srv.s.spec;
  // What the launcher script exports reaches the command it hands over to, over the container's.
  const env = scriptEnv(containerEnv(srv), script);
  const ownWords = transportNamed(wordsOf(run.parts), env);
  // Else a Docker-label MCP gateway's `mcp.transport` label, which it starts the server by.
  const label = mcpLabels(srv).transport;
  const named =
    ownWords ??
    (script && !script.branch ? transportNamed(script.words, scriptEnv(new Map(), script)) : null) ??
    (label
      ? {
          kind: label.value === 'stdio' ? ('stdio' as const) : ('http' as const),
          why: `its label mcp.transport says ${label.value}`,
          sse: label.value === 'sse',
        }
      : null);
  // What the container runs, the image's CMD where the service sets none (scogonw/mcp-proxmox's `CMD ["sleep", "infinity"]`).
  const idle = proxy
    ? null
    : (idles(spec['entrypoint'], spec['command']) ??
      (spec['entrypoint'] === undefined && spec['command'] === undefined ? idles(...run.parts) : null));
  // The whole command line, not arguments after an ENTRYPOINT whose default they are.
  const ownLine = spec['entrypoint'] === undefined && !srv.df?.entrypointOnly.length;
  const runWords = wordsOf(run.parts);
  if (!proxy && ownLine && asksHelp(runWords)) {
    sheet.undecided(
      'transport.kind',
      `${srv.s.name} runs ${runWords.join(' ')}, which prints its help and exits: no server listens or reads stdin as written`,
    );
    return;
  }
  if (idle) {
    sheet.undecided(
      'transport.kind',
      `${srv.s.name} only idles (${idle}): a server runs in it when started there, as a client's docker exec -i does, and which transport it then speaks is not in the files`,
    );
    return;
  }
  if (proxy) {
    // A proxy routes to a server its own command starts on stdio (aRustyDev/dotfiles' Traefik label
    // beside `--transport=stdio`): the files write both, and nothing says which one runs.
    if (named?.kind === 'stdio' && !named.variable)
      sheet.undecided(
        'transport.kind',
        `${proxy.s.name} forwards to ${srv.s.name}, which is ${named.why}: the files write both, and which transport runs is not in them`,
      );
    else sheet.set('transport.kind', 'http', srv.s.at(), 'a network service: a port is published or a proxy forwards to it');
    return;
  }
  // `TRANSPORT=${TRANSPORT:-sse}` with the .env it reads not among the files (devopsifyco/check-mcp,
  // whose server takes stdio too), or a switch set from the operator's environment
  // (zereight/gitlab-mcp's `SSE=${SSE}`, `STREAMABLE_HTTP=${STREAMABLE_HTTP}`): the transport is the
  // operator's, whatever the port says.
  const env0 = isObj(spec['environment']) ? spec['environment'] : {};
  const switchVar = (k: string) => isTransportVariable(k) || /^(MCP_|USE_|ENABLE_)?(SSE|STREAMABLE_HTTP|HTTP_MODE)$/i.test(k);
  const open = named
    ? undefined
    : Object.keys(env0).find((k) => {
        const v = env0[k];
        return switchVar(k) && v instanceof Unresolved && (v.opaque || !v.fallback);
      });
  if (open) {
    const v = env0[open] as Unresolved;
    sheet.undecided(
      'transport.kind',
      v.opaque
        ? `${open} comes from a .env the files do not hold (${v.asEmpty || 'no default'} by default): which transport the server speaks is set there`
        : `${open} comes from the operator's environment (${v.variables.join(', ')}): which transport the server speaks is set there`,
    );
    return;
  }
  // A published port says network unless the command names the transport. Beside `stdin_open`
  // with nothing named, either is written: LAB271/mcp-studies' graphdb spike publishes 8000 and
  // keeps stdin open for a server whose `mcp.run()` defaults to stdio.
  if (entryPorts.kind !== 'none' && !named) {
    const other = otherProtocolPorts(spec['ports']);
    const health = proxy ? null : healthOnlyPorts(spec['ports'], containerEnv(srv));
    if (health)
      sheet.undecided(
        'transport.kind',
        `${srv.s.name} publishes only its health port (${health}), and its command names no transport: whether it serves MCP on the network is in its code`,
      );
    else if (other)
      sheet.undecided(
        'transport.kind',
        `${srv.s.name} publishes only ${other}, no HTTP port, and its command names no transport: whether it serves MCP on the network is in its code`,
      );
    else if (spec['stdin_open'] === true)
      sheet.undecided(
        'transport.kind',
        `${srv.s.name} publishes a port and keeps its stdin open (stdin_open: true), and its command names no transport: which one the server speaks is in its code`,
      );
    else sheet.set('transport.kind', 'http', entryPorts.at, 'a network service: a port is published or a proxy forwards to it');
    return;
  }
  if (named) {
    const at = named.variable
      ? script?.env.has(named.variable)
        ? script.env.get(named.variable)!.at
        : isObj(spec['environment']) && named.variable in spec['environment']
          ? srv.s.at('environment', named.variable)
          : (srv.df?.envAt.get(named.variable) ?? srv.s.at())
      : ownWords
        ? run.at
        : script && !script.branch && transportNamed(script.words, scriptEnv(new Map(), script))
          ? script.at
          : (label?.at ?? run.at);
    sheet.set('transport.kind', named.kind, at, named.why);
    if (named.sse) sheet.set('transport.legacy_sse', true, at, `${named.why}: the deprecated HTTP+SSE transport`);
    return;
  }
  if (spec['stdin_open'] === true) {
    sheet.set('transport.kind', 'stdio', srv.s.at('stdin_open'), 'stdin_open: true keeps its stdin open for a client attached to it');
    return;
  }
  const expose =
    Array.isArray(spec['expose']) && spec['expose'].length
      ? spec['expose'].map((p) => (p instanceof Unresolved ? p.asEmpty : String(p)))
      : null;
  if (expose) {
    sheet.set('transport.kind', 'http', srv.s.at('expose'), `expose: ${expose.join(', ')}: it serves on the container network`);
    return;
  }
  if (srv.df?.expose) {
    sheet.set('transport.kind', 'http', srv.df.expose.at, `EXPOSE ${srv.df.expose.ports} in its image: it serves on the container network`);
    return;
  }
  // Labels that route a Traefik outside the files to it (Maicon-Bartoski-Saas/mcp-server's docker-stack.yml,
  // on the external network `cloud`): Traefik forwards HTTP.
  const routed = traefikHttpLabel(labelsOf(srv, 'both'));
  if (routed) {
    sheet.set('transport.kind', 'http', routed.at, `its label ${routed.key} has Traefik forward HTTP to it`);
    return;
  }
  const caller = svcs.find((v) => v !== srv && callsByUrl(v, srv.s.name));
  if (caller) {
    sheet.set('transport.kind', 'http', caller.s.at(), `service ${caller.s.name} calls it by URL`);
    return;
  }
  const hc = healthcheckOf(srv);
  if (hc && /\bhttps?:\/\/(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)\b/.test(hc.test)) {
    sheet.set('transport.kind', 'http', hc.at, 'its health check fetches a URL it serves');
    return;
  }
  sheet.undecided(
    'transport.kind',
    `${srv.s.name} publishes no port, exposes none and nothing forwards to it or calls it: a stdio server that a client starts with \`docker compose run\` looks the same`,
  );
}
