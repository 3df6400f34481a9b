// Traefik in front of a Compose service, configured by the service's Docker labels (the docker
// provider): the routers that send to the service, their TLS, and the middlewares they use
// (ratelimit, headers, basicauth). https://doc.traefik.io/traefik/providers/docker/

import { isObject } from '../shared/json.js';
import { basicAuthMethod } from './docker-defaults.js';
import type { TextFile } from './inputs.js';
import type { ProxyContext } from './nginx-facts.js';
import type { At, FactSheet } from './sheet.js';
import { readYaml } from './yaml-lines.js';

/**
 * The middlewares Traefik's file provider reads from its dynamic configuration (YAML), as the
 * labels the docker provider would carry, named `NAME@file` as routers refer to them
 * (atrawog/mcp-oauth-gateway's `mcp-cors@file` with `accessControlAllowOriginList: ["*"]`).
 */
export function fileMiddlewares(files: TextFile[]): Labels {
  const out: Labels = new Map();
  for (const f of files.filter((x) => /\.ya?ml$/i.test(x.path))) {
    for (const doc of readYaml(f.text)) {
      const all = isObject(doc.value) && isObject(doc.value['http']) ? doc.value['http']['middlewares'] : undefined;
      if (!isObject(all)) continue;
      for (const [name, mw] of Object.entries(all)) {
        if (!isObject(mw)) continue;
        for (const [type, options] of Object.entries(mw)) {
          if (!isObject(options)) continue;
          for (const [key, value] of Object.entries(options)) {
            if (value !== null && typeof value === 'object' && !Array.isArray(value)) continue;
            out.set(`traefik.http.middlewares.${name}@file.${type}.${key}`, {
              value: Array.isArray(value) ? value.map(String).join(',') : String(value),
              at: { file: f.path, line: doc.line(['http', 'middlewares', name, type, key]) },
            });
          }
        }
      }
    }
  }
  return out;
}

/** Labels in either form (list of `k=v` or a map), with the line of each. */
export type Labels = Map<string, { value: string; at: At }>;

export const traefikEnabled = (labels: Labels) =>
  labels.get('traefik.enable')?.value === 'true' || [...labels.keys()].some((k) => k.startsWith('traefik.http.routers.'));

/**
 * The label by which Traefik routes HTTP to the container: a `traefik.http.` router or service, or
 * `traefik.enable=true` alone (the provider's default router is HTTP); null for TCP or UDP routes only.
 */
export function traefikHttpLabel(labels: Labels): { key: string; at: At } | null {
  const keys = [...labels.keys()];
  const http = keys.find((k) => k.startsWith('traefik.http.'));
  if (http) return { key: http, at: labels.get(http)!.at };
  const enable = labels.get('traefik.enable');
  if (enable?.value === 'true' && !keys.some((k) => /^traefik\.(tcp|udp)\./.test(k))) return { key: 'traefik.enable', at: enable.at };
  return null;
}

/**
 * `shared`: the labels of every container of the project, and the file provider's middlewares
 * (fileMiddlewares). Traefik keeps one set of middlewares for all routers: a router may use one
 * another container defines (the Traefik container's `redirect-to-https`, atrawog/mcp-oauth-gateway).
 */
export function traefikFacts(sheet: FactSheet, labels: Labels, pc: ProxyContext, shared: Labels[] = []): void {
  const routers = new Map<string, Map<string, { value: string; at: At }>>();
  const middlewares = new Map<string, Map<string, { value: string; at: At }>>();
  for (const [k, v] of labels) {
    const r = /^traefik\.http\.routers\.([^.]+)\.(.+)$/.exec(k);
    if (r) (routers.get(r[1]!) ?? routers.set(r[1]!, new Map()).get(r[1]!)!).set(r[2]!, v);
  }
  for (const set of [labels, ...shared])
    for (const [k, v] of set) {
      const m = /^traefik\.http\.middlewares\.([^.]+)\.(.+)$/.exec(k);
      if (m && !(set !== labels && middlewares.get(m[1]!)?.has(m[2]!.toLowerCase())))
        (middlewares.get(m[1]!) ?? middlewares.set(m[1]!, new Map()).get(m[1]!)!).set(m[2]!.toLowerCase(), v);
    }
  const uses = (r: Map<string, { value: string; at: At }>) =>
    (r.get('middlewares')?.value ?? '')
      .split(',')
      .map((s) => s.trim().replace(/@docker$/, ''))
      .filter(Boolean);
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
    const hasTls = (r: Map<string, { value: string; at: At }>) =>
      r.get('tls')?.value === 'true' || r.has('tls.certresolver') || r.has('tls.options');
    // A plain router whose middleware redirects to https serves nothing over plain HTTP.
    const redirects = (r: Map<string, { value: string; at: At }>) =>
      uses(r).some((name) => middlewares.get(name)?.get('redirectscheme.scheme')?.value === 'https');
    const plain = [...routers.entries()].filter(([, r]) => !hasTls(r) && !redirects(r));
    // One defined by another provider (`redirect@file`) may redirect too: its definition is not in the labels.
    const elsewhere = plain.filter(([, r]) => uses(r).some((name) => !middlewares.has(name)));
    if (plain.length && elsewhere.length === plain.length)
      sheet.undecided(
        'tls.enabled',
        `router ${elsewhere[0]![0]} has no tls and uses middleware defined outside the labels (${uses(elsewhere[0]![1]).join(', ')}): whether it only redirects to https is not shown`,
      );
    else
      sheet.set(
        'tls.enabled',
        !plain.length,
        plain[0]?.[1].get('rule')?.at ?? anyAt,
        plain.length
          ? `router ${plain[0]![0]} has no tls: plain HTTP reaches the service`
          : 'every router of the service has tls, or only redirects to https',
      );
  }
  const used = [...routers.values()].flatMap(uses);
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

/**
 * Traefik's access log with the request headers kept: `--accesslog.fields.headers.defaultmode=keep`
 * (atrawog/mcp-oauth-gateway's traefik service) writes every header, the bearer token in
 * Authorization too, unless `--accesslog.fields.headers.names.Authorization` drops or redacts it.
 * Traefik drops headers by default. Its static options as flags or as TRAEFIK_* variables.
 */
export function traefikAccessLog(
  sheet: FactSheet,
  flags: string[],
  env: ReadonlyMap<string, string>,
  at: (flag: number | null) => At,
): void {
  const opts = new Map<string, { value: string; i: number | null }>();
  for (const [k, v] of env)
    if (/^TRAEFIK_ACCESSLOG(_|$)/i.test(k)) opts.set(k.slice('TRAEFIK_'.length).toLowerCase().replace(/_/g, '.'), { value: v, i: null });
  flags.forEach((w, i) => {
    const m = /^--(accesslog(?:\.[\w.-]+)?)(?:=(.*))?$/i.exec(w);
    if (m) opts.set(m[1]!.toLowerCase(), { value: m[2] ?? 'true', i });
  });
  const on =
    opts.get('accesslog')?.value.toLowerCase() !== 'false' && [...opts.keys()].some((k) => k === 'accesslog' || k.startsWith('accesslog.'));
  const mode = opts.get('accesslog.fields.headers.names.authorization') ?? opts.get('accesslog.fields.headers.defaultmode');
  if (on && mode?.value.toLowerCase() === 'keep')
    sheet.set(
      'logging.logs_authorization_header',
      true,
      at(mode.i),
      "Traefik's access log keeps the request headers, Authorization among them",
    );
}
