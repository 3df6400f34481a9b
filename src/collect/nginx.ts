// nginx configuration read as nginx reads it (directives, blocks, include), from conf files,
// templates (`${VAR}` left as written: a value that depends on one is not decided) or the
// output of `nginx -T` (split back into its files). Used for the proxy in front of a server.
import { posix } from 'node:path';
import type { TextFile } from './inputs.js';
import type { At } from './sheet.js';

export interface Directive {
  name: string;
  args: string[];
  at: At;
  block?: Directive[];
}

/** `nginx -T` prints every file after a `# configuration file PATH:` line: split it back. */
export function splitNginxT(file: TextFile): { path: string; text: string; lineOffset: number }[] {
  const lines = file.text.split('\n');
  const out: { path: string; text: string; lineOffset: number }[] = [];
  let current: { path: string; lines: string[]; lineOffset: number } | null = null;
  lines.forEach((l, i) => {
    const m = /^# configuration file (\S+):$/.exec(l);
    if (m) {
      if (current) out.push({ path: current.path, text: current.lines.join('\n'), lineOffset: current.lineOffset });
      current = { path: m[1]!, lines: [], lineOffset: i + 1 };
    } else current?.lines.push(l);
  });
  if (current) {
    const c = current as { path: string; lines: string[]; lineOffset: number };
    out.push({ path: c.path, text: c.lines.join('\n'), lineOffset: c.lineOffset });
  }
  return out.length ? out : [{ path: file.path, text: file.text, lineOffset: 0 }];
}

/** Parse one file's directives. `reportAs` is the file sources name; `lineOffset` shifts lines (nginx -T). */
export function parseNginx(text: string, reportAs: string, lineOffset = 0): Directive[] {
  const root: Directive[] = [];
  const stack: Directive[][] = [root];
  let words: string[] = [];
  let wordLine = 0;
  let line = 1;
  let i = 0;
  const push = (w: string) => {
    if (!words.length) wordLine = line;
    words.push(w);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let w = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) {
          w += text[j + 1];
          j += 2;
          continue;
        }
        if (text[j] === '\n') line++;
        w += text[j];
        j++;
      }
      push(w);
      i = j + 1;
    } else if (c === ';' || c === '{') {
      // A template line that is only `${VAR}` expands to whole directives: keep it as one of its own.
      while (words.length > 1 && /^\$\{[^}]+\}$/.test(words[0]!)) {
        stack[stack.length - 1]!.push({ name: words.shift()!, args: [], at: { file: reportAs, line: wordLine + lineOffset } });
      }
      const [name, ...args] = words;
      if (name !== undefined) {
        const d: Directive = { name, args, at: { file: reportAs, line: wordLine + lineOffset } };
        stack[stack.length - 1]!.push(d);
        if (c === '{') {
          d.block = [];
          stack.push(d.block);
        }
      } else if (c === '{') stack.push([]);
      words = [];
      i++;
    } else if (c === '}') {
      if (stack.length > 1) stack.pop();
      words = [];
      i++;
    } else {
      let j = i;
      // ${VAR} stays one word even across the braces; a `{` after a word ends it.
      let w = '';
      while (j < text.length && !/[\s;#"']/.test(text[j]!)) {
        if (text[j] === '$' && text[j + 1] === '{') {
          const end = text.indexOf('}', j);
          if (end < 0) break;
          w += text.slice(j, end + 1);
          j = end + 1;
          continue;
        }
        if (text[j] === '{' || text[j] === '}') break;
        w += text[j];
        j++;
      }
      if (j === i) {
        i++;
        continue;
      }
      push(w);
      i = j;
    }
  }
  return root;
}

/** A set of nginx files with includes resolved by file name (nginx paths rarely match the repository's). */
export class NginxConfig {
  readonly files = new Map<string, Directive[]>();

  constructor(inputs: (TextFile & { lineOffset?: number; name?: string })[]) {
    for (const f of inputs) {
      if (f.name) {
        // A file kept in a ConfigMap key: reported as the manifest, lines shifted to the key's.
        this.files.set(`${f.path}#${f.name}`, parseNginx(f.text, f.path, f.lineOffset ?? 0));
        continue;
      }
      for (const part of splitNginxT(f))
        this.files.set(part.path === f.path ? f.path : `${f.path}#${part.path}`, parseNginx(part.text, f.path, part.lineOffset));
    }
  }

