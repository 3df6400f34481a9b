// What every collector shares during one collection: the files, parsed Dockerfiles, the
// options, notes about the collection, and the proxies' configurations.

import { posix } from 'node:path';
import { literal } from '../shared/regexp.js';
import { caddyAuthenticators, caddyFacts, caddyRoutes } from './caddy.js';
import { parseDotenv } from './compose/interpolate.js';
import { type DockerfileInfo, readDockerfile } from './dockerfile/read.js';
import { dirOf, type Inputs, normalise, type TextFile } from './inputs.js';
import { authRequestHosts, NginxConfig } from './nginx.js';
import { mcpLocations, nginxFacts, type ProxyContext } from './nginx-facts.js';
import { namesMcpRoute, type Role } from './roles.js';
import type { At, FactSheet } from './sheet.js';
import type { CollectionNote, FileKind } from './types.js';
import { readYaml, type YamlDoc } from './yaml-lines.js';

export interface CollectOptions {
  /** Compose projects made of several files, merged in order (`docker compose -f a -f b`). */
  compose?: string[][];
  /** Variables for Compose interpolation, as if set in the shell (they win over .env). */
  env?: Record<string, string>;
  profiles?: string[];
  /** Names of the services, workloads or client entries that are MCP servers (otherwise recognised). */
  servers?: string[];
  /** Kustomization directories to build (default: every kustomization no other one includes). */
  kustomizations?: string[];
  /** `kubectl kustomize` output per kustomization directory: a file among the inputs to read instead. */
  rendered?: Record<string, string>;
  /**
   * The files the caller named (the CLI's file arguments); a file found by walking a directory
   * is not named. Unset, every file counts as named (deployment_check hands each one over).
   */
  named?: readonly string[];
}

export interface ProxyConfig {
  product: string;
  files: TextFile[];
  /** The proxy container's environment where the files show it: `*.template` files are rendered with it (envsubst, as the nginx image does). */
  env: Map<string, string>;
}

export class Context {
  readonly notes: CollectionNote[] = [];
  /** Proxy configuration files some container of the files reads (not read again as a host's proxy). */
  readonly claimed = new Set<string>();
  /**
   * Compose servers by the names a client reaches their container with: `container_name` (for
   * `docker exec -i NAME`) and `service NAME` (for `docker compose run NAME`); read by client entries,
   * which come after every Compose project.
   */
  readonly composeContainers = new Map<string, FactSheet>();
  #localBuilds: Map<string, { df: DockerfileInfo; contextDir: string; at: At }> | undefined;
  readonly #dockerfiles = new Map<string, DockerfileInfo | null>();
  readonly #nginx = new Map<string, NginxConfig>();

  readonly inputs: Inputs;
  readonly kinds: Map<string, FileKind>;
  readonly options: CollectOptions;

  constructor(inputs: Inputs, kinds: Map<string, FileKind>, options: CollectOptions) {
    this.inputs = inputs;
    this.kinds = kinds;
    this.options = options;
  }

  /**
   * Whether the caller pointed at these files (by name, with --compose, or a kustomization's
   * directory): only then may a lone service with no sign of MCP be taken for the server. A walk
   * meets every Compose file of a repository (test fixtures, upgrade helpers, observability
   * stacks), and their only service is rarely one.
   */
  pointedAt(files: readonly string[], kustomization?: string | null): boolean {
    const { named, compose, kustomizations } = this.options;
    if (named === undefined) return true;
    if (files.some((f) => named.includes(f) || compose?.some((project) => project.includes(f)))) return true;
    return !!kustomization && (kustomizations ?? []).some((k) => k.replace(/\/$/, '') === dirOf(kustomization));
  }

  note(file: string, what: string): void {
    this.notes.push({ file, what });
  }

  /**
   * The build a Compose file among the files gives an image tag of its own (`image:
   * kali-mcp-server:latest` beside `build:`): what `docker run` of that tag, with no registry or
   * namespace, starts (Alzarak/Kali-Linux-MCP's client entries). Null for any other image.
   */
  localBuildOf(image: string): { df: DockerfileInfo; contextDir: string; at: At } | null {
    if (image.includes('/') || image.includes('@')) return null;
    this.#localBuilds ??= this.#composeBuilds();
    return this.#localBuilds.get(withTag(image)) ?? null;
  }

