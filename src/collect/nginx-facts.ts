// The facts an nginx proxy in front of the MCP server decides: TLS at the edge, HSTS, rate and
// connection limits, the execution deadline, CORS, credentials in logs, the edge's error log,
// how it authenticates, and how it reaches the server. Directives are read as nginx inherits
// them (the innermost level that sets one wins; add_header as a whole list).
import { basicAuthMethod, CNI_HOP } from './docker-defaults.js';
import {
  absenceKnown,
  type Directive,
  effective,
  type LocationCtx,
  mapValues,
  type NginxConfig,
  proxiedLocations,
  unresolved,
  upstreams,
  walkAll,
  zones,
} from './nginx.js';
import { namesMcpHost, namesMcpRoute } from './roles.js';
import { type At, FactSheet } from './sheet.js';
import { addressOf } from './upstream-address.js';
import { weakestOf } from './weakest.js';

export interface ProxyContext {
  /** Host names the server is reached by (service name, Service DNS names). */
  targets: string[];
  platform: 'compose' | 'kubernetes' | 'host';
  /** The proxy faces clients itself (nothing in front of it among the files). */
  facesClients: boolean;
  /** Host names that are not the server: the project's other services. */
  elsewhere?: string[];
  /**
   * `targets` and `elsewhere` hold every name the proxy's network resolves (a Compose project on
   * no external network): a bare name that is neither resolves to nothing, not to the server.
   */
  closed?: boolean;
  /**
   * The server answers each call in one JSON body (Signet), so the proxy's read timeout bounds the
   * whole call; a server that may stream its answer (SSE, the MCP SDKs' default) resets it at each event.
   */
  answersInOnePiece?: boolean;
}