  /** The files an `include` pattern names, matched on the file name (a `.template` suffix ignored). */
  included(pattern: string): Directive[][] {
    const glob = (g: string) =>
      new RegExp(
        `^${g
          .replace(/[.+^$()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '.')}(\\.template)?$`,
      );
    const clean = pattern.replace(/\$\{[^}]+\}/g, '');
    const full = glob(clean);
    const base = glob(posix.basename(clean));
    const inner = (p: string) => (p.includes('#') ? p.split('#').pop()! : p);
    // `nginx -T` parts carry nginx's own absolute paths: match those whole; repository files by name.
    const byName = [...this.files.entries()].filter(([p]) =>
      inner(p).startsWith('/') && clean.startsWith('/') ? full.test(inner(p)) : base.test(posix.basename(inner(p))),
    );
    // Where files of the directory the pattern names are among them (`/etc/nginx/mcp.d/*.conf` and a
    // repository's mcp.d directory), those are the ones: a name alone matches every `*.conf`.
    const dir = posix.basename(posix.dirname(clean));
    // The nginx image renders templates/*.template into conf.d, which such a pattern names too.
    const parent = (p: string) => posix.basename(posix.dirname(inner(p)));
    const inDir =
      /^[\w.-]+$/.test(dir) && dir !== '.'
        ? byName.filter(([p]) => parent(p) === dir || (dir === 'conf.d' && parent(p) === 'templates' && p.endsWith('.template')))
        : [];
    return (inDir.length ? inDir : byName).map(([, d]) => d);
  }

  /** Directives of a block with includes expanded at every level (bounded depth). */
  expand(block: Directive[], depth = 0): Directive[] {
    if (depth > 12) return block;
    const out: Directive[] = [];
    for (const d of block) {
      if (d.name === 'include' && d.args[0]) for (const inc of this.included(d.args[0])) out.push(...this.expand(inc, depth + 1));
      else out.push(d.block ? { ...d, block: this.expand(d.block, depth + 1) } : d);
    }
    return out;
  }

  #roots: Directive[] | null = null;

  /** The top-level context: every file not included by another, expanded. */
  roots(): Directive[] {
    if (this.#roots) return this.#roots;
    const includedNames = new Set<string>();
    for (const ds of this.files.values())
      walkAll(ds, (d) => {
        if (d.name === 'include' && d.args[0])
          for (const b of this.included(d.args[0])) if (b !== ds) includedNames.add(String(this.keyOf(b)));
      });
    const out: Directive[] = [];
    for (const [p, ds] of this.files) if (!includedNames.has(p)) out.push(...this.expand(ds));
    this.#roots = out;
    return out;
  }

  keyOf(block: Directive[]): string | undefined {
    for (const [p, ds] of this.files) if (ds === block) return p;
    return undefined;
  }
}

export function walkAll(ds: Directive[], f: (d: Directive) => void): void {
  for (const d of ds) {
    f(d);
    if (d.block) walkAll(d.block, f);
  }
}

/** One location of a server, with the directives of every enclosing level (for inheritance). */
export interface LocationCtx {
  server: Directive;
  location: Directive | null;
  /** http, server, location directive lists, outermost first (includes expanded). */
  levels: Directive[][];
  /** proxy_pass target of this location, as written. */
  proxyPass: Directive | null;
  /**
   * The files hold the `http` block around this server. Without it (a `conf.d` or
   * `sites-enabled` file), the http level that includes it may set what the server leaves out.
   */
  httpLevelKnown: boolean;
  /** The main context's directives around the `http` block (its `error_log`, inherited below), when the files hold it. */
  mainLevel: Directive[];
}

