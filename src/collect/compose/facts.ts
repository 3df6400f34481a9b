// The deployments a Compose project describes: which service is the MCP server, which proxy is
// in front of it, and every fact the project's files decide about them.
import { posix } from 'node:path';
import { literal } from '../../shared/regexp.js';
import { dockerfileFacts, imageFacts, privilegeDrop, userIsRoot } from '../build-facts.js';
import type { Context } from '../context.js';
import { checksNothing, DAEMON_NNP, HOST_NETWORK, imageMayHoldSecrets } from '../docker-defaults.js';
import type { DockerfileInfo } from '../dockerfile.js';
import { scriptCommand } from '../entrypoint-script.js';
import { isHostPath, volumeParts, worstHostPaths } from '../host-paths.js';
import { dirOf } from '../inputs.js';
import { manifestsOfBuild, mcpEvidenceOfBuild } from '../packages.js';
import { type EnvValue, isReferenceProxy, recogniseSignet, signetFacts } from '../profiles/signet.js';
import { builtRole, imagePin, imageRole, type Role, repository, runsAuthenticator, runsMcpClient } from '../roles.js';
import { passwordInUrl, SECRET_NAME, saysNoSecret, secretInConfig, worstSecrets } from '../secrets.js';
import { legacySse, tlsFlags, tlsVerification, transportNamed } from '../server-args.js';
import { type At, FactSheet } from '../sheet.js';
import { fileMiddlewares, type Labels, traefikEnabled, traefikFacts } from '../traefik.js';
import { readYaml, type YamlDoc } from '../yaml-lines.js';
import { parseDotenv, Unresolved } from './interpolate.js';
import { asMap, type ComposeProject, type ComposeService, networksMap } from './load.js';

type Obj = Record<string, unknown>;
/** A path segment that names secrets, keys or certificates. */
const SECRET_DIR = /^(secrets?|credentials?|creds|certs?|certificates|tls|ssl|keys?|private|\.ssh|\.aws|\.kube|\.gnupg|\.docker)$/i;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Unresolved);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

interface Svc {
  s: ComposeService;
  role: Role;
  /** The image it runs: `image:` or the final FROM of its Dockerfile. */
  image: string | null;
  dockerfile: string | null;
  /** That Dockerfile as this service's build reads it (its `build.args`). */
  df: DockerfileInfo | null;
  contextDir: string | null;
  networks: string[];
  /** Runs once and exits, or has no network: never a server. */
  oneShot: boolean;
}

