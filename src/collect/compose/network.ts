// Who can reach a Compose server and where it can reach: the networks it shares, internal or not.
import type { FactSheet } from '../sheet.js';
import { type ComposeProject, isObj, type Obj } from './load.js';
import { isExternal, type Svc } from './service.js';

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
