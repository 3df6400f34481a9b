// A Compose service as the collector reads it: what it runs and builds, its environment, volumes,
// ports and health check, written where the project's files say.
import { posix } from 'node:path';
import type { Context } from '../context.js';
import { builtOn } from '../dockerfile/built-on.js';
import { type DockerfileInfo, readDockerfile } from '../dockerfile/read.js';
import { volumeParts } from '../host-paths.js';
import { dirOf } from '../inputs.js';
import type { EnvValue } from '../profiles/signet.js';
import { builtRole, FORWARDS, imageRole, mcpWord, type Role } from '../roles.js';
import type { At } from '../sheet.js';
import { wordsOfLine } from '../shell.js';
import type { Labels } from '../traefik.js';
import { Unresolved } from './interpolate.js';
import { asMap, type ComposeProject, type ComposeService, isObj, networksMap, type Obj } from './load.js';

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

export interface Svc {
  s: ComposeService;
  role: Role;
  /** The image it runs: `image:` or the final FROM of its Dockerfile. */
  image: string | null;
  dockerfile: string | null;
  /** That Dockerfile as this service's build reads it (its `build.args`). */
  df: DockerfileInfo | null;
  /** The service whose `build:` makes the image this one runs, where that is another's. */
  builtBy: string | null;
  contextDir: string | null;
  networks: string[];
  /** Runs once and exits, or has no network: never a server. */
  oneShot: boolean;
}

/** Words that name a job run once: seeding, initialising, migrating, registering, backing up. */
const JOB = /(^|[^a-z])(seed|init|migrat\w*|setup|register\w*|bootstrap|populate|backup|restore|import)([^a-z]|$)/i;