/** Every location (and server without locations) that proxies somewhere. */
export function proxiedLocations(cfg: NginxConfig): LocationCtx[] {
  const roots = cfg.roots();
  const http = roots.filter((d) => d.name === 'http').flatMap((d) => cfg.expand(d.block ?? []));
  const httpLevel = http.length ? http : roots;
  const mainLevel = http.length ? cfg.expand(roots.filter((d) => d.name !== 'http')) : [];
  const servers = httpLevel.filter((d) => d.name === 'server');
  const out: LocationCtx[] = [];
  for (const server of servers) {
    const sLevel = cfg.expand(server.block ?? []);
    const visit = (level: Directive[], chain: Directive[][], loc: Directive | null) => {
      const pp = level.find((d) => d.name === 'proxy_pass') ?? null;
      if (pp && loc) out.push({ server, location: loc, levels: chain, proxyPass: pp, httpLevelKnown: http.length > 0, mainLevel });
      for (const l of level.filter((d) => d.name === 'location')) {
        const inner = cfg.expand(l.block ?? []);
        visit(inner, [...chain, inner], l);
      }
    };
    visit(sLevel, [httpLevel, sLevel], null);
    const pp = sLevel.find((d) => d.name === 'proxy_pass');
    if (pp) out.push({ server, location: null, levels: [httpLevel, sLevel], proxyPass: pp, httpLevelKnown: http.length > 0, mainLevel });
  }
  return out;
}

/** The value of a directive as nginx inherits it: the innermost level that sets it. */
export function effective(ctx: LocationCtx, name: string): Directive[] {
  for (let i = ctx.levels.length - 1; i >= 0; i--) {
    const here = ctx.levels[i]!.filter((d) => d.name === name);
    if (here.length) return here;
  }
  return [];
}

/**
 * Whether a directive's absence on the route is known: set somewhere in the chain, or the
 * http level that would pass it down is among the files.
 */
export function absenceKnown(ctx: LocationCtx, name: string): boolean {
  return ctx.httpLevelKnown || ctx.levels.slice(1).some((l) => l.some((d) => d.name === name));
}

/**
 * The hosts an nginx configuration asks about each request before proxying it: what the
 * locations its `auth_request` lines name proxy to (`auth_request /oauth/verify;` with `location
 * = /oauth/verify { proxy_pass http://auth:9000; }`), upstream blocks resolved to their servers.
 */
