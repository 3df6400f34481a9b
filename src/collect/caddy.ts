// Caddyfiles (https://caddyserver.com/docs/caddyfile/concepts): site blocks by address, their
// directives and nested blocks, snippets imported by name. The facts of a Caddy proxy in front
// of the MCP server: automatic HTTPS, TLS versions, HSTS, rate limits (the caddy-ratelimit
// plugin), Basic authentication, and how it reaches the server.
import { basicAuthMethod, CNI_HOP } from './docker-defaults.js';
import type { TextFile } from './inputs.js';
import type { ProxyContext } from './nginx-facts.js';
import { namesMcpHost } from './roles.js';
import { type At, FactSheet } from './sheet.js';
import { addressOf } from './upstream-address.js';
import { weakestOf } from './weakest.js';

interface Node {
  words: string[];
  at: At;
  block?: Node[];
}
export type CaddyNode = Node;

/** Lines of words; `{` opens a block for the line before it, `}` closes it. */
export function parseCaddyfile(file: TextFile): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  const lines = file.text.split('\n');
  let pending: Node | null = null;
  for (let i = 0; i < lines.length; i++) {
    const words = tokens(lines[i]!);
    if (!words.length) continue;
    const at = { file: file.path, line: i + 1 };
    let opens = false;
    if (words[words.length - 1] === '{') {
      words.pop();
      opens = true;
    }
    if (words.length === 1 && words[0] === '}') {
      if (stack.length > 1) stack.pop();
      continue;
    }
    if (words.length) {
      pending = { words, at };
      stack[stack.length - 1]!.push(pending);
    }
    if (opens) {
      // A bare `{` opens the global options block: a node of its own, never the previous site's.
      const target = words.length ? pending! : { words: [], at };
      if (!words.length) stack[stack.length - 1]!.push(target);
      target.block = [];
      stack.push(target.block);
    }
    if (words.length > 1 && words[words.length - 1] === '}') {
      words.pop();
      if (stack.length > 1) stack.pop();
    }
  }
  return root;
}