/** What a service's `build:` builds: its Dockerfile as that build reads it, and its context. */
function buildOf(
  ctx: Context,
  project: ComposeProject,
  s: ComposeService,
): { dockerfile: string | null; contextDir: string | null; df: DockerfileInfo | null } {
  const spec = s.spec;
  const composeDir = dirOf(project.entry);
  let dockerfile: string | null = null;
  let contextDir: string | null = null;
  const build = spec['build'];
  if (build !== undefined) {
    const context = str(build) ?? (isObj(build) ? (str(build['context']) ?? '.') : '.');
    contextDir = ctx.inputs.resolve(`${composeDir ? `${composeDir}/` : ''}x`, context);
    const named = isObj(build) ? str(build['dockerfile']) : null;
    dockerfile = posix.join(contextDir, named ?? 'Dockerfile').replace(/^\.\//, '');
    // With no Dockerfile in the context, Docker builds a lower-case `dockerfile` (TheLukasHenry/proxy-server's uvx/dockerfile).
    const lower = posix.join(contextDir, 'dockerfile').replace(/^\.\//, '');
    if (named === null && !ctx.inputs.get(dockerfile) && ctx.inputs.get(lower)) dockerfile = lower;
  }
  const inline = isObj(build) ? str(build['dockerfile_inline']) : null;
  const target = isObj(build) ? str(build['target']) : null;
  let df: DockerfileInfo | null;
  if (inline !== null) {
    // `dockerfile_inline:` (docker/mcp-gateway's interceptors example) wins over any Dockerfile in the
    // context: read as written in the compose file, its lines counted from there.
    const at = s.at('build', 'dockerfile_inline');
    const block = /:\s*[|>][+-]?\d*\s*(#.*)?$/.test(ctx.inputs.get(at.file)?.text.split('\n')[at.line - 1] ?? '');
    dockerfile = at.file;
    df = readDockerfile(at.file, '\n'.repeat(block ? at.line : at.line - 1) + inline, buildArgs(build), target);
  } else df = dockerfile ? ctx.dockerfile(dockerfile, buildArgs(build), target) : null;
  if (df?.missingTarget)
    ctx.note(
      s.at('build', 'target').file,
      `service ${s.name} builds target ${df.missingTarget}, which is no stage of ${dockerfile}: the build fails as written, and its last stage is read`,
    );
  return { dockerfile, contextDir, df };
}

export function describe(ctx: Context, project: ComposeProject, s: ComposeService, completed: ReadonlySet<string>): Svc {
  const spec = s.spec;
  const composeDir = dirOf(project.entry);
  // A service that runs the image another service of the project builds and tags
  // (JoeCotellese/mindgrapes-server's mcp, `image: openbrain-web:local`, which web builds): Compose
  // builds it once and both run that build.
  const builder =
    spec['build'] === undefined && str(spec['image'])
      ? [...project.services.values()].find((o) => o !== s && o.spec['build'] !== undefined && str(o.spec['image']) === str(spec['image']))
      : undefined;
  const { dockerfile, contextDir, df: own } = buildOf(ctx, project, builder ?? s);
  const df = own && onProjectBase(ctx, project, builder ?? s, own);
  // The project describes what its services build, a client or a proxy as much as the server.
  if (df && dockerfile) ctx.claimed.add(dockerfile);
  const image = str(spec['image']) ?? df?.base?.image ?? null;
  const networkMode = str(spec['network_mode']);
  const networks = networkMode ? [] : Object.keys(networksMap(spec['networks'] ?? ['default']));
  const restart = str(spec['restart']);
  let role = df
    ? builtRole(df.base?.image ?? null, df.proxyInstalled?.product ?? null, str(spec['image']) ?? null)
    : image
      ? imageRole(image)
      : null;
  // ROFIIGANSS/deep-thought-platform's catalog-ui, `FROM nginx:alpine` with a configuration that only
  // serves files (`try_files`): a web UI, not a proxy in front of anything.
  if (role?.kind === 'proxy' && role.product === 'nginx') {
    const confs = ctx.proxyFiles(contextDir, volumesOfSpec(spec), composeDir, ['nginx']);
    if (confs.length && !confs.some((f) => FORWARDS.test(f.text))) role = { kind: 'files' };
  }
  return {
    s,
    role,
    image,
    dockerfile: df ? dockerfile : null,
    df,
    builtBy: builder?.name ?? null,
    contextDir,
    networks,
    // `restart: "no"` is Compose's default: a one-shot also waits on other services, or another waits
    // on it to complete (Signet's key setup, IBM's register_fast_time); whatsapp-mcp-docker's server,
    // started on its own, says `restart: no` too, and onyx's MCP server (`python -m
    // onyx.mcp_server_main`, behind nginx) waits on others while it serves: a port it exposes, a
    // health check or a command that names MCP is a server's.
    oneShot:
      networkMode === 'none' ||
      (restart === 'no' &&
        !spec['ports'] &&
        (completed.has(s.name) ||
          (spec['depends_on'] !== undefined &&
            !spec['expose'] &&
            !spec['healthcheck'] &&
            !(
              mcpWord(JSON.stringify([spec['command'] ?? '', spec['entrypoint'] ?? ''])) &&
              // Unless the name or command says a job (TheLukasHenry/proxy-server's db-init runs seed_mcp_servers.py).
              !JOB.test(`${s.name} ${JSON.stringify([spec['command'] ?? '', spec['entrypoint'] ?? ''])}`)
            )))),
  };
}

/**
 * The build read on the image it starts from where another service of the project builds and tags
 * that image (`FROM mcp-base:latest` and a service `mcp-base` with `build:` and `image:
 * mcp-base:latest`, active or in a profile run first): its USER, ENTRYPOINT and installs are in it.
 */
function onProjectBase(
  ctx: Context,
  project: ComposeProject,
  s: ComposeService,
  df: DockerfileInfo,
  seen: ReadonlySet<string> = new Set(),
): DockerfileInfo {
  const base = df.base?.image;
  if (!base || seen.has(s.name)) return df;
  const other = [...project.services.values(), ...project.inactive.map((i) => i.service)].find(
    (o) => o.name !== s.name && !seen.has(o.name) && o.spec['build'] !== undefined && str(o.spec['image']) === base,
  );
  const parent = other ? buildOf(ctx, project, other).df : null;
  return other && parent ? builtOn(df, onProjectBase(ctx, project, other, parent, new Set([...seen, s.name]))) : df;
}

/** A build's `args` (map or `KEY=VALUE` list); a key without a value, or with an unset variable, comes from outside the files. */
function buildArgs(build: unknown): Map<string, string | null> {
  const args = asMap(isObj(build) ? build['args'] : undefined);
  return new Map(
    Object.entries(args).map(([k, v]) => [k, typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : null]),
  );
}

export const composeDir = (project: ComposeProject) => dirOf(project.entry);

/** What the container runs, as Compose joins it with its build's ENTRYPOINT and CMD, and where that is written. */
export function runOf(srv: Svc): { at: At; parts: unknown[] } {
  const spec = srv.s.spec;
  const df = srv.df;
  // With neither command nor entrypoint in the service, the container runs its build's ENTRYPOINT and CMD as written.
  if (spec['command'] === undefined && spec['entrypoint'] === undefined && df?.commandAt)
    return { at: df.commandAt, parts: [df.entrypoint] };
  // A command alone replaces the build's CMD and runs after its ENTRYPOINT.
  if (spec['entrypoint'] === undefined && df?.entrypointAt) return { at: srv.s.at('command'), parts: [df.entrypointOnly, spec['command']] };
  // An entrypoint clears the image's CMD: what runs is the service's entrypoint followed by its command.
  return { at: srv.s.at(spec['command'] !== undefined ? 'command' : 'entrypoint'), parts: [spec['entrypoint'], spec['command']] };
}

/**
 * What a service runs as words, each string split as Compose splits a `command:` string (quotes
 * kept together). A variable's word is its value with the variable unset, or `unresolved` where
 * the caller must not take that for the value (`--host ${HOST_IP:-0.0.0.0}` beside an unread .env).
 */
export const commandWordsOf = (parts: unknown[], unresolved?: string): string[] =>
  parts.flatMap((p) =>
    Array.isArray(p)
      ? p.map((w) => (w instanceof Unresolved ? (unresolved ?? w.asEmpty) : String(w)))
      : p instanceof Unresolved
        ? unresolved !== undefined
          ? [unresolved]
          : wordsOfLine(p.asEmpty)
        : typeof p === 'string'
          ? wordsOfLine(p)
          : [],
  );

/** What a service runs as words, with each variable the files leave unset written `${NAME}`: whose value it is stays visible. */
export const templateWordsOf = (parts: unknown[]): string[] =>
  parts.flatMap((p) =>
    Array.isArray(p)
      ? p.map((w) => (w instanceof Unresolved ? w.template : String(w)))
      : p instanceof Unresolved
        ? wordsOfLine(p.template)
        : typeof p === 'string'
          ? wordsOfLine(p)
          : [],
  );

export const wordsOf = (parts: unknown[]) =>
  parts
    .flatMap((p) => (Array.isArray(p) ? p : p instanceof Unresolved ? p.asEmpty.split(/\s+/) : typeof p === 'string' ? p.split(/\s+/) : []))
    .map((w) => (w instanceof Unresolved ? w.asEmpty : String(w)))
    .filter((w) => w !== '');

/**
 * A service's labels (list or map form) with the line of each: its container's, or in a Swarm stack
 * its `deploy.labels` (the ones Traefik's swarm provider reads), or both where the files do not say
 * which provider reads them.
 */
export function labelsOf(svc: Svc, from: 'container' | 'deploy' | 'both' = 'container'): Labels {
  const out: Labels = new Map();
  const deploy = svc.s.spec['deploy'];
  const sets: [unknown, string[]][] = [];
  if (from !== 'deploy') sets.push([svc.s.spec['labels'], ['labels']]);
  if (from !== 'container' && isObj(deploy)) sets.push([deploy['labels'], ['deploy', 'labels']]);
  for (const [l, path] of sets)
    if (isObj(l))
      for (const [k, v] of Object.entries(l))
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
          out.set(k, { value: String(v), at: svc.s.at(...path, k) });
  return out;
}

/**
 * Labels by which a Docker-label MCP gateway discovers the server (matthewdart/toolbox's
 * `mcp.enabled: "true"`, `mcp.transport: "stdio"`): the label that marks it, and the transport one names.
 */
export function mcpLabels(svc: Svc): { marked: { key: string; at: At } | null; transport: { value: string; at: At } | null } {
  const labels = labelsOf(svc, 'both');
  const on = [...labels].find(([k, v]) => /^mcp[._-](enabled|enable|server)$/i.test(k) && /^(true|1|yes)$/i.test(v.value.trim()));
  const t = [...labels].find(([k, v]) => /^mcp[._-]transport$/i.test(k) && /^(stdio|sse|http|streamable-?http)$/i.test(v.value.trim()));
  return {
    marked: on ? { key: `${on[0]}: ${on[1].value}`, at: on[1].at } : t ? { key: `${t[0]}: ${t[1].value}`, at: t[1].at } : null,
    transport: t ? { value: t[1].value.trim().toLowerCase(), at: t[1].at } : null,
  };
}

/** Traefik's provider for a Traefik service: `swarm` (v3's `--providers.swarm`, v2's `--providers.docker.swarmMode`) reads `deploy.labels`. */
export function traefikLabelSource(proxy: Svc): 'container' | 'deploy' {
  const words = wordsOf([proxy.s.spec['command']]).join(' ');
  return /--providers\.swarm(\.|=true\b|(?![=\w.]))|--providers\.docker\.swarmmode(=true\b|(?![=\w]))/i.test(words)
    ? 'deploy'
    : 'container';
}

/** A container's environment with the line that sets each value: the image's ENV, then the service's (values the files resolve). */
export function envView(df: DockerfileInfo | null, svc: Svc): Map<string, EnvValue> {
  const out = new Map<string, EnvValue>();
  for (const [k, v] of df?.env ?? []) out.set(k, { value: v, at: df!.envAt.get(k)! });
  const e = svc.s.spec['environment'];
  if (isObj(e))
    for (const [k, v] of Object.entries(e))
      if (typeof v === 'string' || typeof v === 'number') out.set(k, { value: String(v), at: svc.s.at('environment', k) });
  return out;
}

/** A container's environment as the files give it: the image's ENV, then the service's environment (resolved values only). */
export function containerEnv(svc: Svc): Map<string, string> {
  const env = new Map(svc.df?.env ?? []);
  const e = svc.s.spec['environment'];
  if (isObj(e)) for (const [k, v] of Object.entries(e)) if (typeof v === 'string' || typeof v === 'number') env.set(k, String(v));
  return env;
}

export function volumesOf(svc: Svc): { source: string; target: string }[] {
  return volumesOfSpec(svc.s.spec);
}

/** The volumes of a service's definition, as volumesOf reads them. */
export function volumesOfSpec(spec: Record<string, unknown>): { source: string; target: string }[] {
  const out: { source: string; target: string }[] = [];
  for (const v of (spec['volumes'] as unknown[]) ?? []) {
    // A variable set nowhere stays `${NAME}`: `${HOME}/.cache:/cache` is a home path whatever HOME is.
    const text = v instanceof Unresolved ? v.template : v;
    if (typeof text === 'string') {
      // A Windows source keeps its drive: `c:/Users/me/.docker/mcp/secrets:/secrets`, `C:\:/host/c:ro`.
      const { source, target } = volumeParts(text);
      if (source && target) out.push({ source, target });
    } else if (isObj(v)) {
      const source = v['source'] instanceof Unresolved ? v['source'].template : v['source'];
      // The long syntax's bind source is a path whatever it starts with: `source: config.yaml`
      // (hyprmcp/mcp-gateway) is ./config.yaml beside the compose file, as Compose resolves it.
      const relative = v['type'] === 'bind' && typeof source === 'string' && /^[\w@+-][^:]*$/.test(source) && !/^[A-Za-z]:/.test(source);
      if (typeof source === 'string') out.push({ source: relative ? `./${source}` : source, target: String(v['target'] ?? '') });
    }
  }
  return out;
}

/** The worst publication of a service's ports: none, loopback, or every interface (compose-spec ports). */
export function publishedPorts(svc: Svc): { kind: 'none' | 'loopback' | 'all_interfaces' | 'unknown'; at: At; text: string } {
  const ports = (svc.s.spec['ports'] as unknown[]) ?? [];
  let kind: 'none' | 'loopback' | 'all_interfaces' | 'unknown' = 'none';
  const texts: string[] = [];
  for (const p of ports) {
    let hostIp = '';
    // A port whose text a missing .env may set: where it binds is not in the files.
    if (p instanceof Unresolved && p.opaque) {
      texts.push(p.asEmpty);
      if (kind !== 'all_interfaces') kind = 'unknown';
      continue;
    }
    if (isObj(p)) {
      hostIp = str(p['host_ip']) ?? '';
      texts.push(`${hostIp ? `${hostIp}:` : ''}${str(p['published']) ?? ''}:${str(p['target']) ?? ''}`);
    } else {
      // [HOST_IP:][HOST_PORT:]CONTAINER_PORT[/PROTOCOL]; "3000" alone publishes a random host port on every interface.
      const t = (p instanceof Unresolved ? p.asEmpty : String(p)).trim();
      texts.push(t);
      const v6 = /^\[([^\]]+)\]:/.exec(t);
      if (v6) hostIp = v6[1]!;
      else if (t.split(':').length >= 3) hostIp = t.split(':')[0]!;
    }
    const loop = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(hostIp);
    kind = loop ? (kind === 'none' ? 'loopback' : kind) : 'all_interfaces';
  }
  return { kind, at: ports.length ? svc.s.at('ports') : svc.s.at(), text: texts.join(', ') };
}

/** The health check that runs: the service's `healthcheck.test`, else its build's HEALTHCHECK unless NONE. */
export function healthcheckOf(srv: Svc): { test: string; at: At } | null {
  const hc = srv.s.spec['healthcheck'];
  if (isObj(hc) && hc['test'] !== undefined)
    return { test: [hc['test']].flat().map(String).join(' '), at: srv.s.at('healthcheck', 'test') };
  const df = srv.df;
  return df?.healthcheck && !df.healthcheck.disabled ? { test: df.healthcheck.test, at: df.healthcheck.at } : null;
}

/** A network created outside the project (`external: true`, or `external: { name }`). */
export function isExternal(project: ComposeProject, name: string): boolean {
  const def = isObj(project.networks[name]) ? (project.networks[name] as Obj) : {};
  return def['external'] === true || isObj(def['external']);
}

/**
 * The names a service answers to on its networks: its name, `container_name`, `hostname`, its
 * network aliases, and an alias another service gives it with `links: [SERVICE:ALIAS]`.
 */
export function hostNames(svc: Svc, by?: Svc): string[] {
  const spec = svc.s.spec;
  const names = [svc.s.name, str(spec['container_name']), str(spec['hostname'])];
  for (const n of Object.values(networksMap(spec['networks'] ?? [])))
    if (isObj(n) && Array.isArray(n['aliases'])) names.push(...n['aliases'].map(String));
  for (const l of (by?.s.spec['links'] as unknown[]) ?? []) {
    const [target, alias] = String(l).split(':');
    if (target === svc.s.name && alias) names.push(alias);
  }
  return [...new Set(names.filter((n): n is string => !!n))];
}

/** Every name the proxy's networks resolve is a service's: it is on no external network and links no outside container. */
export const closedFor = (project: ComposeProject, proxy: Svc): boolean =>
  !proxy.networks.some((n) => isExternal(project, n)) &&
  proxy.s.spec['external_links'] === undefined &&
  proxy.s.spec['network_mode'] === undefined;

/** The host ports a service publishes on loopback (`127.0.0.1:9543:9443`, long form with `host_ip`). */
export function loopbackHostPorts(svc: Svc): string[] {
  const out: string[] = [];
  for (const p of (svc.s.spec['ports'] as unknown[]) ?? []) {
    if (isObj(p)) {
      if (/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(str(p['host_ip']) ?? '') && str(p['published'])) out.push(str(p['published'])!);
      continue;
    }
    const m = /^(?:\[(::1)\]|(127\.\d+\.\d+\.\d+|localhost)):(\d+):/.exec((p instanceof Unresolved ? p.asEmpty : String(p)).trim());
    if (m) out.push(m[3]!);
  }
  return out;
}