function describe(ctx: Context, project: ComposeProject, s: ComposeService, completed: ReadonlySet<string>): Svc {
  const spec = s.spec;
  const composeDir = dirOf(project.entry);
  let dockerfile: string | null = null;
  let contextDir: string | null = null;
  const build = spec['build'];
  if (build !== undefined) {
    const context = str(build) ?? (isObj(build) ? (str(build['context']) ?? '.') : '.');
    contextDir = ctx.inputs.resolve(`${composeDir ? `${composeDir}/` : ''}x`, context);
    const name = isObj(build) ? (str(build['dockerfile']) ?? 'Dockerfile') : 'Dockerfile';
    dockerfile = posix.join(contextDir, name).replace(/^\.\//, '');
  }
  const df = dockerfile ? ctx.dockerfile(dockerfile, buildArgs(build), isObj(build) ? str(build['target']) : null) : null;
  // The project describes what its services build, a client or a proxy as much as the server.
  if (df && dockerfile) ctx.claimed.add(dockerfile);
  const image = str(spec['image']) ?? df?.base?.image ?? null;
  const networkMode = str(spec['network_mode']);
  const networks = networkMode ? [] : Object.keys(networksMap(spec['networks'] ?? ['default']));
  const restart = str(spec['restart']);
  return {
    s,
    role: df
      ? builtRole(df.base?.image ?? null, df.proxyInstalled?.product ?? null, str(spec['image']) ?? null)
      : image
        ? imageRole(image)
        : null,
    image,
    dockerfile: df ? dockerfile : null,
    df,
    contextDir,
    networks,
    // `restart: "no"` is Compose's default: a one-shot also waits on other services, or another waits
    // on it to complete (Signet's key setup, IBM's register_fast_time); whatsapp-mcp-docker's server,
    // started on its own, says `restart: no` too.
    oneShot: networkMode === 'none' || (restart === 'no' && !spec['ports'] && (completed.has(s.name) || spec['depends_on'] !== undefined)),
  };
}

/**
 * `image:` beside `build:`: without `pull_policy: build`, Compose pulls the image first and builds only
 * when the registry has none (compose-spec build.md, "Using build and image"). A bare name is in
 * docker.io/library, which holds only Docker's official images, so the build runs; a namespaced or
 * registry name may be the project's published image, and a digest names exactly one. What only the
 * build's files decide then stays open, unless the pulled image gives the same value.
 */
function pulledFirst(sheet: FactSheet, srv: Svc, project: ComposeProject): void {
  const image = str(srv.s.spec['image']);
  if (!image || str(srv.s.spec['pull_policy']) === 'build') return;
  const pin = imagePin(image);
  const digest = pin === 'digest';
  if (!digest && !repository(image).includes('/')) return;
  const why = digest
    ? `Compose runs ${image} (a digest names one image) and builds ${srv.dockerfile} only when the registry has none: the image's own build decides, not these files`
    : `Compose pulls ${image} first and builds ${srv.dockerfile} only when the registry has none (pull_policy: build always builds): the published image's build decides, not these files`;
  // The compose files and the env files they read hold either way; the build's files only for the build.
  const composeSide = (file: string) => project.files.includes(file) || project.extended.includes(file) || /\.env$/.test(file);
  for (const d of sheet.decisions()) {
    const buildOnly = d.sources.every((s) => 'file' in s && !composeSide(s.file));
    // "No secret" rests on the build being the files' (derekslenk/airis-mcp-gateway pulls airis/mcp-gateway first).
    const noneBuilt = d.path === 'container.secrets_source' && d.value === 'none';
    if (
      d.path === 'supply_chain.builds_server' ||
      noneBuilt ||
      (buildOnly && !(d.path === 'supply_chain.deployed_release' && d.value === pin))
    )
      sheet.reopen(d.path, why);
  }
  if (digest) imageFacts(sheet, image, srv.s.at('image'));
  else {
    // Either way no digest names what runs; a floating tag floats as a loose build does.
    sheet.set(
      'container.image_pinned_by_digest',
      false,
      srv.s.at('image'),
      `${image} is named by tag, and the build it may fall back to by no digest`,
    );
    if (sheet.get('supply_chain.deployed_release') === pin)
      sheet.also(
        'supply_chain.deployed_release',
        srv.s.at('image'),
        `the pulled ${image} is named by a ${pin === 'floating' ? 'floating' : 'version'} tag`,
      );
  }
}

/** A build's `args` (map or `KEY=VALUE` list); a key without a value, or with an unset variable, comes from outside the files. */
function buildArgs(build: unknown): Map<string, string | null> {
  const args = asMap(isObj(build) ? build['args'] : undefined);
  return new Map(
    Object.entries(args).map(([k, v]) => [k, typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : null]),
  );
}

/** Whether a service's depends_on names another (list or map form). */
function dependsOn(svc: Svc, target: string): boolean {
  const deps = svc.s.spec['depends_on'];
  return Array.isArray(deps) ? deps.includes(target) : isObj(deps) && target in deps;
}

/** Text of a service's command line, environment values and labels: where a proxy names its upstream. */
function mentions(svc: Svc, target: string): boolean {
  const spec = svc.s.spec;
  // Variables that name an authentication sidecar, a datastore or telemetry are not the route clients take.
  const env = Object.entries(isObj(spec['environment']) ? spec['environment'] : {}).filter(
    ([k]) => !/AUTH|VERIF|OAUTH|TOKEN|REDIS|DATABASE|_DB|CACHE|METRIC|LOG|OTEL/i.test(k),
  );
  const words = [spec['command'], spec['entrypoint'], env.map(([, v]) => v), Object.values(isObj(spec['labels']) ? spec['labels'] : {})]
    .flat(2)
    .map((v) => (v instanceof Unresolved ? v.asEmpty : String(v ?? '')));
  const re = new RegExp(`(^|[/@\\s=,"'])${literal(target)}(:\\d+|/|$|[\\s,"'])`);
  return words.some((w) => re.test(w));
}

/**
 * A service whose command or environment names the server in a URL: its MCP endpoint
 * (`http://server:8001/mcp`) where `endpoint`, else any URL of it (`http://server:8000`).
 */
function callsByUrl(svc: Svc, server: string, endpoint = false): boolean {
  const spec = svc.s.spec;
  const env = Object.values(isObj(spec['environment']) ? spec['environment'] : {});
  const re = new RegExp(`://${literal(server)}(:\\d+)?${endpoint ? '/(mcp|sse)\\b' : '(/|$|[\\s"\'])'}`);
  return [spec['command'], spec['entrypoint'], env]
    .flat(2)
    .map((v) => (v instanceof Unresolved ? v.asEmpty : String(v ?? '')))
    .some((w) => re.test(w));
}

/**
 * A service that calls another's MCP endpoint: a URL of it with an MCP path, or in a variable
 * named for MCP (`MCP_GATEWAY_URL=http://mcp-gateway:8811`).
 */
function callsMcpOf(svc: Svc, server: string): boolean {
  if (callsByUrl(svc, server, true)) return true;
  const env = Object.entries(isObj(svc.s.spec['environment']) ? svc.s.spec['environment'] : {});
  const re = new RegExp(`://${literal(server)}(:\\d+)?(/|$)`);
  return env.some(([k, v]) => /MCP/i.test(k) && re.test(v instanceof Unresolved ? v.asEmpty : String(v ?? '')));
}

export function composeDeployments(ctx: Context, project: ComposeProject): FactSheet[] {
  // Services another waits on to run to completion (`condition: service_completed_successfully`).
  const completed = new Set(
    [...project.services.values()].flatMap((s) => {
      const deps = s.spec['depends_on'];
      return isObj(deps)
        ? Object.keys(deps).filter((d) => isObj(deps[d]) && deps[d]['condition'] === 'service_completed_successfully')
        : [];
    }),
  );
  const svcs = [...project.services.values()].map((s) => describe(ctx, project, s, completed));
  for (const i of project.inactive)
    ctx.note(i.at.file, `service ${i.name} is left out: its profiles (${i.profiles.join(', ')}) are not enabled`);
  for (const n of project.notes) ctx.note(project.entry, n);
  const proxies = svcs.filter((v) => v.role?.kind === 'proxy');
  const candidates = svcs.filter(
    (v) =>
      !v.oneShot &&
      v.role === null &&
      !runsAuthenticator(v.s.spec['entrypoint'], v.s.spec['command']) &&
      !runsMcpClient(str(v.s.spec['image']) ?? null, v.s.spec['entrypoint'], v.s.spec['command']) &&
      // A service named for the MCP Inspector (asaikali/remote-mcp-protocol's mcp-inspector starts it
      // through its image's entry-point.sh) is the Inspector, a client.
      ![v.s.name, str(v.s.spec['container_name']) ?? ''].some((n) => /^(mcp[-_]?)?inspector$/i.test(n)),
  );

  // The MCP servers: named by the caller, or with evidence (a proxy forwards to it, an MCP SDK in
  // its build, "mcp" in its name, image or command), or the only long-running service left, in
  // a file the caller named or built from the files (ctx.pointedAt).
  const wanted = ctx.options.servers ?? [];
  const evidence = new Map<string, string>();
  const clients = new Map<string, string>();
  for (const c of candidates) {
    const name = c.s.name;
    const built = c.contextDir !== null && c.df ? mcpEvidenceOfBuild(ctx.inputs, c.contextDir, c.df.copied) : null;
    if (wanted.includes(name)) evidence.set(name, 'named with --server');
    else if (
      proxies.some((p) => mentions(p, name) || ctx.proxyConfigNames(p.contextDir, volumesOf(p), name, composeDir(project), containerEnv(p)))
    )
      evidence.set(name, 'a proxy of the project forwards to it');
    // An MCP SDK serves clients and servers alike: a service that calls another's MCP endpoint
    // (`MCPGATEWAY_ENDPOINT=http://mcp-gateway:8811/sse`) is that service's client, not a server.
    else if (built && candidates.some((o) => o !== c && callsMcpOf(c, o.s.name))) {
      const callee = candidates.find((o) => o !== c && callsMcpOf(c, o.s.name))!;
      clients.set(name, callee.s.name);
    } else if (built) evidence.set(name, `its build copies a manifest that depends on ${built.name}`);
    // Not its container_name: a test fixture's squid is `mcp-test-proxy`, a pgAdmin `mcpjungle-pgadmin`.
    else if (/mcp/i.test(`${name} ${c.image ?? ''} ${JSON.stringify(c.s.spec['command'] ?? '')}`))
      evidence.set(name, 'its name, image or command names MCP');
    // Another service calls its MCP endpoint (emergingrobotics/genai-toolbox-testing's agent:
    // `MCP_URL=http://toolbox:5000/mcp/sse`): what it serves there is MCP.
    else if (svcs.some((v) => v !== c && callsMcpOf(v, name)))
      evidence.set(name, `service ${svcs.find((v) => v !== c && callsMcpOf(v, name))!.s.name} calls its MCP endpoint`);
  }
  // "mcp" in a service's name alone, its image another product's, while a server of the stack
  // depends on it: that server's backend (WebSurfinMurf/mcp's mcp-ib-gateway runs
  // ghcr.io/gnzsnz/ib-gateway for mcp-ib), not a server of its own.
  const backends = new Map<string, string>();
  for (const c of candidates) {
    if (wanted.length || evidence.get(c.s.name) !== 'its name, image or command names MCP') continue;
    if (/mcp/i.test(`${c.image ?? ''} ${JSON.stringify(c.s.spec['command'] ?? '')}`)) continue;
    const user = candidates.find(
      (o) => o !== c && evidence.has(o.s.name) && (dependsOn(o, c.s.name) || mentions(o, c.s.name)) && !backends.has(o.s.name),
    );
    if (user) backends.set(c.s.name, user.s.name);
  }
  // Two services of one build: the MCP SDK in it is the server's, which the image's own command
  // starts; a sibling that replaces that command with another program (ranjanjyoti152/LLM-MCP's
  // dashboard, `python dashboard.py`) runs something else from the same image.
  const sameBuild = (a: Svc, b: Svc) => a.dockerfile !== null && a.dockerfile === b.dockerfile && a.contextDir === b.contextDir;
  const siblings = new Map<string, string>();
  const namesMcp = (v: Svc) => /mcp/i.test(JSON.stringify([v.s.spec['command'] ?? '', v.s.spec['entrypoint'] ?? '']));
  for (const c of candidates) {
    if (wanted.length || !evidence.get(c.s.name)?.startsWith('its build copies a manifest')) continue;
    if (c.s.spec['command'] === undefined || namesMcp(c) || /mcp/i.test(c.s.name)) continue;
    const server = candidates.find(
      (o) => o !== c && sameBuild(o, c) && evidence.has(o.s.name) && (o.s.spec['command'] === undefined || namesMcp(o)),
    );
    if (server) siblings.set(c.s.name, server.s.name);
  }
  for (const [sibling, server] of siblings) {
    evidence.delete(sibling);
    ctx.note(
      project.entry,
      `service ${sibling} runs another program (its command) from the image ${server} serves MCP from: the MCP SDK in the build is that server's, and ${sibling} is not read as one; name it with --server if it serves MCP`,
    );
  }
  for (const [backend, user] of backends) {
    evidence.delete(backend);
    ctx.note(
      project.entry,
      `service ${backend} names MCP only in its name and runs another product's image, which ${user} depends on: a backend of that server, not read as one; name it with --server if it serves MCP`,
    );
  }
  let servers = candidates.filter((c) => (wanted.length ? wanted.includes(c.s.name) : evidence.has(c.s.name)));
  if (!wanted.length)
    for (const [client, callee] of clients)
      ctx.note(
        project.entry,
        `service ${client} calls ${callee}'s MCP endpoint: a client of it (the MCP SDK in its build serves clients too), not read as a server; name it with --server if it serves MCP as well`,
      );
  // Built from the files, the only service counts unless its build shows what it is: manifests
  // with no MCP SDK (getzep/graphiti's REST server beside its MCP server's own compose files).
  const only = candidates.length === 1 ? candidates[0]! : null;
  const builtAsOther = only?.df && only.contextDir !== null && manifestsOfBuild(ctx.inputs, only.contextDir, only.df.copied).length > 0;
  if (!servers.length && !wanted.length && only && (ctx.pointedAt(project.files) || (only.dockerfile && !builtAsOther))) {
    servers = candidates;
    evidence.set(
      candidates[0]!.s.name,
      `the only long-running service that is neither a proxy nor a datastore${candidates[0]!.dockerfile ? ', built from the files' : ', in a file named'}`,
    );
  }
  if (!servers.length) {
    ctx.note(
      project.entry,
      `no service of this Compose project is recognisably an MCP server (candidates: ${candidates.map((c) => c.s.name).join(', ') || 'none'}); name it with --server`,
    );
    return [];
  }

  return servers.map((srv) => {
    const sheet = new FactSheet(`compose:${project.entry}:${srv.s.name}`);
    const spec = srv.s.spec;
    const at = (...p: (string | number)[]) => srv.s.at(...p);
    sheet.set('container.used', true, at(), `service ${srv.s.name} runs in a container (${evidence.get(srv.s.name)})`);
    sheet.set('container.orchestrator', 'docker', at(), 'a Docker Compose service');
    replicas(sheet, srv);
    containerFacts(sheet, srv, project);
    if (srv.dockerfile) {
      dockerfileFacts(sheet, srv.df!, ctx.inputs, srv.contextDir ?? '', at('build'));
      // The service runs whatever its build produced: no digest names it (doctrine 1.3), whatever the FROM lines say.
      if (typeof spec['image'] === 'string' && /@sha256:[0-9a-f]{64}$/.test(spec['image']))
        sheet.set('container.image_pinned_by_digest', true, at('image'), `image: ${spec['image']}`);
      else sheet.set('container.image_pinned_by_digest', false, at('build'), 'build: runs what the build produced, named by no digest');
    } else if (srv.image) imageFacts(sheet, srv.image, at('image'));
    // A Dockerfile without HEALTHCHECK inherits its base image's, which is the image's, not the files'
    // (as its default USER is); FROM scratch has none.
    const built = srv.df;
    if (!sheet.has('container.healthcheck') && built?.scratch)
      sheet.set('container.healthcheck', false, at(), 'no healthcheck in the service or its Dockerfile, built FROM scratch');
    else if (!sheet.has('container.healthcheck') && built)
      sheet.undecided(
        'container.healthcheck',
        `no healthcheck in the service or ${built.path}: a HEALTHCHECK of its base image ${built.base?.image ?? ''} would be inherited, and that is the image's`,
      );
    else if (!sheet.has('container.healthcheck')) sheet.undecided('container.healthcheck', "the image's own HEALTHCHECK decides");
    secrets(ctx, sheet, srv, project);

    // Signet's own image: its profile decides what the files leave to the server (profiles/signet.ts).
    const signet = recogniseSignet(ctx.inputs, srv.df);
    // Who is in front: a proxy of the project that forwards to it, sharing a network.
    const labels = labelsOf(srv);
    const front = proxies.filter(
      (p) =>
        p.networks.some((n) => srv.networks.includes(n)) &&
        ((p.role?.kind === 'proxy' && p.role.product === 'traefik' && traefikEnabled(labels)) ||
          mentions(p, srv.s.name) ||
          ctx.proxyConfigNames(p.contextDir, volumesOf(p), srv.s.name, composeDir(project), containerEnv(p))),
    );
    // The project's only proxy on a network of the server's is in front of it, unless its configuration shows
    // every route going elsewhere (agentic-community/mcp-gateway-registry's nginx: its registry and auth service).
    const only = proxies.length === 1 && proxies[0]!.networks.some((n) => srv.networks.includes(n)) ? proxies[0]! : undefined;
    const proxy =
      front[0] ??
      (only &&
      !ctx.proxyConfigExcludes(
        only.contextDir,
        volumesOf(only),
        srv.s.name,
        svcs.filter((v) => v !== srv).map((v) => v.s.name),
        composeDir(project),
        containerEnv(only),
      )
        ? only
        : undefined);
    const published = publishedPorts(srv);
    // What the container runs: its entrypoint and command, as Compose starts them.
    const run = runOf(srv);
    // Clients reach the proxy, and the server too where it publishes a port of its own: the wider decides
    // (cbcoutinho/nextcloud-mcp-server publishes 127.0.0.1:8000 beside an nginx that publishes nothing).
    const WIDTH = { none: 0, loopback: 1, unknown: 2, all_interfaces: 3 };
    const proxyPorts = proxy ? publishedPorts(proxy) : null;
    const serverWider = !proxyPorts || WIDTH[published.kind] > WIDTH[proxyPorts.kind];
    const entry = serverWider ? srv : proxy!;
    const entryPorts = serverWider ? published : proxyPorts!;
    sheet.set(
      'exposure.bind_address_class',
      spec['network_mode'] === 'host' ? 'public' : 'private',
      at(),
      'the server listens inside the container network',
    );
    if (spec['network_mode'] === 'host') {
      sheet.reopen('exposure.bind_address_class', HOST_NETWORK('network_mode: host'));
      sheet.reopen('container.published_ports', HOST_NETWORK('network_mode: host'));
    }
    if (proxy) {
      const pAt = proxy.s.at();
      if (published.kind !== 'none') {
        sheet.set(
          'exposure.behind_reverse_proxy',
          false,
          published.at,
          `the server publishes port ${published.text} itself: clients can bypass ${proxy.s.name}`,
        );
        sheet.set('exposure.ingress_restricted_to_proxy', false, published.at, 'a published server port is reachable without the proxy');
      } else {
        sheet.set(
          'exposure.behind_reverse_proxy',
          true,
          pAt,
          `${proxy.s.name} (${proxy.role?.kind === 'proxy' ? proxy.role.product : 'proxy'}) forwards to ${srv.s.name}, which publishes no port`,
        );
        ingressRestricted(sheet, srv, proxy, svcs, project);
      }
      ctx.proxyFacts(sheet, ctx.proxyConfig(proxy.role, proxy.contextDir, volumesOf(proxy), composeDir(project), containerEnv(proxy)), {
        targets: [srv.s.name],
        platform: 'compose',
        facesClients: true,
        elsewhere: svcs.filter((v) => v !== srv).map((v) => v.s.name),
        answersInOnePiece: signet !== null,
      });
      if (proxy.role?.kind === 'proxy' && proxy.role.product === 'traefik')
        traefikFacts(sheet, labels, { targets: [srv.s.name], platform: 'compose', facesClients: publishedPorts(proxy).kind !== 'none' }, [
          ...svcs.map(labelsOf),
          fileMiddlewares(ctx.proxyFiles(proxy.contextDir, volumesOf(proxy), composeDir(project), ['traefik'])),
        ]);
      if (sheet.get('exposure.behind_reverse_proxy') === true && published.kind !== 'none')
        sheet.set(
          'exposure.behind_reverse_proxy',
          false,
          published.at,
          `the server publishes port ${published.text} itself: clients can bypass ${proxy.s.name}`,
        );
      // A service of the stack that calls the MCP endpoint itself reaches the server past the proxy
      // (doctrine: exposure.behind_reverse_proxy); a health check or a metrics scraper names no MCP path.
      const caller = svcs.find((v) => v !== srv && v !== proxy && callsByUrl(v, srv.s.name, true));
      if (caller && sheet.get('exposure.behind_reverse_proxy') === true)
        sheet.set(
          'exposure.behind_reverse_proxy',
          false,
          caller.s.at(),
          `service ${caller.s.name} calls ${srv.s.name}'s MCP endpoint directly, not through ${proxy.s.name}`,
        );
      // A published server port whose health check speaks plain HTTP (mcp-qbit-server's example,
      // whose proxy's configuration is not among the files) serves clients in plain HTTP past the proxy.
      const plainPast =
        published.kind !== 'none' && !sheet.has('tls.enabled') ? plainHealthcheck(srv, published, `past ${proxy.s.name}`) : null;
      if (plainPast) sheet.set('tls.enabled', false, plainPast.at, plainPast.why);
      // A server port clients reach past the TLS proxy serves the endpoint in plain HTTP too.
      if (published.kind !== 'none' && sheet.get('tls.enabled') === true)
        sheet.set(
          'tls.enabled',
          false,
          published.at,
          `the server publishes port ${published.text} itself: plain HTTP past the proxy's TLS`,
        );
    } else {
      sheet.set('exposure.behind_reverse_proxy', false, at(), 'no proxy of the project forwards to the server');
      sheet.set('exposure.ingress_restricted_to_proxy', false, at(), 'there is no proxy to restrict ingress to');
      // Nothing in front terminates TLS: the server's own certificate flags, or a health check over plain HTTP.
      const flag = tlsFlags(wordsOf(run.parts));
      const plain = flag ? null : plainHealthcheck(srv, published);
      if (flag) sheet.set('tls.enabled', true, run.at, `the server serves TLS itself (${flag} and its key)`);
      else if (plain) sheet.set('tls.enabled', false, plain.at, plain.why);
    }
    // An image ENTRYPOINT the service keeps may be a script that ends in the server's command.
    const script = spec['entrypoint'] === undefined && srv.df ? scriptCommand(srv.df, ctx.inputs, srv.contextDir ?? '') : null;
    if (spec['user'] === undefined) privilegeDrop(sheet, script);
    // The server's own published port shows it serves the network best; else the proxy's.
    transport(sheet, srv, svcs, published.kind !== 'none' || !proxy ? published : entryPorts, proxy, run, script);
    // A stdio server listens on no address and clients reach it through the container engine, not a network.
    const stdio = sheet.get('transport.kind') === 'stdio';
    if (stdio) sheet.reopen('exposure.bind_address_class', 'a stdio server listens on no address: its client is attached to its stdin');
    // Nor does it take network ingress for a proxy to restrict.
    if (stdio && !proxy && sheet.get('exposure.ingress_restricted_to_proxy') === false)
      sheet.reopen('exposure.ingress_restricted_to_proxy', 'a stdio server takes no network ingress: its client is attached to its stdin');
    if (entryPorts.kind === 'loopback') {
      sheet.set('exposure.endpoint_address_class', 'loopback', entryPorts.at, `${entry.s.name} is published on ${entryPorts.text} only`);
      sheet.set(
        'exposure.reachable_from_internet',
        false,
        entryPorts.at,
        'published on loopback only (a tunnel on the host would change this, none is in the files)',
      );
    } else if (entryPorts.kind === 'all_interfaces') {
      sheet.undecided(
        'exposure.endpoint_address_class',
        `${entry.s.name} is published on every host interface (${entryPorts.text}): the host's addresses decide`,
      );
      sheet.undecided('exposure.reachable_from_internet', "published on every interface: the host's network and firewall decide");
    } else if (entryPorts.kind === 'unknown') {
      const why = `${entry.s.name} publishes ${entryPorts.text} by default, but a .env the files do not hold may change where`;
      sheet.undecided('exposure.endpoint_address_class', why);
      sheet.undecided('exposure.reachable_from_internet', why);
    } else if (entry.s.spec['network_mode'] === 'host') {
      // On the host's network nothing is published, yet every port it opens is a host port (ofayese/mcp).
      sheet.undecided('exposure.endpoint_address_class', HOST_NETWORK(`${entry.s.name} has network_mode: host`));
      sheet.undecided('exposure.reachable_from_internet', HOST_NETWORK(`${entry.s.name} has network_mode: host`));
    } else if (!svcs.some((v) => v.role?.kind === 'tunnel')) {
      if (stdio)
        sheet.undecided(
          'exposure.endpoint_address_class',
          'a stdio server has no network endpoint: its client reaches it through the container engine (docker compose run, docker attach)',
        );
      else
        sheet.set(
          'exposure.endpoint_address_class',
          'private',
          at(),
          `${entry.s.name} publishes no port: only containers on its networks reach it`,
        );
      sheet.set('exposure.reachable_from_internet', false, at(), 'nothing is published on the host and no tunnel runs in the project');
    } else {
      // A tunnel that only forwards (cloudflared --url, ngrok http) is no proxy and puts the server on the
      // internet (doctrine 1.3); a named tunnel's routes and rules are configured outside these files.
      const t = svcs.find((v) => v.role?.kind === 'tunnel')!;
      const cmd = JSON.stringify([t.s.spec['command'] ?? '', t.s.spec['entrypoint'] ?? '']);
      const quick = /--url\b/.test(cmd) || (/"http"|\bhttp\b/.test(cmd) && /ngrok/.test(t.image ?? ''));
      if (quick) {
        sheet.set(
          'exposure.reachable_from_internet',
          true,
          t.s.at('command'),
          `${t.s.name} (${t.image}) forwards a public tunnel endpoint`,
        );
        if (mentions(t, srv.s.name))
          sheet.set(
            'exposure.behind_reverse_proxy',
            false,
            t.s.at('command'),
            `${t.s.name} forwards straight to the server: a tunnel that only forwards is no proxy`,
          );
      } else
        sheet.undecided(
          'exposure.reachable_from_internet',
          `${t.s.name} runs a tunnel; its routes and rules are configured outside these files`,
        );
    }
    // An external network holds containers outside these files: a shared reverse proxy or tunnel
    // there (WebSurfinMurf/mcp's traefik-net) may front the server, so "nothing reaches it" and
    // "no proxy" are not the files' to say.
    const external = stdio ? undefined : srv.networks.find((n) => isExternal(project, n));
    if (external) {
      const why = `network ${external} is external: a proxy or tunnel outside these files may reach the server on it`;
      if (sheet.get('exposure.reachable_from_internet') === false) sheet.reopen('exposure.reachable_from_internet', why);
      if (['private', 'loopback'].includes(String(sheet.get('exposure.endpoint_address_class'))))
        sheet.reopen('exposure.endpoint_address_class', why);
      // A port of its own on the host still reaches it past any proxy: that stays "no proxy in front".
      if (sheet.get('exposure.behind_reverse_proxy') === false && published.kind === 'none')
        sheet.reopen('exposure.behind_reverse_proxy', why);
    }
    egress(sheet, srv, project);
    const srvDf = srv.df;
    legacySse(sheet, run.at, ...run.parts);
    if (script && !sheet.has('transport.legacy_sse')) legacySse(sheet, script.at, script.words);
    if (signet) {
      ctx.note(srvDf!.path, signet);
      const proxyDf = proxy?.df ?? null;
      const proxyEnv = proxy ? envView(proxyDf, proxy) : null;
      const tlsDir = proxyEnv?.get('SIGNET_TLS_DIR')?.value || '/etc/signet/tls';
      const tlsVolume = proxy ? volumesOf(proxy).findIndex((v) => v.target === tlsDir) : -1;
      signetFacts(
        sheet,
        {
          env: envView(srvDf, srv),
          platform: 'compose',
          behindProxy: sheet.get('exposure.behind_reverse_proxy') === true,
          replicas: sheet.get('deployment.replicas') as number | undefined,
        },
        proxy && proxyEnv && isReferenceProxy(ctx.inputs, proxyDf)
          ? {
              env: proxyEnv,
              tlsMount: tlsVolume >= 0 ? proxy.s.at('volumes') : null,
              at: proxy.s.at(),
              facesClients: entryPorts.kind !== 'none',
            }
          : null,
      );
    }
    if (srv.dockerfile) pulledFirst(sheet, srv, project);
    return sheet;
  });
}

const composeDir = (project: ComposeProject) => dirOf(project.entry);

/** What the container runs, as Compose joins it with its build's ENTRYPOINT and CMD, and where that is written. */
function runOf(srv: Svc): { at: At; parts: unknown[] } {
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

const wordsOf = (parts: unknown[]) =>
  parts
    .flatMap((p) => (Array.isArray(p) ? p : p instanceof Unresolved ? p.asEmpty.split(/\s+/) : typeof p === 'string' ? p.split(/\s+/) : []))
    .map((w) => (w instanceof Unresolved ? w.asEmpty : String(w)))
    .filter((w) => w !== '');

/**
 * Whether the service speaks MCP over the network or on its stdin. A published port or a proxy in
 * front says network; without them, `docker compose run --rm server` attached to a client's stdio
 * is a stdio server (BeehiveInnovations/zen-mcp-server's compose file), so it takes the command
 * line, `stdin_open`, EXPOSE or `expose:`, another service's URL for it, or an HTTP health check.
 */
function transport(
  sheet: FactSheet,
  srv: Svc,
  svcs: Svc[],
  entryPorts: { kind: string; at: At },
  proxy: Svc | undefined,
  run: { at: At; parts: unknown[] },
  script: { words: string[]; at: At } | null,
): void {
  const spec = srv.s.spec;
  if (proxy) {
    sheet.set('transport.kind', 'http', srv.s.at(), 'a network service: a port is published or a proxy forwards to it');
    return;
  }
  const env = containerEnv(srv);
  const ownWords = transportNamed(wordsOf(run.parts), env);
  const named = ownWords ?? (script ? transportNamed(script.words, new Map()) : null);
  // A published port says network unless the command names the transport. Beside `stdin_open`
  // with nothing named, either is written: LAB271/mcp-studies' graphdb spike publishes 8000 and
  // keeps stdin open for a server whose `mcp.run()` defaults to stdio.
  if (entryPorts.kind !== 'none' && !named) {
    if (spec['stdin_open'] === true)
      sheet.undecided(
        'transport.kind',
        `${srv.s.name} publishes a port and keeps its stdin open (stdin_open: true), and its command names no transport: which one the server speaks is in its code`,
      );
    else sheet.set('transport.kind', 'http', entryPorts.at, 'a network service: a port is published or a proxy forwards to it');
    return;
  }
  if (named) {
    const at = named.variable
      ? isObj(spec['environment']) && named.variable in spec['environment']
        ? srv.s.at('environment', named.variable)
        : (srv.df?.envAt.get(named.variable) ?? srv.s.at())
      : ownWords
        ? run.at
        : script!.at;
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

/** A service's labels (list or map form) with the line of each. */
function labelsOf(svc: Svc): Labels {
  const out: Labels = new Map();
  const l = svc.s.spec['labels'];
  if (isObj(l))
    for (const [k, v] of Object.entries(l))
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        out.set(k, { value: String(v), at: svc.s.at('labels', k) });
  return out;
}

/** A container's environment with the line that sets each value: the image's ENV, then the service's (values the files resolve). */
function envView(df: DockerfileInfo | null, svc: Svc): Map<string, EnvValue> {
  const out = new Map<string, EnvValue>();
  for (const [k, v] of df?.env ?? []) out.set(k, { value: v, at: df!.envAt.get(k)! });
  const e = svc.s.spec['environment'];
  if (isObj(e))
    for (const [k, v] of Object.entries(e))
      if (typeof v === 'string' || typeof v === 'number') out.set(k, { value: String(v), at: svc.s.at('environment', k) });
  return out;
}

/** A container's environment as the files give it: the image's ENV, then the service's environment (resolved values only). */
function containerEnv(svc: Svc): Map<string, string> {
  const env = new Map(svc.df?.env ?? []);
  const e = svc.s.spec['environment'];
  if (isObj(e)) for (const [k, v] of Object.entries(e)) if (typeof v === 'string' || typeof v === 'number') env.set(k, String(v));
  return env;
}

function volumesOf(svc: Svc): { source: string; target: string }[] {
  const out: { source: string; target: string }[] = [];
  for (const v of (svc.s.spec['volumes'] as unknown[]) ?? []) {
    // A variable set nowhere stays `${NAME}`: `${HOME}/.cache:/cache` is a home path whatever HOME is.
    const text = v instanceof Unresolved ? v.template : v;
    if (typeof text === 'string') {
      // A Windows source keeps its drive: `c:/Users/me/.docker/mcp/secrets:/secrets`, `C:\:/host/c:ro`.
      const { source, target } = volumeParts(text);
      if (source && target) out.push({ source, target });
    } else if (isObj(v)) {
      const source = v['source'] instanceof Unresolved ? v['source'].template : v['source'];
      if (typeof source === 'string') out.push({ source, target: String(v['target'] ?? '') });
    }
  }
  return out;
}

function replicas(sheet: FactSheet, srv: Svc): void {
  const spec = srv.s.spec;
  const deploy = isObj(spec['deploy']) ? spec['deploy'] : {};
  const n = Number(deploy['replicas'] ?? spec['scale'] ?? 1);
  const where =
    deploy['replicas'] !== undefined ? srv.s.at('deploy', 'replicas') : spec['scale'] !== undefined ? srv.s.at('scale') : srv.s.at();
  if (Number.isInteger(n) && n >= 1)
    sheet.set(
      'deployment.replicas',
      n,
      where,
      (deploy['replicas'] ?? spec['scale'])
        ? 'replicas set in the service'
        : 'Compose starts one container per service unless scaled (a --scale on the command line is not in the files)',
    );
}

function containerFacts(sheet: FactSheet, srv: Svc, project: ComposeProject): void {
  const spec = srv.s.spec;
  const at = (...p: (string | number)[]) => srv.s.at(...p);
  const user = str(spec['user']);
  if (user !== null) {
    const root = userIsRoot(user);
    if (root !== null) sheet.set('container.runs_as_root', root, at('user'), `user: "${user}"`);
  }
  sheet.set(
    'container.read_only_root_fs',
    spec['read_only'] === true,
    at(spec['read_only'] === undefined ? '' : 'read_only'),
    spec['read_only'] === true ? 'read_only: true' : 'no read_only: true (Compose mounts the root filesystem writable)',
  );
  const drop = ((spec['cap_drop'] as unknown[]) ?? []).map(String);
  const add = ((spec['cap_add'] as unknown[]) ?? []).map(String);
  const dropped = drop.some((c) => /^(CAP_)?ALL$/i.test(c)) && add.length === 0;
  sheet.set(
    'container.capabilities_dropped',
    dropped,
    at(spec['cap_drop'] ? 'cap_drop' : ''),
    dropped ? 'cap_drop: [ALL], nothing added back' : add.length ? `cap_add: ${add.join(', ')}` : 'no cap_drop: [ALL]',
  );
  const secOpt = ((spec['security_opt'] as unknown[]) ?? []).map(String);
  const nnp = secOpt.find((o) => /^no-new-privileges([:=](true|false))?$/.test(o));
  if (nnp) sheet.set('container.no_new_privileges', !/false$/.test(nnp), at('security_opt'), `security_opt ${nnp}`);
  else sheet.undecided('container.no_new_privileges', DAEMON_NNP);
  const privileged = spec['privileged'] === true;
  sheet.set('container.privileged', privileged, at(privileged ? 'privileged' : ''), privileged ? 'privileged: true' : 'not privileged');
  const seccomp = secOpt.find((o) => /^seccomp[:=]/.test(o));
  if (privileged) sheet.set('container.seccomp', 'unconfined', at('privileged'), 'privileged: true disables seccomp');
  else if (seccomp) sheet.set('container.seccomp', /unconfined$/.test(seccomp) ? 'unconfined' : 'custom', at('security_opt'), seccomp);
  else sheet.set('container.seccomp', 'runtime_default', at(), 'no seccomp option: Docker applies its default profile');
  const vols = volumesOf(srv);
  const sock = vols.find((v) => /(docker|containerd|podman)\.sock$/.test(v.source));
  // Compose's `use_api_socket: true` mounts the engine's API socket (and the user's registry
  // credentials) into the container: docker/compose-for-agents runs its MCP gateway so.
  if (spec['use_api_socket'] === true)
    sheet.set(
      'container.docker_socket_mounted',
      true,
      at('use_api_socket'),
      "use_api_socket: true mounts the container engine's API socket",
    );
  else
    sheet.set(
      'container.docker_socket_mounted',
      !!sock,
      at(sock ? 'volumes' : ''),
      sock ? `${sock.source} is mounted` : 'no container runtime socket among the volumes',
    );
  // Bind mounts (a path, not a volume name): the deployment's own files, or the host's.
  const binds = vols.filter((v) => isHostPath(v.source)).map((v) => v.source);
  const mounts = worstHostPaths(binds);
  // The engine's socket, however mounted, is a host system path (docker/compose-for-agents' gateways).
  if (spec['use_api_socket'] === true)
    sheet.set(
      'container.host_path_mounts',
      'host_system',
      at('use_api_socket'),
      "use_api_socket: true mounts the container engine's API socket from the host",
    );
  else if (mounts)
    sheet.set(
      'container.host_path_mounts',
      mounts,
      at(binds.length ? 'volumes' : ''),
      binds.length ? `bind mounts: ${binds.join(', ')}` : 'no bind mount',
    );
  else sheet.undecided('container.host_path_mounts', `whether ${binds.join(', ')} belongs to the deployment is not shown`);
  const shared = ['network_mode', 'pid', 'ipc'].filter((k) => spec[k] === 'host');
  sheet.set(
    'container.host_namespaces',
    shared.length > 0,
    at(shared[0] ?? ''),
    shared.length ? shared.map((k) => `${k}: host`).join(', ') : 'no host network, PID or IPC namespace',
  );
  tlsVerification(sheet, isObj(spec['environment']) ? (spec['environment'] as Obj) : {}, (k) => at('environment', k));
  if (spec['userns_mode'] === 'host') sheet.set('container.user_namespace', false, at('userns_mode'), 'userns_mode: host');
  else
    sheet.undecided(
      'container.user_namespace',
      "user namespaces are the Docker daemon's setting (userns-remap, rootless), not in the files",
    );
  const deploy = isObj(spec['deploy']) ? spec['deploy'] : {};
  const limits =
    isObj(deploy['resources']) && isObj((deploy['resources'] as Obj)['limits']) ? ((deploy['resources'] as Obj)['limits'] as Obj) : {};
  const mem = spec['mem_limit'] ?? limits['memory'];
  const cpus = spec['cpus'] ?? limits['cpus'];
  const pids = spec['pids_limit'] ?? limits['pids'];
  const all = mem !== undefined && cpus !== undefined && pids !== undefined;
  sheet.set(
    'container.resource_limits',
    all,
    at(spec['mem_limit'] !== undefined ? 'mem_limit' : 'deploy'),
    all
      ? 'memory, CPU and process limits set'
      : `missing: ${[mem === undefined && 'memory', cpus === undefined && 'cpus', pids === undefined && 'pids_limit'].filter(Boolean).join(', ')}`,
  );
  const hc = spec['healthcheck'];
  if (isObj(hc)) {
    const off = hc['disable'] === true || (Array.isArray(hc['test']) && hc['test'][0] === 'NONE');
    if (off) sheet.set('container.healthcheck', false, at('healthcheck'), 'healthcheck disabled');
    else if (hc['test'] !== undefined && checksNothing([hc['test']].flat().map(String).join(' ')))
      sheet.set(
        'container.healthcheck',
        false,
        at('healthcheck', 'test'),
        'the healthcheck can never fail: it checks nothing of the server',
      );
    else if (hc['test'] !== undefined) sheet.set('container.healthcheck', true, at('healthcheck'), 'healthcheck in the service');
  }
  const ports = publishedPorts(srv);
  if (ports.kind === 'unknown')
    sheet.undecided('container.published_ports', `ports: ${ports.text} by default, but a .env the files do not hold may change them`);
  else sheet.set('container.published_ports', ports.kind, ports.at, ports.kind === 'none' ? 'no ports: entry' : `ports: ${ports.text}`);
  void project;
}

/** The worst publication of a service's ports: none, loopback, or every interface (compose-spec ports). */
/**
 * A health check that fetches `http://localhost:PORT` inside the container, where PORT is a
 * container port the service publishes with nothing in front: clients reach that port in plain
 * HTTP (the check succeeds only if it answers plain HTTP).
 */
/** The health check that runs: the service's `healthcheck.test`, else its build's HEALTHCHECK unless NONE. */
function healthcheckOf(srv: Svc): { test: string; at: At } | null {
  const hc = srv.s.spec['healthcheck'];
  if (isObj(hc) && hc['test'] !== undefined)
    return { test: [hc['test']].flat().map(String).join(' '), at: srv.s.at('healthcheck', 'test') };
  const df = srv.df;
  return df?.healthcheck && !df.healthcheck.disabled ? { test: df.healthcheck.test, at: df.healthcheck.at } : null;
}

function plainHealthcheck(
  srv: Svc,
  published: { kind: string; text: string },
  front = 'with no proxy in front',
): { at: At; why: string } | null {
  if (published.kind === 'none') return null;
  const targets = new Set(
    published.text
      .split(', ')
      .map((t) => t.split('/')[0]!.split(':').pop()!)
      .filter((p) => /^\d+$/.test(p)),
  );
  // One published port: the health check's port is the one that serves the endpoint.
  if (targets.size !== 1) return null;
  const c = healthcheckOf(srv);
  if (c) {
    const m = /\bhttp:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::(\d+))?/.exec(c.test);
    if (m && targets.has(m[1] ?? '80'))
      return {
        at: c.at,
        why: `the health check fetches http://…:${m[1] ?? '80'} and the service publishes that port (${published.text}) ${front}: clients reach it in plain HTTP`,
      };
  }
  return null;
}

function publishedPorts(svc: Svc): { kind: 'none' | 'loopback' | 'all_interfaces' | 'unknown'; at: At; text: string } {
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

function ingressRestricted(sheet: FactSheet, srv: Svc, proxy: Svc, svcs: Svc[], project: ComposeProject): void {
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

function egress(sheet: FactSheet, srv: Svc, project: ComposeProject): void {
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

/** Variables that hold a database's or a broker's connection URL, which may carry a password. */
const CONNECTION_URL_NAME =
  /(^|_)(DATABASE|DB|POSTGRES(QL)?|PG|MYSQL|MARIADB|MSSQL|SQL|MONGO(DB)?|REDIS|VALKEY|AMQP|RABBITMQ|NEO4J|CLICKHOUSE|ELASTIC(SEARCH)?|KAFKA|BROKER)_?(URL|URI|DSN|CONNECTION(_STRING)?|CONN(_STR(ING)?)?)$|(^|_)DSN$/i;

/** A network created outside the project (`external: true`, or `external: { name }`). */
function isExternal(project: ComposeProject, name: string): boolean {
  const def = isObj(project.networks[name]) ? (project.networks[name] as Obj) : {};
  return def['external'] === true || isObj(def['external']);
}

function secrets(ctx: Context, sheet: FactSheet, srv: Svc, project: ComposeProject): void {
  const spec = srv.s.spec;
  const env = isObj(spec['environment']) ? (spec['environment'] as Obj) : {};
  const found: { kind: string; at: At; why: string }[] = [];
  for (const [k, v] of Object.entries(env)) {
    // `DB_PASSWORD_FILE=/run/secrets/db`: a secret read from a mounted file (`LOG_FILE` is no secret).
    if (/_FILE$/.test(k) && SECRET_NAME.test(k.replace(/_FILE$/, '')) && typeof v === 'string' && v.startsWith('/')) {
      found.push({ kind: 'mounted_files', at: srv.s.at('environment', k), why: `${k} points at a mounted file` });
      continue;
    }
    if (!SECRET_NAME.test(k)) {
      // `postgresql://postgres:postgres@postgres/mindsdb` (mindsdb/mindsdb): a password in a connection URL.
      if (typeof v === 'string' && passwordInUrl(v))
        found.push({
          kind: 'manifest_plaintext',
          at: srv.s.at('environment', k),
          why: `${k} is a connection URL with a password written in the compose file`,
        });
      // `DATABASE_URI=${DATABASE_URI}` (Teradata/teradata-mcp-server, whose example is
      // `teradata://user:password@host`): a connection URL from the operator's environment may carry one.
      else if (v instanceof Unresolved && v.asEmpty === '' && CONNECTION_URL_NAME.test(k))
        found.push({
          kind: 'environment',
          at: srv.s.at('environment', k),
          why: `${k}, a connection URL that may carry a password, comes from the operator's environment (${v.variables.join(', ')}), not from the files`,
        });
      continue;
    }
    const vars = srv.s.varsAt('environment', k);
    // `${PASSWORD:-Chang3d!}` with a .env the files do not hold: the compose file still carries a
    // password in clear, the one the container gets whenever that file leaves the variable unset.
    if (v instanceof Unresolved && v.fallback && v.asEmpty !== '') {
      found.push({
        kind: 'manifest_plaintext',
        at: srv.s.at('environment', k),
        why: `${k} falls back to a value written in the compose file when ${v.variables.join(', ')} is unset`,
      });
      continue;
    }
    if (v instanceof Unresolved) {
      found.push({
        kind: 'environment',
        at: srv.s.at('environment', k),
        why: `${k} comes from the operator's environment (${(vars.length ? vars : v.variables.length ? v.variables : [k]).join(', ')}), not from the files`,
      });
      continue;
    }
    const value = str(v) ?? '';
    // `APIFY_API_TOKEN: ${APIFY_API_TOKEN:-}` (tas-mcp): empty unless the operator's environment sets it.
    if (!value && vars.length && vars.every((n) => project.envAt(n) === null)) {
      found.push({
        kind: 'environment',
        at: srv.s.at('environment', k),
        why: `${k} comes from the operator's environment (${vars.join(', ')}) when it is set there; the file's default is empty`,
      });
      continue;
    }
    if (!value || saysNoSecret(value)) continue;
    const fromDotenv = vars.map((n) => project.envAt(n)).find((a) => a !== null);
    if (fromDotenv)
      found.push({ kind: 'manifest_plaintext', at: fromDotenv, why: `${k} is set from a value written in ${fromDotenv.file}` });
    else found.push({ kind: 'manifest_plaintext', at: srv.s.at('environment', k), why: `${k} has a value written in the compose file` });
  }
  for (const s of (spec['secrets'] as unknown[]) ?? []) {
    const name = typeof s === 'string' ? s : isObj(s) ? String(s['source']) : '';
    const def = project.secrets[name];
    const committed = isObj(def) && typeof def['file'] === 'string';
    const file = committed ? String((def as Obj)['file']) : '';
    // A secret whose file is among the files read is in the repository: its value is in version control.
    const inRepo = committed && ctx.inputs.get(ctx.inputs.resolve(project.entry, file)) !== undefined;
    found.push({
      kind: inRepo ? 'manifest_plaintext' : 'mounted_files',
      at: srv.s.at('secrets'),
      why: `compose secret ${name}${committed ? ` from the file ${file}${inRepo ? ', which is among the files read' : ''}` : ''}`,
    });
  }
  // An env_file among the files is read like a committed .env; one that is not may hold anything. A
  // dotenv file bind-mounted for the server to read itself (mcp_agent_mail's `./.env:/app/.env:ro`) too.
  let unreadEnvFile: string | null = null;
  const envFiles = ((Array.isArray(spec['env_file']) ? spec['env_file'] : spec['env_file'] ? [spec['env_file']] : []) as unknown[]).map(
    (e) => `env_file ${e instanceof Unresolved ? e.asEmpty : typeof e === 'string' ? e : isObj(e) ? String(e['path']) : ''}`,
  );
  const dotenvMounts = volumesOf(srv)
    .filter((v) => /^(\.{1,2}\/|\/)/.test(v.source) && /(^|\/)\.env(\.[\w-]+)?$|\.env$/.test(v.source))
    .map((v) => `the bind-mounted ${v.source}`);
  for (const what of [...envFiles, ...dotenvMounts]) {
    const p = what.replace(/^(env_file|the bind-mounted) /, '');
    const where = srv.s.at(what.startsWith('env_file') ? 'env_file' : 'volumes');
    const file = ctx.inputs.get(ctx.inputs.resolve(where.file, p));
    if (!file) {
      unreadEnvFile ??= what;
      continue;
    }
    const { values, lines } = parseDotenv(file.text);
    const secret = [...values].find(([k, v]) => SECRET_NAME.test(k) && v !== '');
    if (secret)
      found.push({
        kind: 'manifest_plaintext',
        at: { file: file.path, line: lines.get(secret[0]) ?? 1 },
        why: `${secret[0]} is written in ${what}, which is among the files read`,
      });
  }
  // A configuration file bind-mounted for the server to read (siakhooi/mcp-mariadb's
  // `./example-config.yaml:/app/config.yaml`, with `password: secret`): a secret written there is
  // in the repository; one the files do not hold may hold any.
  for (const v of volumesOf(srv).filter((x) => /^\.{1,2}\//.test(x.source) && /\.(ya?ml|json)$/i.test(x.source))) {
    const file = ctx.inputs.get(ctx.inputs.resolve(srv.s.at('volumes').file, v.source));
    if (!file) {
      unreadEnvFile ??= `the bind-mounted ${v.source}`;
      continue;
    }
    let doc: YamlDoc | undefined;
    try {
      doc = readYaml(file.text)[0];
    } catch {
      doc = undefined;
    }
    const hit = doc ? secretInConfig(doc) : null;
    if (hit)
      found.push({
        kind: 'manifest_plaintext',
        at: { file: file.path, line: hit.line },
        why: `${hit.key} is written in the bind-mounted ${v.source}, which is among the files read`,
      });
  }
  const environmentOnly = found.filter((f) => f.kind === 'environment');
  if (environmentOnly.length && environmentOnly.length === found.length) {
    sheet.undecided('container.secrets_source', environmentOnly[0]!.why);
    return;
  }
  if (!found.length && unreadEnvFile !== null) {
    sheet.undecided(
      'container.secrets_source',
      `${unreadEnvFile} is not among the files read: whether it holds secrets, and where it comes from, is not in them`,
    );
    return;
  }
  const decided = found.filter((f) => f.kind !== 'environment');
  // A bind mount named for secrets (`./credentials:/workspace/credentials`, `./certs/local:/run/…/tls`):
  // whether it holds them is not in the files, so "none" would be a guess.
  const secretDir = volumesOf(srv).find(
    (v) => isHostPath(v.source) && [v.source, v.target].some((p) => p.split(/[\\/]/).some((seg) => SECRET_DIR.test(seg))),
  );
  if (decided.length) {
    const w = worstSecrets(decided);
    sheet.set('container.secrets_source', w.kind, w.at, w.why);
  } else if (secretDir)
    sheet.undecided(
      'container.secrets_source',
      `${secretDir.source} is mounted at ${secretDir.target}, a directory named for secrets or keys: whether it holds them is not in the files`,
    );
  else if (srv.dockerfile) sheet.set('container.secrets_source', 'none', srv.s.at(), 'no secret reaches the container in the files');
  else if (srv.image) sheet.undecided('container.secrets_source', imageMayHoldSecrets(srv.image));
  // `build: ../book-api-mcp-server-dotnet`: a Dockerfile outside the files may bake one in.
  else
    sheet.undecided(
      'container.secrets_source',
      'no secret reaches the container from the files, but the Dockerfile it is built from is not among them: whether the image holds one is not in them',
    );
}