function tokens(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|`([^`]*)`|(#.*$)|(\S+)/g;
  for (const m of line.matchAll(re)) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[4]!);
  }
  return out;
}

function walk(nodes: Node[], snippets: Map<string, Node[]>, f: (n: Node) => void, depth = 0): void {
  if (depth > 8) return;
  for (const n of nodes) {
    if (n.words[0] === 'import' && snippets.has(n.words[1] ?? '')) walk(snippets.get(n.words[1]!)!, snippets, f, depth + 1);
    f(n);
    if (n.block) walk(n.block, snippets, f, depth + 1);
  }
}

/**
 * `caddy reverse-proxy --from :80 --to mcp-server:3000` (meloncafe/chromadb-remote-mcp's Compose
 * command) as the Caddyfile it stands for, `:80 { reverse_proxy mcp-server:3000 }`, its lines those of
 * the command in `at.file` so facts cite it; null for any other command.
 */
export function caddyCommandSite(words: string[], at: At): TextFile | null {
  const i = words.findIndex((w, j) => w === 'reverse-proxy' && /(^|\/)caddy$/.test(words[j - 1] ?? 'caddy'));
  if (i < 0) return null;
  let from = 'localhost';
  const to: string[] = [];
  const flags: string[] = [];
  for (let j = i + 1; j < words.length; j++) {
    const [name, inline] = words[j]!.split(/=(.*)/s) as [string, string | undefined];
    const value = () => inline ?? words[++j] ?? '';
    if (name === '--from' || name === '-f') from = value();
    else if (name === '--to' || name === '-t') to.push(value());
    else if (name === '--insecure') flags.push('transport http {\n\t\ttls_insecure_skip_verify\n\t}');
  }
  if (!to.length) return null;
  // Caddy's default `--from` is localhost, served in HTTPS with its internal CA, as a name is.
  // The site's address on the command's line, so what it decides cites the command.
  const pad = '\n'.repeat(Math.max(0, at.line - 1));
  const body = flags.length ? ` {\n\t\t${flags.join('\n\t\t')}\n\t}` : '';
  return { path: at.file, text: `${pad}${from} {\n\treverse_proxy ${to.join(' ')}${body}\n}\n` };
}

export function caddyFacts(sheet: FactSheet, file: TextFile, pc: ProxyContext): void {
  const top = parseCaddyfile(file);
  const snippets = new Map<string, Node[]>();
  let global: Node | null = null;
  const sites: Node[] = [];
  for (const n of top) {
    if (/^\(.+\)$/.test(n.words[0] ?? '')) snippets.set(n.words[0]!.slice(1, -1), n.block ?? []);
    else if (n.words.length === 0 || (global === null && sites.length === 0 && n.block && n.words[0] === undefined)) global = n;
    else sites.push(n);
  }
  void global;
  // A target with a port (a server on a host) is that address only: another port is another server.
  const reachesTarget = (n: Node) =>
    n.words[0] === 'reverse_proxy' &&
    upstreamsOf(n).some((w) => pc.targets.some((t) => (t.includes(':') ? addressOf(w) === t : hostOf(w) === t)));
  // Every site that forwards to the server is a way in (mcp-qbit-server's Caddyfile has three): each
  // is read on its own, and the weakest decides each fact.
  const routes: { where: string; own: FactSheet }[] = [];
  for (const site of sites) {
    let proxy: Node | null = null;
    walk(site.block ?? [], snippets, (n) => {
      if (!proxy && reachesTarget(n)) proxy = n;
    });
    if (!proxy) continue;
    const own = new FactSheet(sheet.name);
    siteFacts(own, site, proxy, snippets, pc);
    routes.push({ where: `site ${site.words.join(' ')} (${site.at.file}:${site.at.line})`, own });
  }
  weakestOf(sheet, routes);
  // A route to the server's `/sse` (berTrindade's `handle /sse`): it serves the HTTP+SSE transport.
  if (routes.length && !sheet.has('transport.legacy_sse')) {
    const sse = caddyRoutes(file).find(
      (r) =>
        /(^|\/)sse(\/|\*|\s|$)/i.test(r.path.trim()) && reachesTarget({ words: ['reverse_proxy', ...r.upstream.split(/\s+/)], at: r.at }),
    );
    if (sse) sheet.set('transport.legacy_sse', true, sse.at, 'the proxied route is the /sse endpoint of the HTTP+SSE transport');
  }
}

/** The facts one Caddy site that forwards to the server decides. */
function siteFacts(sheet: FactSheet, site: Node, rp: Node, snippets: Map<string, Node[]>, pc: ProxyContext): void {
  sheet.set('exposure.behind_reverse_proxy', true, rp.at, `Caddy site ${site.words.join(' ')} forwards to ${rp.words.slice(1).join(' ')}`);
  if (pc.facesClients) {
    const plain = site.words.every((a) => a.startsWith('http://') || /^:\d+$/.test(a.replace(/,$/, '')));
    const tls = site.words.every((a) => !a.startsWith('http://') && !/^:\d+$/.test(a.replace(/,$/, '')));
    if (plain || tls)
      sheet.set(
        'tls.enabled',
        tls,
        site.at,
        tls
          ? `site address ${site.words.join(' ')}: Caddy serves it over HTTPS (automatic HTTPS)`
          : `site address ${site.words.join(' ')} is plain HTTP`,
      );
    if (tls) {
      let protocols: Node | null = null;
      let hsts: Node | null = null;
      let manualCert: Node | null = null;
      walk(site.block ?? [], snippets, (n) => {
        if (n.words[0] === 'protocols') protocols = n;
        if (n.words[0] === 'header' && n.words.some((w) => /^strict-transport-security$/i.test(w))) hsts = n;
        // The block form: `header { Strict-Transport-Security "max-age=..." }`.
        if (n.words[0] === 'header' && n.block)
          for (const c of n.block) if (/^strict-transport-security$/i.test(c.words[0] ?? '')) hsts = c;
        if (n.words[0] === 'tls' && n.words.length >= 3 && !n.words[1]!.includes('@')) manualCert = n;
      });
      const p = protocols as Node | null;
      const min = p ? p.words[1]!.replace(/^tls/, '') : '1.2';
      sheet.set(
        'tls.min_version',
        min,
        p?.at ?? site.at,
        p ? `protocols ${p.words.slice(1).join(' ')}` : "Caddy's default minimum is TLS 1.2",
      );
      const h = hsts as Node | null;
      const age = Number(/max-age=(\d+)/i.exec(h?.words.join(' ') ?? '')?.[1] ?? 0);
      sheet.set(
        'tls.hsts',
        age >= 15552000,
        h?.at ?? site.at,
        h ? `Strict-Transport-Security max-age=${age}` : 'no Strict-Transport-Security header',
      );
      if (manualCert)
        sheet.set('tls.certificate_auto_renewal', false, (manualCert as Node).at, 'tls names certificate files: Caddy does not renew them');
      else
        sheet.set(
          'tls.certificate_auto_renewal',
          true,
          site.at,
          'Caddy obtains and renews the certificate itself (ACME or its internal CA) and serves the renewed one',
        );
    }
  }
  walk(site.block ?? [], snippets, (n) => {
    if (n.words[0] === 'basic_auth' || n.words[0] === 'basicauth') {
      sheet.set('authentication.required', true, n.at, 'basic_auth refuses requests without a valid password');
      // Caddy lists the users in the directive's block: `user hashed-password` per line.
      basicAuthMethod(sheet, n.at, (n.block ?? []).filter((u) => u.words.length >= 2).length || null, 'basic_auth');
    }
    if (n.words[0] === 'rate_limit') rateLimit(sheet, n);
    const acao = (n.words[0] === 'header' ? [n, ...(n.block ?? [])] : []).find((c) =>
      c.words.some((w) => /^access-control-allow-origin$/i.test(w)),
    );
    if (acao && acao.words[acao.words.length - 1] === '*')
      sheet.set('http.cors_allow_any_origin', true, acao.at, 'header Access-Control-Allow-Origin *');
  });
  bodyLimit(sheet, site, rp, snippets);
  const upstream = upstreamsOf(rp)[0] ?? '';
  if (upstream.startsWith('https://')) {
    let insecure = false;
    walk(rp.block ?? [], snippets, (n) => {
      if (n.words[0] === 'tls_insecure_skip_verify') insecure = true;
    });
    if (!insecure) sheet.set('tls.backend_hop', 'encrypted', rp.at, 'reverse_proxy over HTTPS with the certificate verified');
  } else if (pc.platform === 'compose')
    sheet.set('tls.backend_hop', 'same_host', rp.at, 'plain reverse_proxy over a bridge network of one Compose host');
  else if (pc.platform === 'kubernetes') sheet.undecided('tls.backend_hop', CNI_HOP);
  else if (/^(localhost|127\.[\d.]+|\[::1\]|unix\/)/.test(upstream.replace(/^h2c:\/\/|^http:\/\//, '')))
    sheet.set('tls.backend_hop', 'same_host', rp.at, `plain reverse_proxy to ${upstream} on the same host`);
}

/** The blocks from the site down to the node, each with what a snippet it imports adds. */
function blocksHolding(nodes: Node[], target: Node, snippets: Map<string, Node[]>, depth = 0): Node[][] | null {
  if (depth > 8) return null;
  const own = nodes.flatMap((n) => (n.words[0] === 'import' && snippets.has(n.words[1] ?? '') ? snippets.get(n.words[1]!)! : [n]));
  if (own.includes(target)) return [own];
  for (const n of own) {
    const inner = n.block ? blocksHolding(n.block, target, snippets, depth + 1) : null;
    if (inner) return [own, ...inner];
  }
  return null;
}

/**
 * `request_body { max_size 10MB }` on the way to the server (the site or a block around its
 * reverse_proxy, with no matcher of its own): the largest body Caddy passes. Without one Caddy has
 * no limit, and what the server's own reader allows is not in the Caddyfile.
 */
function bodyLimit(sheet: FactSheet, site: Node, rp: Node, snippets: Map<string, Node[]>): void {
  const on = (blocksHolding(site.block ?? [], rp, snippets) ?? [])
    .flat()
    .filter((n) => n.words[0] === 'request_body' && n.words.length === 1);
  const size = on.at(-1)?.block?.find((n) => n.words[0] === 'max_size');
  const bytes = size ? humanBytes(size.words[1] ?? '') : null;
  if (size && bytes !== null && bytes > 0)
    sheet.set('http.max_body_bytes', bytes, size.at, `request_body max_size ${size.words[1]}: larger bodies are refused`);
  else
    sheet.undecided(
      'http.max_body_bytes',
      "no request_body max_size on the route: Caddy sets no limit of its own, and the server's body reader is not in these files",
    );
}

/** A size as Caddy reads it (go-humanize: `10MB` = 10,000,000, `10MiB` = 10,485,760, a bare number in bytes). */
function humanBytes(v: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?)b?$/i.exec(v.trim());
  if (!m) return null;
  const power = ['', 'k', 'm', 'g', 't'].indexOf(m[2]!.toLowerCase());
  return Math.floor(Number(m[1]) * (m[3] ? 1024 : 1000) ** power);
}

/**
 * Every `reverse_proxy` of a Caddyfile with the paths its route takes (a `handle`/`route` around
 * it, the paths on its own line, and those of a named matcher, `@sse path /sse /sse/*` or a
 * matcher block, used by either) and whether its site's address names MCP.
 */
