// Traefik in front of a Compose service, configured by the service's Docker labels (the docker
// provider): the routers that send to the service, their TLS, and the middlewares they use
// (ratelimit, headers, basicauth). https://doc.traefik.io/traefik/providers/docker/
import { basicAuthMethod } from './docker-defaults.js';
import type { ProxyContext } from './nginx-facts.js';
import type { At, FactSheet } from './sheet.js';

/** Labels in either form (list of `k=v` or a map), with the line of each. */
export type Labels = Map<string, { value: string; at: At }>;

export const traefikEnabled = (labels: Labels) =>
  labels.get('traefik.enable')?.value === 'true' || [...labels.keys()].some((k) => k.startsWith('traefik.http.routers.'));

export function traefikFacts(sheet: FactSheet, labels: Labels, pc: ProxyContext): void {
  const routers = new Map<string, Map<string, { value: string; at: At }>>();
  const middlewares = new Map<string, Map<string, { value: string; at: At }>>();
  for (const [k, v] of labels) {
    const r = /^traefik\.http\.routers\.([^.]+)\.(.+)$/.exec(k);
    if (r) (routers.get(r[1]!) ?? routers.set(r[1]!, new Map()).get(r[1]!)!).set(r[2]!, v);
    const m = /^traefik\.http\.middlewares\.([^.]+)\.(.+)$/.exec(k);
    if (m) (middlewares.get(m[1]!) ?? middlewares.set(m[1]!, new Map()).get(m[1]!)!).set(m[2]!.toLowerCase(), v);
  }
  if (!routers.size) return;
  const first = [...routers.values()][0]!;
  const anyAt = (first.get('rule') ?? [...first.values()][0]!).at;
  sheet.set(
    'exposure.behind_reverse_proxy',
    true,
    anyAt,
    `Traefik routes ${[...routers.keys()].join(', ')} to the service (docker labels)`,
  );
  if (pc.facesClients) {
    const tls = [...routers.values()].every((r) => r.get('tls')?.value === 'true' || r.has('tls.certresolver') || r.has('tls.options'));
    sheet.set(
      'tls.enabled',
      tls,
      anyAt,
      tls ? 'every router of the service has tls' : 'a router of the service has no tls: plain HTTP reaches it',
    );
  }
  const used = [...routers.values()].flatMap((r) =>
    (r.get('middlewares')?.value ?? '')
      .split(',')
      .map((s) => s.trim().replace(/@docker$/, ''))
      .filter(Boolean),
  );
  for (const name of used) {
    const mw = middlewares.get(name);
    if (!mw) continue;
    const avg = mw.get('ratelimit.average');
    if (avg) {
      sheet.set('rate_limit.enabled', true, avg.at, `Traefik ratelimit middleware ${name}`);
      const period = /^(\d+)(s|m|h)?$/.exec(mw.get('ratelimit.period')?.value ?? '1s');
      if (period) {
        const secs = Number(period[1]) * (period[2] === 'h' ? 3600 : period[2] === 'm' ? 60 : 1);
        if (secs > 0)
          sheet.set(
            'rate_limit.per_minute',
            Math.floor((Number(avg.value) * 60) / secs),
            avg.at,
            `average ${avg.value} per ${mw.get('ratelimit.period')?.value ?? '1s'}`,
          );
      }
      // Traefik counts by the remote address unless a sourcecriterion says otherwise.
      if (![...mw.keys()].some((k) => k.startsWith('ratelimit.sourcecriterion')))
        sheet.set('rate_limit.scope', 'ip', avg.at, 'Traefik limits per remote address by default');
    }
    const sts = mw.get('headers.stsseconds');
    if (sts && pc.facesClients) sheet.set('tls.hsts', Number(sts.value) >= 15552000, sts.at, `stsSeconds ${sts.value}`);
    const origins = mw.get('headers.accesscontrolalloworiginlist');
    if (
      origins?.value
        .split(',')
        .map((s) => s.trim())
        .includes('*')
    )
      sheet.set('http.cors_allow_any_origin', true, origins.at, 'accessControlAllowOriginList *');
    const basic = mw.get('basicauth.users') ?? mw.get('basicauth.usersfile');
    if (basic) {
      sheet.set('authentication.required', true, basic.at, `basicAuth middleware ${name}`);
      const users =
        mw
          .get('basicauth.users')
          ?.value.split(',')
          .filter((u) => u.trim()).length ?? null;
      basicAuthMethod(sheet, basic.at, users, `basicAuth middleware ${name}`);
    }
  }
  if (pc.platform === 'compose')
    sheet.set('tls.backend_hop', 'same_host', anyAt, 'Traefik reaches the service over a bridge network of one Compose host');
}