/** The locations that forward to one of `targets` (through an upstream block or directly); MCP routes first. */
export function mcpLocations(
  cfg: NginxConfig,
  targets: string[],
  elsewhere: string[] = [],
  closed = false,
): { locs: LocationCtx[]; matchedBy: string; mcpRoute: boolean; namesMcp: boolean } {
  const ups = upstreams(cfg);
  const hostOf = (s: string) => s.replace(/^[^/]*:\/\//, '').split(/[/:]/)[0] ?? '';
  // A target with a port (a server on a host, `127.0.0.1:9445`) is that address only: another port
  // of the same host is another server (mabi8/mcp-stack forwards /mcp to :9543 and /vps/mcp to :9445).
  const same = (written: string, t: string) =>
    t.includes(':') ? addressOf(written) === t : hostOf(written) === t || addressOf(written).startsWith(`${t}.`);
  const reaches = (pass: string): boolean => {
    if (targets.some((t) => same(pass, t))) return true;
    // A variable a `map` sets: any place it maps to.
    const variable = /^(https?:\/\/)?(\$\w+)/.exec(pass)?.[2];
    if (variable) return (mapValues(cfg, variable) ?? []).some((v) => !v.startsWith('$') && reaches(v));
    const servers = ups.get(hostOf(pass)) ?? [];
    return servers.some((s) => targets.some((t) => same(s.args[0] ?? '', t)));
  };
  const all = proxiedLocations(cfg);
  let locs = all.filter((l) => reaches(l.proxyPass?.args[0] ?? ''));
  let matchedBy = 'its proxy_pass names the server';
  if (!locs.length && all.length) {
    // No proxy_pass names the server: it may be reached by an alias, but not through a location that
    // goes to the proxy's own container (loopback), to another service of the project or to a public name
    // (agentic-community/mcp-gateway-registry's nginx forwards to its registry and its auth service only).
    const notServer = (pass: string): boolean => {
      // A variable a `map` sets (IBM/mcp-context-forge's `$gateway_backend_url`): the places it maps to.
      const variable = /^(https?:\/\/)?(\$\w+)/.exec(pass)?.[2];
      const mapped = variable ? mapValues(cfg, variable) : null;
      if (mapped?.length) return mapped.every((v) => (v === '' || v.startsWith('$') ? false : notServer(v)));
      const host = hostOf(pass);
      const upstream = ups.get(host);
      const hosts = upstream ? upstream.map((x) => hostOf(x.args[0] ?? '')) : [host];
      // In a closed project a bare name that names no service resolves to nothing (Bionic-AI-Solutions/
      // open-search's upstream `mcp-server:3000`, a service since renamed); `$backend` may be anything.
      return hosts.every(
        (h) =>
          /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(h) ||
          elsewhere.includes(h) ||
          (/\./.test(h) && !/^[\d.]+$/.test(h)) ||
          (closed && /^[A-Za-z0-9_-]+$/.test(h)),
      );
    };
    locs = all.filter((l) => !notServer(l.proxyPass?.args[0] ?? ''));
    matchedBy = 'the only proxied locations of the proxy';
  }
  // Per server block: its MCP-named routes, else its catch-all, else every route to the server. A
  // catch-all of another block (jrmatherly/MCP-Platform's default_server `location /`) serves the
  // MCP paths for the requests that block answers, so it is a way in as well.
  const isMcp = mcpRoutes(cfg);
  const isCatchAll = (l: LocationCtx) => !l.location || l.location.args.join(' ') === '/';
  const blocks = new Map<Directive, LocationCtx[]>();
  for (const l of locs) blocks.set(l.server, [...(blocks.get(l.server) ?? []), l]);
  const chosen = [...blocks.values()].map((ls) => {
    const mcp = ls.filter(isMcp);
    const catchAll = ls.filter(isCatchAll);
    return { locs: mcp.length ? mcp : catchAll.length ? catchAll : ls, named: mcp.length > 0 || catchAll.length > 0 };
  });
  // A block with no MCP route and no catch-all serves other paths of the server: it counts only where no block names one.
  const named = chosen.filter((c) => c.named);
  // A route, a server name, or the upstream block it forwards through (`upstream mcp_backend`) named for MCP.
  const namesMcp = locs.some(
    (l) =>
      isMcp(l) ||
      (l.server.block ?? []).some((d) => d.name === 'server_name' && d.args.some(namesMcpHost)) ||
      (ups.has(hostOf(l.proxyPass?.args[0] ?? '')) && namesMcpHost(hostOf(l.proxyPass?.args[0] ?? ''))),
  );
  return { locs: (named.length ? named : chosen).flatMap((c) => c.locs), matchedBy, mcpRoute: named.length > 0, namesMcp };
}

/**
 * Which locations serve MCP: those whose path names it (namesMcpRoute), and the named locations
 * such a path hands its requests to (`try_files /- @forward`, `error_page 418 = @forward`).
 */
export function mcpRoutes(cfg: NginxConfig): (l: LocationCtx) => boolean {
  const named = (args: string[]) => namesMcpRoute(args.join(' '));
  const handedTo = new Set<string>();
  walkAll(cfg.roots(), (d) => {
    if (d.name !== 'location' || !named(d.args)) return;
    walkAll(cfg.expand(d.block ?? []), (x) => {
      const last = x.args[x.args.length - 1] ?? '';
      if ((x.name === 'try_files' || x.name === 'error_page') && last.startsWith('@')) handedTo.add(last);
    });
  });
  return (l) => {
    const args = l.location?.args ?? [];
    return named(args) || (args.length === 1 && handedTo.has(args[0]!));
  };
}

const seconds = (v: string): number | null => {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'ms' ? Math.ceil(n / 1000) : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
};

export function nginxFacts(sheet: FactSheet, cfg: NginxConfig, pc: ProxyContext): void {
  const { locs, matchedBy } = mcpLocations(cfg, pc.targets, pc.elsewhere, pc.closed);
  if (!locs.length) return;
  // Every MCP route is a way in (`/mcp` limited, `/sse` not): each is read on its own, and the
  // weakest decides each fact, so a protected route never hides an open one.
  const routes = locs.map((loc) => {
    const own = new FactSheet(sheet.name);
    routeFacts(own, cfg, loc, pc, matchedBy);
    const at = (loc.location ?? loc.server).at;
    return { where: `${loc.location?.args.join(' ') ?? 'the server block'} (${at.file}:${at.line})`, own };
  });
  weakestOf(sheet, routes);
  // A route to the server's `/sse` (berTrindade's `location /sse`): it serves the HTTP+SSE transport.
  const sse = locs.find((l) => /(^|\/)sse(\/|$|\b)/i.test(l.location?.args.at(-1) ?? ''));
  if (sse && !sheet.has('transport.legacy_sse'))
    sheet.set('transport.legacy_sse', true, sse.location!.at, 'the proxied route is the /sse endpoint of the HTTP+SSE transport');
}

/**
 * `if ($scheme != "https") { return 301 https://$host$request_uri; }` in the server block or the MCP
 * location (devopsexpertlearning/mcp-search-server's nginx): a plain-HTTP request gets the redirect,
 * never the route. Only the listener's own scheme counts; `$http_x_forwarded_proto` is a header a
 * client may send.
 */
function httpsRedirect(loc: LocationCtx): { at: At; condition: string } | null {
  for (const level of loc.levels.slice(1))
    for (const d of level) {
      if (d.name !== 'if') continue;
      const condition = d.args.join(' ').replace(/["']/g, '');
      if (!/^\(\s*\$scheme\s*(!=\s*https|=\s*http)\s*\)$/.test(condition)) continue;
      const redirects = (d.block ?? []).some(
        (x) =>
          (x.name === 'return' && /^30[12378]$/.test(x.args[0] ?? '') && /^https:\/\//.test(x.args[1] ?? '')) ||
          (x.name === 'rewrite' && /^https:\/\//.test(x.args[1] ?? '') && /^(permanent|redirect)$/.test(x.args[2] ?? '')),
      );
      if (redirects) return { at: d.at, condition: condition.replace(/^\(\s*|\s*\)$/g, '') };
    }
  return null;
}

/** The facts one MCP route decides, as nginx inherits its directives. */
function routeFacts(sheet: FactSheet, cfg: NginxConfig, loc: LocationCtx, pc: ProxyContext, matchedBy: string): void {
  const locAt = (loc.location ?? loc.server).at;
  sheet.set(
    'exposure.behind_reverse_proxy',
    true,
    locAt,
    `nginx forwards ${loc.location?.args.join(' ') ?? 'the server'} to ${loc.proxyPass?.args[0]} (${matchedBy})`,
  );

  // TLS at the client-facing listener of the server block that holds the MCP route.
  const listens = (loc.server.block ?? []).filter((d) => d.name === 'listen');
  if (pc.facesClients) {
    if (listens.some((l) => l.args.some(unresolved)) || loc.levels[1]!.some((d) => unresolved(d.name))) {
      sheet.undecided('tls.enabled', 'the listen directive or a whole block comes from a template variable');
    } else if (listens.length) {
      const tls = listens.every((l) => l.args.includes('ssl') || l.args.includes('quic'));
      const redirect = tls ? null : httpsRedirect(loc);
      sheet.set(
        'tls.enabled',
        tls || redirect !== null,
        redirect?.at ?? listens[0]!.at,
        tls
          ? 'every listen of the MCP server block has ssl'
          : redirect
            ? `a listen of the MCP server block has no ssl, but \`if (${redirect.condition})\` redirects every plain-HTTP request to HTTPS before the MCP route answers`
            : 'a listen of the MCP server block has no ssl: plain HTTP reaches the MCP route',
      );
      if (tls || redirect) tlsDetails(sheet, loc);
    }
  }

  // Rate limits: limit_req in effect on the MCP route, and its zone.
  const lr = effective(loc, 'limit_req');
  const reqZones = zones(cfg, 'limit_req_zone');
  if (lr.length) {
    const used = lr.map((d) => reqZones.get(d.args.find((a) => a.startsWith('zone='))?.slice(5) ?? '')).filter((z) => z !== undefined);
    sheet.set('rate_limit.enabled', true, lr[0]!.at, 'limit_req applies to the MCP route');
    const rates = used.map((z) => perMinute(z.rate ?? '')).filter((r): r is number => r !== null);
    if (rates.length && rates.length === used.length)
      sheet.set('rate_limit.per_minute', Math.min(...rates), used[0]!.at, `limit_req_zone rate=${used[0]!.rate}`);
    const keys = used.map((z) => z.key);
    const byIp = keys.some((k) => /\$(binary_)?remote_addr/.test(k));
    const byKey = keys.some((k) => /\$http_authorization|\$http_x_api_key|\$jwt|\$api_key|principal|key_id/i.test(k));
    if (keys.length && !keys.some(unresolved)) {
      if (byIp || byKey)
        sheet.set(
          'rate_limit.scope',
          byIp && byKey ? 'ip_and_key' : byIp ? 'ip' : 'key',
          used[0]!.at,
          `limit_req_zone keyed by ${keys.join(', ')}`,
        );
      if (byIp && pc.facesClients)
        sheet.set(
          'rate_limit.keys_on_real_client_ip',
          true,
          used[0]!.at,
          'the proxy faces clients and its limit counts the connecting address',
        );
    }
    const status = effective(loc, 'limit_req_status')[0];
    if (status?.args[0] !== '429' && (status || absenceKnown(loc, 'limit_req_status')))
      sheet.set(
        'rate_limit.retry_after_header',
        false,
        status?.at ?? lr[0]!.at,
        `limited requests get ${status?.args[0] ?? '503 (nginx default)'}, not 429 with Retry-After`,
      );
  }
  const realIp = effective(loc, 'set_real_ip_from');
  if (realIp.some((d) => d.args[0] === '0.0.0.0/0' || d.args[0] === '::/0'))
    sheet.set(
      'rate_limit.trusts_client_forwarded_headers',
      true,
      realIp[0]!.at,
      'set_real_ip_from trusts every peer for the client address header',
    );

  // Connections per client address.
  const lc = effective(loc, 'limit_conn');
  const connZones = zones(cfg, 'limit_conn_zone');
  if (pc.facesClients) {
    const perAddress = lc.some((d) => /\$(binary_)?remote_addr/.test(connZones.get(d.args[0] ?? '')?.key ?? ''));
    if (!lc.length && !absenceKnown(loc, 'limit_conn')) sheet.undecided('http.connections_per_client_limited', HTTP_LEVEL('limit_conn'));
    else
      sheet.set(
        'http.connections_per_client_limited',
        perAddress,
        lc[0]?.at ?? locAt,
        perAddress ? 'limit_conn with a zone keyed by the client address' : 'no limit_conn keyed by the client address on the MCP route',
      );
    // nginx has no whole-request deadline: client_header_timeout and client_body_timeout are idle timers.
    sheet.set(
      'http.request_read_deadline_seconds',
      0,
      locAt,
      'nginx faces clients and has no whole-request deadline (client_body_timeout is an idle timer)',
    );
  }

  // The largest body that reaches the server: client_max_body_size (nginx default 1m). Off (0), the
  // server's own reader may still limit it, which the proxy's files do not show.
  const cmbs = effective(loc, 'client_max_body_size')[0];
  const limit = cmbs ? nginxSize(cmbs.args[0] ?? '') : 1048576;
  if (!cmbs && !absenceKnown(loc, 'client_max_body_size')) sheet.undecided('http.max_body_bytes', HTTP_LEVEL('client_max_body_size'));
  else if (cmbs && unresolved(cmbs.args[0] ?? ''))
    sheet.undecided('http.max_body_bytes', 'client_max_body_size comes from a template variable');
  else if (limit === 0)
    sheet.undecided(
      'http.max_body_bytes',
      "client_max_body_size 0 turns the proxy's limit off: what the server's own body reader allows is not in these files",
    );
  else if (limit !== null)
    sheet.set(
      'http.max_body_bytes',
      limit,
      cmbs?.at ?? locAt,
      cmbs
        ? `client_max_body_size ${cmbs.args[0]}: larger bodies get 413`
        : 'no client_max_body_size: nginx refuses bodies over 1m with 413',
    );

  // The deadline of a forwarded call: proxy_read_timeout (nginx default 60 s).
  const prt = effective(loc, 'proxy_read_timeout')[0];
  const secs = prt ? seconds(prt.args[0] ?? '') : 60;
  if (!prt && !absenceKnown(loc, 'proxy_read_timeout'))
    sheet.undecided('http.execution_deadline_seconds', HTTP_LEVEL('proxy_read_timeout'));
  else if (!pc.answersInOnePiece)
    // Doctrine: a streamed (SSE) answer resets proxy_read_timeout at every event.
    sheet.undecided(
      'http.execution_deadline_seconds',
      `${prt ? `proxy_read_timeout ${prt.args[0]}` : "nginx's 60 s proxy_read_timeout"} bounds the whole call only when the server answers in one JSON body; an answer it streams (SSE, the MCP SDKs' default, and every legacy SSE reply) resets it at each event, so the server's own handler deadline decides`,
    );
  else if (secs !== null)
    sheet.set(
      'http.execution_deadline_seconds',
      secs,
      prt?.at ?? locAt,
      prt ? `proxy_read_timeout ${prt.args[0]}` : 'no proxy_read_timeout: nginx waits 60 s',
    );

  // CORS: a wildcard or an echoed Origin.
  const headers = effective(loc, 'add_header');
  const acao = headers.find((d) => /^access-control-allow-origin$/i.test(d.args[0] ?? ''));
  if (acao && (acao.args[1] === '*' || acao.args[1] === '$http_origin'))
    sheet.set('http.cors_allow_any_origin', true, acao.at, `add_header Access-Control-Allow-Origin ${acao.args[1]}`);

  // Credentials in access logs: a log_format with $http_authorization used by an access_log.
  const formats = new Map<string, Directive>();
  walkAll(cfg.roots(), (d) => d.name === 'log_format' && d.args[0] && formats.set(d.args[0], d));
  const accessLogs = effective(loc, 'access_log');
  for (const al of accessLogs) {
    const fmt = formats.get(al.args[1] ?? 'combined');
    if (fmt?.args.some((a) => a.includes('$http_authorization')))
      sheet.set('logging.logs_authorization_header', true, fmt.at, `log_format ${fmt.args[0]} records $http_authorization`);
  }

  // The edge's error log: at info or debug nginx writes rejected header lines with their values.
  // An error_log of the main context (LAB271/mcp-studies' `error_log … warn;` above `http {}`) is inherited too.
  const ownLog = effective(loc, 'error_log');
  const el = ownLog.length ? ownLog : loc.mainLevel.filter((d) => d.name === 'error_log');
  if (el.length) {
    const levels = el.map((d) => d.args[1] ?? 'error');
    if (!levels.some(unresolved)) {
      const verbose = levels.some((l) => l === 'info' || l === 'debug');
      sheet.set('logging.edge_logs_rejected_header_values', verbose, el[0]!.at, `error_log level ${levels.join(', ')}`);
    }
  }

  authFacts(sheet, loc, pc);

  // A credential taken from the URL: `proxy_set_header X-Api-Key $apikey` with $apikey captured
  // from the location's path (`~ ^/(?<apikey>[^/]+)/mcp$`), or a query argument (`$arg_token`).
  const captures = new Set([...(loc.location?.args.join(' ') ?? '').matchAll(/\(\?P?<(\w+)>/g)].map((m) => m[1]!));
  for (const h of effective(loc, 'proxy_set_header')) {
    if (!/authorization|key|token/i.test(h.args[0] ?? '')) continue;
    const vars = [...(h.args[1] ?? '').matchAll(/\$\{?(\w+)/g)].map((m) => m[1]!);
    if (!vars.some((v) => v.startsWith('arg_') || captures.has(v) || /^\d$/.test(v))) continue;
    sheet.set(
      'authentication.keys_in_query_string',
      true,
      h.at,
      `proxy_set_header ${h.args[0]} ${h.args[1]}: the credential comes from the URL of ${loc.location?.args.join(' ')}`,
    );
    break;
  }

  // OAuth discovery answered by the proxy itself.
  for (const l of proxiedOrAll(cfg, loc)) {
    if (!/\.well-known\/oauth-protected-resource/.test(l.args.join(' '))) continue;
    const ret = (l.block ?? []).find((d) => d.name === 'return');
    if (ret?.args[0] === '404')
      sheet.set('http.oauth_discovery_endpoints', 'not_found', ret.at, 'the proxy answers the protected resource metadata URL with 404');
    else if (ret?.args[0] === '200')
      sheet.set('http.oauth_discovery_endpoints', 'metadata', ret.at, 'the proxy serves the protected resource metadata');
  }

  // The hop to the server.
  const pass = loc.proxyPass?.args[0] ?? '';
  if (unresolved(pass)) {
    sheet.undecided('tls.backend_hop', 'the proxy_pass scheme comes from a template variable');
  } else if (pass.startsWith('https://')) {
    const verify = effective(loc, 'proxy_ssl_verify')[0];
    if (!verify && !absenceKnown(loc, 'proxy_ssl_verify')) sheet.undecided('tls.backend_hop', HTTP_LEVEL('proxy_ssl_verify'));
    else if (verify?.args[0] === 'on') sheet.set('tls.backend_hop', 'encrypted', verify.at, 'proxy_pass https with proxy_ssl_verify on');
    else if (pc.platform === 'kubernetes') sheet.undecided('tls.backend_hop', CNI_HOP);
    else if (pc.platform === 'compose')
      sheet.set(
        'tls.backend_hop',
        'same_host',
        loc.proxyPass!.at,
        'proxy_pass https without proxy_ssl_verify on, over a bridge network of one Compose host',
      );
  } else if (pc.platform === 'compose') {
    sheet.set('tls.backend_hop', 'same_host', loc.proxyPass!.at, 'plain proxy_pass over a bridge network of one Compose host');
  } else if (pc.platform === 'host') {
    const local = (a: string) => /^(https?:\/\/)?(127\.[\d.]+|localhost|\[::1\])(:|\/|$)|^(https?:\/\/)?unix:/.test(a);
    // Through an `upstream` block (firecrawl's `upstream app { server 127.0.0.1:3000; }`): its servers' addresses.
    const servers = upstreams(cfg).get(pass.replace(/^https?:\/\//, '').split(/[/:]/)[0] ?? '') ?? [];
    if (local(pass) || (servers.length > 0 && servers.every((x) => local(x.args[0] ?? ''))))
      sheet.set('tls.backend_hop', 'same_host', loc.proxyPass!.at, `plain proxy_pass to ${pass} on the same host`);
  } else if (pc.platform === 'kubernetes') {
    sheet.undecided('tls.backend_hop', CNI_HOP);
  }
}

function proxiedOrAll(cfg: NginxConfig, loc: LocationCtx): Directive[] {
  const out: Directive[] = [];
  walkAll(cfg.expand(loc.server.block ?? []), (d) => d.name === 'location' && out.push(d));
  return out;
}

function tlsDetails(sheet: FactSheet, loc: LocationCtx): void {
  const protocols = effective(loc, 'ssl_protocols')[0];
  if (protocols && !protocols.args.some(unresolved)) {
    const versions = protocols.args.map((a) => a.replace(/^TLSv/, '')).map((v) => (v === '1' ? '1.0' : v));
    const min = versions.filter((v) => ['1.0', '1.1', '1.2', '1.3'].includes(v)).sort()[0];
    if (min) sheet.set('tls.min_version', min, protocols.at, `ssl_protocols ${protocols.args.join(' ')}`);
  } else if (!protocols) sheet.undecided('tls.min_version', "no ssl_protocols: nginx's default depends on its version and OpenSSL");
  // HSTS: the add_header list in effect on the MCP route (a location's own list replaces the server's).
  const headers = effective(loc, 'add_header');
  const hsts = headers.find((d) => /^strict-transport-security$/i.test(d.args[0] ?? ''));
  const age = Number(/max-age=(\d+)/i.exec(hsts?.args[1] ?? '')?.[1] ?? 0);
  const ok = !!hsts && age >= 15552000 && hsts.args.includes('always');
  if (!headers.length && !absenceKnown(loc, 'add_header')) {
    sheet.undecided('tls.hsts', HTTP_LEVEL('add_header'));
    return;
  }
  sheet.set(
    'tls.hsts',
    ok,
    hsts?.at ?? loc.location?.at ?? loc.server.at,
    hsts
      ? `Strict-Transport-Security max-age=${age}${hsts.args.includes('always') ? ' always' : ' without always (not on errors)'}`
      : 'no Strict-Transport-Security header in effect on the MCP route',
  );
}

function authFacts(sheet: FactSheet, loc: LocationCtx, pc: ProxyContext): void {
  const levels = loc.levels.slice(1).flat();
  const verify = effective(loc, 'ssl_verify_client')[0];
  if (verify?.args[0] === 'on') {
    sheet.set('authentication.method', 'mtls', verify.at, 'ssl_verify_client on');
    sheet.set('authentication.required', true, verify.at, 'ssl_verify_client on refuses clients without a certificate');
    return;
  }
  const basic = effective(loc, 'auth_basic')[0];
  if (basic && basic.args[0] !== 'off') {
    const file = effective(loc, 'auth_basic_user_file')[0]?.args[0];
    basicAuthMethod(sheet, basic.at, null, `auth_basic${file ? ` with ${file}` : ''}`);
    sheet.set('authentication.required', true, basic.at, 'auth_basic refuses requests without a valid password');
    return;
  }
  // `if ($http_authorization != "Bearer <literal>") { return 401; }`: one static token in the config.
  for (const d of levels) {
    if (d.name !== 'if') continue;
    const cond = d.args.join(' ');
    const ret = (d.block ?? []).find((x) => x.name === 'return');
    if (!/\$http_authorization/.test(cond) || (ret?.args[0] !== '401' && ret?.args[0] !== '403')) continue;
    const literal = /Bearer\s+[^$\s)"]+/.exec(cond);
    sheet.set('authentication.required', true, d.at, 'the proxy answers 401 unless Authorization matches');
    if (literal) {
      sheet.set('authentication.method', 'static_bearer', d.at, 'one bearer token compared in the nginx config');
      sheet.set(
        'authentication.static_token_location',
        pc.platform === 'kubernetes' ? 'config_map' : 'repository',
        d.at,
        pc.platform === 'kubernetes'
          ? 'the token is written in the nginx config, kept in a ConfigMap'
          : 'the token is written in a committed nginx config',
      );
    }
    return;
  }
}

/** Why a directive the server block leaves out may still apply: the http level is not among the files. */
const HTTP_LEVEL = (name: string) =>
  `no ${name} in the server block or the MCP location, and the http block that includes them is not among the files (it may set ${name} for every server)`;

/** An nginx size (`1m`, `512k`, `1048576`) in bytes; null when it is not one. */
function nginxSize(v: string): number | null {
  const m = /^(\d+)([kKmMgG])?$/.exec(v);
  if (!m) return null;
  return Number(m[1]) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]?.toLowerCase() ?? ''] ?? 1);
}

function perMinute(rate: string): number | null {
  const m = /^(\d+)r\/(s|m)$/.exec(rate);
  if (!m) return null;
  return m[2] === 's' ? Number(m[1]) * 60 : Number(m[1]);
}