export function authRequestHosts(cfg: NginxConfig): string[] {
  const uris = new Set<string>();
  walkAll(cfg.roots(), (d) => {
    if (d.name === 'auth_request' && d.args[0] && d.args[0] !== 'off') uris.add(d.args[0]);
  });
  const ups = upstreams(cfg);
  const hostOf = (address: string) => address.replace(/^\[([^\]]+)\].*$/, '$1').split(/[:/]/)[0] ?? '';
  return proxiedLocations(cfg)
    .filter((l) => l.location && uris.has(l.location.args.at(-1) ?? ''))
    .flatMap((l) => {
      const host = hostOf((l.proxyPass?.args[0] ?? '').replace(/^https?:\/\//, ''));
      return ups.has(host) ? ups.get(host)!.map((d) => hostOf(d.args[0] ?? '')) : [host];
    });
}

/** upstream blocks by name: their `server` addresses. */
export function upstreams(cfg: NginxConfig): Map<string, Directive[]> {
  const out = new Map<string, Directive[]>();
  walkAll(cfg.roots(), (d) => {
    if (d.name === 'upstream' && d.args[0])
      out.set(
        d.args[0],
        (d.block ?? []).filter((x) => x.name === 'server'),
      );
  });
  return out;
}

/**
 * The values a `map` block gives a variable (`map $host $gateway_backend_url { default
 * http://gateway:4444; }`, IBM/mcp-context-forge), or null where no map sets it.
 */
export function mapValues(cfg: NginxConfig, variable: string): string[] | null {
  let out: string[] | null = null;
  walkAll(cfg.roots(), (d) => {
    if (d.name === 'map' && d.args[1] === variable)
      out = [
        ...(out ?? []),
        ...(d.block ?? [])
          .filter((x) => x.name !== 'hostnames' && x.name !== 'volatile')
          .map((x) => (x.args.at(-1) ?? '').replace(/^(["'])(.*)\1$/, '$2')),
      ];
  });
  return out;
}

/** zones declared with limit_req_zone / limit_conn_zone: key and rate. */
export function zones(
  cfg: NginxConfig,
  directive: 'limit_req_zone' | 'limit_conn_zone',
): Map<string, { key: string; rate: string | null; at: At }> {
  const out = new Map<string, { key: string; rate: string | null; at: At }>();
  walkAll(cfg.roots(), (d) => {
    if (d.name !== directive) return;
    const zone = d.args
      .find((a) => a.startsWith('zone='))
      ?.slice(5)
      .split(':')[0];
    const rate = d.args.find((a) => a.startsWith('rate='))?.slice(5) ?? null;
    if (zone) out.set(zone, { key: d.args[0] ?? '', rate, at: d.at });
  });
  return out;
}

export const unresolved = (s: string) => /\$\{[^}]+\}/.test(s);

/**
 * Host nginx files as the configurations they form: each file with a top-level `http` block (an
 * nginx.conf) or `nginx -T` output with the files under its directory that it includes, and the
 * other files a directory at a time (a conf.d). A repository keeps several nginx.conf for
 * different deployments (mcp-ecosystem/mcp-gateway's allinone/ and multi/): merged, one's
 * directives would count in the other's.
 */
export function configurations(files: TextFile[]): TextFile[][] {
  const isRoot = (f: TextFile) => /^\s*http\s*\{/m.test(f.text) || /^# configuration file \S+:$/m.test(f.text);
  const roots = files.filter(isRoot).sort((a, b) => (a.path < b.path ? -1 : 1));
  const fragments = files.filter((f) => !isRoot(f));
  const taken = new Set<string>();
  const groups: TextFile[][] = [];
  for (const root of roots) {
    const dir = posix.dirname(root.path);
    const below = fragments.filter((f) => dir === '.' || f.path.startsWith(`${dir}/`));
    const cfg = new NginxConfig([root, ...below]);
    // The fragments the root includes, and those they include in turn.
    const included = new Set<string>();
    const visit = (ds: Directive[]) =>
      walkAll(ds, (d) => {
        if (d.name !== 'include' || !d.args[0]) return;
        for (const block of cfg.included(d.args[0])) {
          const key = cfg.keyOf(block);
          if (key === undefined || key === root.path || key.startsWith(`${root.path}#`) || included.has(key)) continue;
          included.add(key);
          visit(block);
        }
      });
    for (const [key, ds] of cfg.files) if (key === root.path || key.startsWith(`${root.path}#`)) visit(ds);
    const mine = below.filter((f) => included.has(f.path));
    for (const f of mine) taken.add(f.path);
    groups.push([root, ...mine]);
  }
  const byDir = new Map<string, TextFile[]>();
  for (const f of fragments.filter((x) => !taken.has(x.path)))
    byDir.set(posix.dirname(f.path), [...(byDir.get(posix.dirname(f.path)) ?? []), f]);
  // A directory's server blocks that include fragments kept in another directory
  // (mabi8/mcp-stack's `include /etc/nginx/mcp.d/*.conf`) are read with those fragments, which
  // then form no configuration of their own.
  const pulled = new Map<string, TextFile[]>();
  for (const [dir, own] of byDir) {
    const others = fragments.filter((f) => !taken.has(f.path) && posix.dirname(f.path) !== dir);
    const cfg = new NginxConfig([...own, ...others]);
    const keys = new Set<string>();
    for (const f of own)
      walkAll(cfg.files.get(f.path) ?? [], (d) => {
        if (d.name === 'include' && d.args[0] && posix.dirname(d.args[0]) !== '.')
          for (const block of cfg.included(d.args[0])) keys.add(String(cfg.keyOf(block)));
      });
    pulled.set(
      dir,
      others.filter((f) => keys.has(f.path)),
    );
  }
  const pulledAway = new Set([...pulled.values()].flat().map((f) => f.path));
  for (const dir of [...byDir.keys()].sort()) {
    const own = byDir.get(dir)!.filter((f) => !pulledAway.has(f.path) || pulled.get(dir)!.length > 0);
    if (own.length) groups.push([...own, ...pulled.get(dir)!]);
  }
  return groups;
}
