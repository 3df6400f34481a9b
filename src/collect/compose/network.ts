// Who can reach a Compose server and where it can reach: the networks it shares, internal or not.
import type { Context } from '../context.js';
import type { FactSheet } from '../sheet.js';
import { type ComposeProject, isObj, type Obj } from './load.js';
import { isExternal, loopbackHostPorts, type Svc } from './service.js';

export function ingressRestricted(sheet: FactSheet, srv: Svc, proxy: Svc, svcs: Svc[], project: ComposeProject): void {
  // Only the proxy (and datastores the server itself uses) share a network with the server.
  const others = svcs.filter(
    (v) => v !== srv && v !== proxy && !v.oneShot && v.networks.some((n) => srv.networks.includes(n)) && v.role?.kind !== 'datastore',
  );
  if (others.length)
    sheet.set(
      'exposure.ingress_restricted_to_proxy',
      false,
      others[0]!.s.at('networks'),
      `${others.map((o) => o.s.name).join(', ')} share a network with the server`,
    );
  else {
    // An external network is shared with whatever else was attached to it outside these files.
    const external = srv.networks.find((n) => isExternal(project, n));
    if (external) {
      sheet.undecided(
        'exposure.ingress_restricted_to_proxy',
        `network ${external} is external: containers outside these files may share it with the server`,
      );
      return;
    }
    const net = srv.networks.find((n) => proxy.networks.includes(n))!;
    sheet.set(
      'exposure.ingress_restricted_to_proxy',
      true,
      project.networkAt(net),
      `only ${proxy.s.name} (and datastores the server uses) share a network with the server`,
    );
  }
}

export function egress(sheet: FactSheet, srv: Svc, project: ComposeProject): void {
  const spec = srv.s.spec;
  if (spec['network_mode'] === 'none') {
    sheet.set('egress.network_restricted', true, srv.s.at('network_mode'), 'network_mode: none');
    sheet.set('egress.cloud_metadata_credentials_reachable', false, srv.s.at('network_mode'), 'no network');
    return;
  }
  // The host's own network, open as the host is (as a client entry's `docker run --network host`).
  if (spec['network_mode'] === 'host') {
    sheet.set(
      'egress.network_restricted',
      false,
      srv.s.at('network_mode'),
      "network_mode: host: the host's own network, open as the host is",
    );
    return;
  }
  if (spec['network_mode'] !== undefined) {
    sheet.undecided('egress.network_restricted', `network_mode: ${String(spec['network_mode'])}`);
    return;
  }
  const def = (n: string) => (isObj(project.networks[n]) ? (project.networks[n] as Obj) : {});
  const notInternal = srv.networks.filter((n) => def(n)['internal'] !== true);
  // An external network was created outside the project (docker network create): whether it is internal is not in the files.
  const external = notInternal.filter((n) => isExternal(project, n));
  const open = notInternal.filter((n) => !external.includes(n));
  if (!open.length && external.length) {
    const why = `network ${external[0]} is external: created outside these files, which do not say whether it is internal`;
    sheet.undecided('egress.network_restricted', why);
    sheet.undecided('egress.cloud_metadata_credentials_reachable', why);
  } else if (open.length) {
    sheet.set(
      'egress.network_restricted',
      false,
      open[0] === 'default' ? srv.s.at() : project.networkAt(open[0]!),
      `network ${open[0]} is not internal: the server can open connections anywhere`,
    );
    sheet.undecided(
      'egress.cloud_metadata_credentials_reachable',
      "the server has a way out; whether a metadata service answers depends on the host's cloud",
    );
  } else {
    sheet.set(
      'egress.network_restricted',
      true,
      project.networkAt(srv.networks[0]!),
      `every network of the server is internal: ${srv.networks.join(', ')}`,
    );
    sheet.set(
      'egress.cloud_metadata_credentials_reachable',
      false,
      project.networkAt(srv.networks[0]!),
      'internal networks have no route out, to a metadata service either',
    );
  }
}

/**
 * A proxy on the host (a configuration among the files that no container of the project reads)
 * that forwards to a port the server publishes on loopback (mabi8/mcp-stack's nginx for
 * box.makkib.com, `proxy_pass http://127.0.0.1:9543`): loopback alone no longer decides who
 * reaches it, and the host's proxy is not read as this deployment's.
 */
export function hostProxyInFront(ctx: Context, sheet: FactSheet, srv: Svc, containerFiles: ReadonlySet<string>): void {
  const ports = loopbackHostPorts(srv);
  if (!ports.length) return;
  const re = new RegExp(
    `(proxy_pass\\s+https?://|reverse_proxy\\s+(https?://)?|^\\s*server\\s+|\\bto\\s+(https?://)?)(127\\.0\\.0\\.1|localhost|\\[::1\\]):(${ports.join('|')})\\b`,
  );
  for (const f of ctx.inputs.all()) {
    const kind = ctx.kinds.get(f.path);
    if ((kind !== 'nginx' && kind !== 'caddyfile') || containerFiles.has(f.path)) continue;
    const lines = f.text.split('\n');
    const i = lines.findIndex((l) => !/^\s*#/.test(l) && re.test(l));
    if (i < 0) continue;
    const target = re.exec(lines[i]!)!;
    const why = `${f.path}:${i + 1} forwards to ${target[4]}:${target[5]}, the port ${srv.s.name} publishes on loopback: a proxy on the host may put it on the network`;
    for (const path of [
      'exposure.reachable_from_internet',
      'exposure.endpoint_address_class',
      'exposure.behind_reverse_proxy',
      'exposure.ingress_restricted_to_proxy',
    ])
      if (sheet.has(path)) sheet.reopen(path, why);
    // Plain HTTP on loopback says nothing of the endpoint clients use: that proxy may terminate TLS.
    if (sheet.get('tls.enabled') === false) sheet.reopen('tls.enabled', why);
    return;
  }
}