  /** Every local tag the Compose files among the files give a build of theirs, read once. */
  #composeBuilds(): Map<string, { df: DockerfileInfo; contextDir: string; at: At }> {
    const out = new Map<string, { df: DockerfileInfo; contextDir: string; at: At }>();
    for (const f of this.inputs.all()) {
      if (this.kinds.get(f.path) !== 'compose') continue;
      let doc: YamlDoc | undefined;
      try {
        doc = readYaml(f.text, { composeTags: true })[0];
      } catch {
        continue;
      }
      const services = (doc?.value as Record<string, unknown> | undefined)?.['services'];
      if (!services || typeof services !== 'object') continue;
      // The project's committed .env, then each variable's default, as Compose fills `image:` in
      // (loaishar/mcp-server's `${REGISTRY:-}unified-mcp-v2:${TAG:-latest}`); one set nowhere leaves it out.
      const dotenv = parseDotenv(this.inputs.get(normalise(posix.join(dirOf(f.path), '.env')))?.text ?? '').values;
      const filled = (v: unknown) =>
        typeof v === 'string'
          ? v.replace(/\$\{([A-Za-z_]\w*)(?::?-([^}]*))?\}/g, (m, n: string, d?: string) => dotenv.get(n) ?? d ?? m)
          : v;
      for (const [name, spec] of Object.entries(services as Record<string, Record<string, unknown>>)) {
        const own = filled(spec?.['image']);
        const build = spec?.['build'];
        if (typeof own !== 'string' || own.includes('$') || own.includes('/') || build === undefined || out.has(withTag(own))) continue;
        const context = typeof build === 'string' ? build : String((build as Record<string, unknown>)['context'] ?? '.');
        const contextDir = this.inputs.resolve(f.path, context);
        const named = typeof build === 'object' && build !== null ? (build as Record<string, unknown>)['dockerfile'] : undefined;
        const path = normalise(posix.join(contextDir, typeof named === 'string' ? named : 'Dockerfile'));
        const df = this.kinds.get(path) === 'dockerfile' ? this.dockerfile(path) : null;
        if (df) out.set(withTag(own), { df, contextDir, at: { file: f.path, line: doc!.line(['services', name, 'build']) } });
      }
    }
    return out;
  }

  /** A Dockerfile as a build reads it, with the build's `--build-arg`s where the files give them. */
  dockerfile(path: string, buildArgs: ReadonlyMap<string, string | null> = new Map(), target: string | null = null): DockerfileInfo | null {
    const key = JSON.stringify([path, [...buildArgs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), target]);
    if (!this.#dockerfiles.has(key)) {
      const f = this.inputs.get(path);
      this.#dockerfiles.set(key, f ? readDockerfile(f.path, f.text, buildArgs, target) : null);
    }
    return this.#dockerfiles.get(key)!;
  }

  /** The proxy configuration files of a container: its build context and what is mounted into it. */
  proxyFiles(contextDir: string | null, volumes: { source: string; target: string }[], baseDir: string, kinds: FileKind[]): TextFile[] {
    const out = new Map<string, TextFile>();
    const add = (prefix: string) => {
      for (const f of this.inputs.all()) {
        if (!kinds.includes(this.kinds.get(f.path) ?? 'other')) continue;
        if (f.path === prefix || prefix === '' || f.path.startsWith(`${prefix}/`)) out.set(f.path, f);
      }
    };
    if (contextDir !== null) add(contextDir);
    // Bind mounts of the project only (./, ../): a named volume's content is not in the files, and
    // a host path is not either (`/:/rootfs:ro`, a node exporter's, is no mount of every file read).
    for (const v of volumes)
      if (/^\.{1,2}\//.test(v.source)) add(this.inputs.resolve(`${baseDir ? `${baseDir}/` : ''}x`, v.source));
      else {
        const copy = this.deployedCopy(v.source);
        if (copy !== null) add(copy);
      }
    for (const p of out.keys()) this.claimed.add(p);
    return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /**
   * The path among the inputs an absolute mount names where the project is deployed to a directory
   * of the host (Cronus87/ProxmoxMCP-Production's `/opt/proxmox-mcp/config/caddy/Caddyfile`, its
   * repository's config/caddy/Caddyfile): the longest tail of two directories or more that is a file
   * or directory read. Not a system path (`/etc/nginx/nginx.conf`), which is the host's own.
   */
  deployedCopy(source: string): string | null {
    if (!source.startsWith('/') || /^\/(etc|usr|var|proc|sys|run|dev|lib|bin|sbin)\//.test(source)) return null;
    const parts = source.replace(/\/+$/, '').split('/').filter(Boolean);
    for (let i = 1; i <= parts.length - 3; i++) {
      const tail = parts.slice(i).join('/');
      if (this.inputs.get(tail) || this.inputs.all().some((f) => f.path.startsWith(`${tail}/`))) return tail;
    }
    return null;
  }

  /** The configuration a proxy container reads, found among the inputs by its build context and mounts. */
  proxyConfig(
    role: Role,
    contextDir: string | null,
    volumes: { source: string; target: string }[],
    baseDir: string,
    env: Map<string, string> = new Map(),
  ): ProxyConfig | null {
    if (role?.kind !== 'proxy') return null;
    const kinds: FileKind[] = role.product === 'nginx' ? ['nginx'] : role.product === 'caddy' ? ['caddyfile'] : ['traefik'];
    return { product: role.product, files: this.proxyFiles(contextDir, volumes, baseDir, kinds), env };
  }

  nginxConfig(files: (TextFile & { lineOffset?: number; name?: string })[]): NginxConfig {
    const key = files.map((f) => f.path).join('\n');
    let cfg = this.#nginx.get(key);
    if (!cfg) this.#nginx.set(key, (cfg = new NginxConfig(files)));
    return cfg;
  }

  /** Whether a proxy's configuration (build context or mounts) forwards to `target`. */
  proxyConfigNames(
    contextDir: string | null,
    volumes: { source: string; target: string }[],
    targets: string[],
    baseDir = '',
    env: Map<string, string> = new Map(),
    /** Only a route, site or upstream named for MCP counts (`route`: only a route's path). */
    mcpOnly: boolean | 'route' = false,
  ): boolean {
    const nginx = this.proxyFiles(contextDir, volumes, baseDir, ['nginx']).map((f) => render(f, env));
    if (nginx.length) {
      const m = mcpLocations(this.nginxConfig(nginx), targets);
      if (m.matchedBy.startsWith('its proxy_pass') && (mcpOnly === true ? m.namesMcp : m.mcpRoute)) return true;
    }
    const caddy = this.proxyFiles(contextDir, volumes, baseDir, ['caddyfile']);
    // After a matcher too: `reverse_proxy @mcp mcp-server:8000`, `reverse_proxy /mcp* mcp-server:8000`.
    return caddy.some((f) =>
      caddyRoutes(f).some(
        (r) =>
          targets.some((t) => new RegExp(`^(https?://)?${literal(t)}\\b`).test(r.upstream)) &&
          (!mcpOnly || namesMcpRoute(r.path) || (mcpOnly === true && r.mcpSite)),
      ),
    );
  }

  /** Whether a proxy's configuration asks `target` about each request (nginx `auth_request`, Caddy `forward_auth`): its authenticator. */
  proxyAuthenticates(
    contextDir: string | null,
    volumes: { source: string; target: string }[],
    targets: string[],
    baseDir = '',
    env: Map<string, string> = new Map(),
  ): boolean {
    const nginx = this.proxyFiles(contextDir, volumes, baseDir, ['nginx']).map((f) => render(f, env));
    const hosts = [
      ...(nginx.length ? authRequestHosts(this.nginxConfig(nginx)) : []),
      ...this.proxyFiles(contextDir, volumes, baseDir, ['caddyfile']).flatMap(caddyAuthenticators),
    ];
    return hosts.some((h) => targets.includes(h));
  }

  /**
   * Whether a proxy's nginx configuration, among the files, has no route that may reach `target`:
   * every proxy_pass goes to the proxy's own loopback, to another service (`elsewhere`) or to a
   * public name. Then the proxy is not in front of it, however the networks are shared.
   */
  proxyConfigExcludes(
    contextDir: string | null,
    volumes: { source: string; target: string }[],
    targets: string[],
    elsewhere: string[],
    baseDir = '',
    env: Map<string, string> = new Map(),
    closed = false,
  ): boolean {
    const nginx = this.proxyFiles(contextDir, volumes, baseDir, ['nginx']).map((f) => render(f, env));
    return nginx.length > 0 && mcpLocations(this.nginxConfig(nginx), targets, elsewhere, closed).locs.length === 0;
  }

  /** Decide the facts the proxy's configuration shows. */
  proxyFacts(sheet: FactSheet, cfg: ProxyConfig | null, pc: ProxyContext): void {
    if (!cfg) return;
    if (cfg.product === 'nginx') {
      // Templates are rendered with the variables the container is known to have; the rest stay `${VAR}` (undecided).
      const files = cfg.files.map((f) => render(f, cfg.env));
      if (files.length) nginxFacts(sheet, this.nginxConfig(files), pc);
    } else if (cfg.product === 'caddy') {
      for (const f of cfg.files) caddyFacts(sheet, f, pc);
    }
  }
}

/** A `*.template` file rendered as the nginx image's envsubst step does, with the variables known; others stay `${VAR}`. */
export function render<T extends TextFile>(f: T, env: Map<string, string>): T {
  if (!f.path.endsWith('.template') || !env.size) return f;
  return { ...f, text: f.text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, n: string) => env.get(n) ?? m) };
}

/** An image reference with its tag, `latest` where none is written. */
const withTag = (ref: string) => (/:[\w.-]+$/.test(ref.split('/').pop()!) ? ref : `${ref}:latest`);