export function caddyRoutes(f: TextFile): { upstream: string; path: string; mcpSite: boolean; at: At }[] {
  const out: { upstream: string; path: string; mcpSite: boolean; at: At }[] = [];
  const matchers = new Map<string, string[]>();
  const collect = (nodes: Node[]) => {
    for (const n of nodes) {
      if (n.words[0]?.startsWith('@'))
        matchers.set(n.words[0], [
          ...(n.words[1] === 'path' ? n.words.slice(2) : []),
          ...(n.block ?? []).filter((m) => m.words[0] === 'path').flatMap((m) => m.words.slice(1)),
        ]);
      else if (n.block) collect(n.block);
    }
  };
  const paths = (words: string[]) => words.flatMap((w) => (w.startsWith('@') ? (matchers.get(w) ?? []) : [w]));
  const visit = (nodes: Node[], route: string, mcpSite: boolean) => {
    for (const n of nodes) {
      const here = ['handle', 'handle_path', 'route'].includes(n.words[0] ?? '') ? `${route} ${paths(n.words.slice(1)).join(' ')}` : route;
      const upstream = n.words[0] === 'reverse_proxy' ? upstreamsOf(n)[0] : undefined;
      if (upstream)
        out.push({
          upstream,
          path: `${here} ${paths(n.words.slice(1))
            .filter((w) => w.startsWith('/'))
            .join(' ')}`,
          mcpSite,
          at: n.at,
        });
      if (n.block) visit(n.block, here, mcpSite);
    }
  };
  for (const site of parseCaddyfile(f)) {
    matchers.clear();
    collect(site.block ?? []);
    // `{$MCP_DOMAIN}`: a site address the environment fills in, named for MCP all the same.
    visit(
      [site],
      '',
      site.words.some((w) => namesMcpHost(w) || /^\{\$[\w]*MCP[\w]*(:[^}]*)?\}$/i.test(w)),
    );
  }
  return out;
}

/** The hosts a Caddyfile asks about each request before proxying it: `forward_auth auth:9000 { uri /verify }`. */
export function caddyAuthenticators(f: TextFile): string[] {
  const out: string[] = [];
  const visit = (nodes: Node[]) => {
    for (const n of nodes) {
      if (n.words[0] === 'forward_auth') out.push(...upstreamsOf(n).map(hostOf));
      if (n.block) visit(n.block);
    }
  };
  visit(parseCaddyfile(f));
  return out;
}

/** The upstreams of a `reverse_proxy` line: its words after the directive that are not a matcher. */
export function upstreamsOf(n: { words: string[] }): string[] {
  return n.words.slice(1).filter((w) => !w.startsWith('/') && !w.startsWith('@') && w !== '*');
}

export const hostOf = (upstream: string) =>
  upstream
    .replace(/^(h2c|https?):\/\//, '')
    .replace(/^\[([^\]]+)\].*$/, '$1')
    .split(/[:/]/)[0] ?? '';

/** caddy-ratelimit: `rate_limit { zone NAME { key K; events N; window W } }` or flat. */
function rateLimit(sheet: FactSheet, n: Node): void {
  sheet.set('rate_limit.enabled', true, n.at, 'rate_limit (the caddy-ratelimit plugin) on the site');
  const lines: Node[] = [];
  const collect = (ns: Node[]) => {
    for (const c of ns) {
      lines.push(c);
      if (c.block) collect(c.block);
    }
  };
  collect(n.block ?? []);
  const val = (k: string) => lines.find((l) => l.words[0] === k);
  const events = Number(val('events')?.words[1]);
  const window = /^(\d+)(s|m|h)$/.exec(val('window')?.words[1] ?? '');
  if (Number.isInteger(events) && window) {
    const seconds = Number(window[1]) * (window[2] === 'h' ? 3600 : window[2] === 'm' ? 60 : 1);
    if (seconds > 0)
      sheet.set(
        'rate_limit.per_minute',
        Math.floor((events * 60) / seconds),
        val('events')!.at,
        `events ${events} per window ${window[0]}`,
      );
  }
  const key = val('key')?.words[1];
  if (key === '{remote}' || key === '{remote_host}' || key === '{http.request.remote.host}' || key === '{client_ip}')
    sheet.set('rate_limit.scope', 'ip', val('key')!.at, `key ${key}`);
}
