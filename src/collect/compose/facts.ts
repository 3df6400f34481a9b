// The deployments a Compose project describes: which service is the MCP server, which proxy is
// in front of it, and every fact the project's files decide about them.
import { dockerfileFacts, imageFacts, privilegeDrop, supervisedRun } from '../build-facts.js';
import { caddyCommandSite } from '../caddy.js';
import type { Context } from '../context.js';
import { HOST_NETWORK } from '../docker-defaults.js';
import { scriptCommand } from '../entrypoint-script.js';
import { dirOf } from '../inputs.js';
import { npmDeclared } from '../packages.js';
import { isReferenceProxy, recogniseSignet, signetFacts } from '../profiles/signet.js';
import { imagePin, repository } from '../roles.js';
import { hostCheckOff, hostCheckOffByVariable, legacySse, listenFacts, transportNamed } from '../server-args.js';
import { type At, FactSheet } from '../sheet.js';
import { startImage, startRelease } from '../start-release.js';
import { fileMiddlewares, traefikAccessLog, traefikEnabled, traefikFacts } from '../traefik.js';
import { callsByUrl, mentions } from './calls.js';
import { containerFacts, healthcheckByEnvironment, plainHealthcheck, replicas, userFromOperator } from './container.js';
import { type ComposeProject, isObj } from './load.js';
import { egress, hostProxyInFront, ingressRestricted } from './network.js';
import { nothingInFront } from './nothing-in-front.js';
import { composeSecrets } from './secrets.js';
import { selectServers } from './servers.js';
import {
  closedFor,
  commandWordsOf,
  composeDir,
  containerEnv,
  envView,
  healthcheckOf,
  hostNames,
  isExternal,
  labelsOf,
  publishedPorts,
  runOf,
  type Svc,
  str,
  traefikLabelSource,
  volumesOf,
} from './service.js';
import { transport } from './transport.js';
import { tunnelTo } from './tunnels.js';

/**
 * `image:` beside `build:`: without `pull_policy: build`, Compose pulls the image first and builds only
 * when the registry has none (compose-spec build.md, "Using build and image"). A bare name is in
 * docker.io/library, which holds only Docker's official images, so the build runs; a namespaced or
 * registry name may be the project's published image, and a digest names exactly one. What only the
 * build's files decide then stays open, unless the pulled image gives the same value.
 */
function pulledFirst(ctx: Context, sheet: FactSheet, srv: Svc, project: ComposeProject): void {
  const image = str(srv.s.spec['image']);
  if (!image || str(srv.s.spec['pull_policy']) === 'build') return;
  const pin = imagePin(image);
  const digest = pin === 'digest';
  if (!digest && !repository(image).includes('/')) return;
  const why = digest
    ? `Compose runs ${image} (a digest names one image) and builds ${srv.dockerfile} only when the registry has none: the image's own build decides, not these files`
    : `Compose pulls ${image} first and builds ${srv.dockerfile} only when the registry has none (pull_policy: build always builds): the published image's build decides, not these files`;
  // The compose files and the env files they read hold either way; the build's files only for the build.
  // A proxy's configuration is neither (IBM/mcp-context-forge's nginx.conf in front of its gateway).
  const composeSide = (file: string) =>
    project.files.includes(file) ||
    project.extended.includes(file) ||
    /\.env$/.test(file) ||
    ['nginx', 'caddyfile', 'traefik'].includes(ctx.kinds.get(file) ?? '');
  const hadTransport = sheet.has('transport.kind');
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
  // Whether the server listens at all rests on the transport (Prometheus-P/hwp-bridge's image ENV
  // `HWP_MCP_TRANSPORT=http` beside `stdin_open: true`): where that reopened, so do its address facts.
  if (hadTransport && !sheet.has('transport.kind'))
    for (const path of ['exposure.bind_address_class', 'exposure.endpoint_address_class', 'exposure.ingress_restricted_to_proxy'])
      if (sheet.has(path))
        sheet.reopen(path, `whether the server listens on the network at all depends on its transport, open here: ${why}`);
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

/** A build whose context is a Git repository's URL (`build: https://github.com/o/r.git#main`): the URL, or null. */
function remoteBuild(build: unknown): string | null {
  const context = typeof build === 'string' ? build : isObj(build) && typeof build['context'] === 'string' ? build['context'] : null;
  return context !== null && /^(https?:\/\/|git@|git:\/\/|ssh:\/\/|github\.com\/)/.test(context) ? context : null;
}

/**
 * What a build from a Git repository's URL decides: Compose builds the server, and runs what the
 * build produced; the branch it names, or the default one, moves (rjboer/Openhands-LIST-MCP's
 * `#main`), while a tag or a commit fixes its source but not what the Dockerfile there installs.
 */
function remoteBuildFacts(sheet: FactSheet, url: string, at: At): void {
  sheet.set('container.image_pinned_by_digest', false, at, `build: ${url}: runs what that build produced, named by no digest`);
  sheet.set('supply_chain.builds_server', true, at, `Compose builds the server from the Git repository ${url}`);
  const ref = /#([^:]*)/.exec(url)?.[1] ?? '';
  const theirs = `the Dockerfile and what it installs are in that repository, not among the files`;
  if (ref === '' || /^(main|master|develop|dev|trunk|HEAD)$/.test(ref))
    sheet.set(
      'supply_chain.deployed_release',
      'floating',
      at,
      `builds ${ref ? `the branch ${ref}` : 'the default branch'} of ${url.replace(/#.*$/, '')}, whatever it holds at build time`,
    );
  else sheet.undecided('supply_chain.deployed_release', `builds ${ref} of the repository: ${theirs}`);
  for (const path of ['supply_chain.lockfile_enforced', 'supply_chain.install_scripts_disabled'])
    sheet.undecided(path, `built from ${url}: ${theirs}`);
}

export function composeDeployments(ctx: Context, project: ComposeProject): FactSheet[] {
  const selection = selectServers(ctx, project);
  if (!selection) return [];
  const { svcs, proxies, servers, evidence } = selection;
  return servers.map((srv) => {
    const sheet = new FactSheet(`compose:${project.entry}:${srv.s.name}`);
    const spec = srv.s.spec;
    const at = (...p: (string | number)[]) => srv.s.at(...p);
    sheet.set('container.used', true, at(), `service ${srv.s.name} runs in a container (${evidence.get(srv.s.name)})`);
    sheet.set('container.orchestrator', 'docker', at(), 'a Docker Compose service');
    replicas(sheet, srv);
    containerFacts(sheet, srv, dirOf(project.entry));
    const fromGit = remoteBuild(spec['build']);
    if (srv.dockerfile) {
      healthcheckByEnvironment(sheet, srv);
      dockerfileFacts(sheet, srv.df!, ctx.inputs, srv.contextDir ?? '', srv.builtBy ? at('image') : at('build'));
      // The service runs whatever its build produced: no digest names it (doctrine 1.3), whatever the FROM lines say.
      if (typeof spec['image'] === 'string' && /@sha256:[0-9a-f]{64}$/.test(spec['image']))
        sheet.set('container.image_pinned_by_digest', true, at('image'), `image: ${spec['image']}`);
      else sheet.set('container.image_pinned_by_digest', false, at('build'), 'build: runs what the build produced, named by no digest');
    } else if (fromGit) remoteBuildFacts(sheet, fromGit, at('build'));
    // A build whose Dockerfile is not among the files (CtrlAltAdapt/obsidian-mcp-server's example, its
    // context elsewhere), under no name a registry may hold: Compose builds it, whatever it holds.
    else if (spec['build'] !== undefined && (!srv.image || !repository(srv.image).includes('/'))) {
      sheet.set('container.image_pinned_by_digest', false, at('build'), 'build: runs what the build produced, named by no digest');
      sheet.set('supply_chain.builds_server', true, at('build'), 'Compose builds the image from the build: context');
      const why = `the build's Dockerfile is not among the files: what it installs is not in them`;
      for (const k of ['supply_chain.deployed_release', 'supply_chain.lockfile_enforced', 'supply_chain.install_scripts_disabled'])
        sheet.undecided(k, why);
      // Nor its USER or HEALTHCHECK, where the service sets neither.
      for (const k of ['container.runs_as_root', 'container.healthcheck'])
        if (!sheet.looked(k)) sheet.undecided(k, `the build's Dockerfile is not among the files: what it sets is not in them`);
    } else if (srv.image) imageFacts(sheet, srv.image, at('image'));
    const operatorUser = userFromOperator(srv);
    if (operatorUser) sheet.reopen('container.runs_as_root', operatorUser);
    // A Dockerfile without HEALTHCHECK inherits its base image's, which is the image's, not the files'
    // (as its default USER is); FROM scratch has none.
    const built = srv.df;
    if (!sheet.looked('container.healthcheck') && built?.scratch)
      sheet.set('container.healthcheck', false, at(), 'no healthcheck in the service or its Dockerfile, built FROM scratch');
    else if (!sheet.looked('container.healthcheck') && built)
      sheet.undecided(
        'container.healthcheck',
        `no healthcheck in the service or ${built.path}: a HEALTHCHECK of its base image ${built.base?.image ?? ''} would be inherited, and that is the image's`,
      );
    else if (!sheet.looked('container.healthcheck')) sheet.undecided('container.healthcheck', "the image's own HEALTHCHECK decides");
    composeSecrets(ctx, sheet, srv, project);

    // Signet's own image: its profile decides what the files leave to the server (profiles/signet.ts).
    const signet = recogniseSignet(ctx.inputs, srv.df);
    // Who is in front: a proxy of the project that forwards to it, sharing a network.
    const front = proxies.filter(
      (p) =>
        p.networks.some((n) => srv.networks.includes(n)) &&
        ((p.role?.kind === 'proxy' && p.role.product === 'traefik' && traefikEnabled(labelsOf(srv, traefikLabelSource(p)))) ||
          mentions(p, srv.s.name) ||
          ctx.proxyConfigNames(p.contextDir, volumesOf(p), hostNames(srv, p), composeDir(project), containerEnv(p))),
    );
    // What the container runs: its entrypoint and command, as Compose starts them.
    const run = runOf(srv);
    // The project's only proxy on a network of the server's is in front of it, unless its configuration shows
    // every route going elsewhere (agentic-community/mcp-gateway-registry's nginx: its registry and auth service).
    // Not a server that says it speaks stdio (loaishar/mcp-server's unified-mcp-stdio: `MCP_TRANSPORT=stdio`,
    // `stdin_open: true`, beside an nginx whose configuration is not among the files): no proxy reaches that.
    const saysStdio = spec['stdin_open'] === true || transportNamed(commandWordsOf(run.parts), containerEnv(srv))?.kind === 'stdio';
    const only = proxies.length === 1 && proxies[0]!.networks.some((n) => srv.networks.includes(n)) && !saysStdio ? proxies[0]! : undefined;
    const proxy =
      front[0] ??
      (only &&
      !ctx.proxyConfigExcludes(
        only.contextDir,
        volumesOf(only),
        hostNames(srv, only),
        svcs.filter((v) => v !== srv).flatMap((v) => hostNames(v, only)),
        composeDir(project),
        containerEnv(only),
        closedFor(project, only),
      )
        ? only
        : undefined);
    const published = publishedPorts(srv);
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
    // A service of the stack that calls the MCP endpoint past the proxy.
    let caller: Svc | undefined;
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
      const config = ctx.proxyConfig(proxy.role, proxy.contextDir, volumesOf(proxy), composeDir(project), containerEnv(proxy));
      // A Caddy with no Caddyfile among the files, configured by its command (`caddy reverse-proxy --from :80 --to …`).
      const site =
        config?.product === 'caddy' && !config.files.length
          ? caddyCommandSite(commandWordsOf([proxy.s.spec['entrypoint'], proxy.s.spec['command']]), proxy.s.at('command'))
          : null;
      ctx.proxyFacts(sheet, site ? { ...config!, files: [site] } : config, {
        targets: hostNames(srv, proxy),
        platform: 'compose',
        facesClients: true,
        elsewhere: svcs.filter((v) => v !== srv).flatMap((v) => hostNames(v, proxy)),
        closed: closedFor(project, proxy),
        answersInOnePiece: signet !== null,
      });
      if (proxy.role?.kind === 'proxy' && proxy.role.product === 'traefik') {
        const cmd = proxy.s.spec['command'];
        traefikAccessLog(sheet, commandWordsOf([cmd]), containerEnv(proxy), (i) =>
          i !== null && Array.isArray(cmd) ? proxy.s.at('command', i) : proxy.s.at(cmd === undefined ? 'environment' : 'command'),
        );
        const source = traefikLabelSource(proxy);
        traefikFacts(
          sheet,
          labelsOf(srv, source),
          { targets: [srv.s.name], platform: 'compose', facesClients: publishedPorts(proxy).kind !== 'none' },
          [
            ...svcs.map((v) => labelsOf(v, source)),
            fileMiddlewares(ctx.proxyFiles(proxy.contextDir, volumesOf(proxy), composeDir(project), ['traefik'])),
          ],
        );
      }
      if (sheet.get('exposure.behind_reverse_proxy') === true && published.kind !== 'none')
        sheet.set(
          'exposure.behind_reverse_proxy',
          false,
          published.at,
          `the server publishes port ${published.text} itself: clients can bypass ${proxy.s.name}`,
        );
      // A service of the stack that calls the MCP endpoint itself reaches the server past the proxy
      // (doctrine: exposure.behind_reverse_proxy); a health check or a metrics scraper names no MCP path.
      caller = svcs.find((v) => v !== srv && v !== proxy && callsByUrl(v, srv.s.name, true));
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
    } else nothingInFront(ctx, sheet, srv, svcs, published, run);
    // An image ENTRYPOINT the service keeps may be a script that ends in the server's command.
    const script =
      spec['entrypoint'] === undefined && srv.df
        ? scriptCommand(srv.df, ctx.inputs, srv.contextDir ?? '', spec['command'] !== undefined)
        : null;
    if (spec['user'] === undefined) {
      privilegeDrop(sheet, script);
      supervisedRun(sheet, script?.words ?? commandWordsOf(run.parts));
    }
    // The server's own listen flag: loopback only, or on the host's network a host port.
    // Its variables as the files fix them: the script's exports, the service's environment, the image's ENV
    // unless an env_file may set it.
    const fixed = containerEnv(srv);
    listenFacts(
      sheet,
      script?.words ?? commandWordsOf(run.parts, '\u0000'),
      script?.at ?? run.at,
      spec['network_mode'] === 'host' ? 'network_mode: host' : null,
      (name) =>
        script?.env.get(name)?.value ??
        (isObj(spec['environment']) && name in spec['environment']
          ? fixed.get(name)
          : spec['env_file'] === undefined
            ? fixed.get(name)
            : undefined),
    );
    // A runner or an install as the container starts fetches the server then.
    startRelease(
      sheet,
      script?.words ?? commandWordsOf(run.parts),
      script?.at ?? run.at,
      script ? 'its entrypoint script' : 'the container',
      startImage(srv.df, srv.image, srv.df && srv.contextDir !== null ? npmDeclared(ctx.inputs, srv.contextDir, srv.df.copied) : []),
    );
    // The server's own published port shows it serves the network best; else the proxy's.
    transport(sheet, srv, svcs, published.kind !== 'none' || !proxy ? published : entryPorts, proxy, run, script);
    // A stdio server's health check that fetches an HTTP port (DustHoff/msgraphmcp's image checks
    // http://localhost:8080/health, which only its HTTP mode serves) fails whatever the server does.
    const hc = healthcheckOf(srv);
    if (
      sheet.get('transport.kind') === 'stdio' &&
      sheet.get('container.healthcheck') === true &&
      hc &&
      /\bhttps?:\/\/(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)\b/.test(hc.test)
    )
      sheet.reopen(
        'container.healthcheck',
        `the health check fetches an HTTP URL of the container (${hc.at.file}:${hc.at.line}), and the server speaks stdio here: nothing listens there unless another mode does`,
      );
    // A stdio server listens on no address and clients reach it through the container engine, not a network.
    const stdio = sheet.get('transport.kind') === 'stdio';
    // With the transport open, so is whether the server listens at all (DollhouseMCP's stdio server,
    // Waggle-mcp's `stdin_open` beside a transport variable).
    const mayNotListen = !stdio && !sheet.has('transport.kind');
    const noListener = stdio
      ? 'a stdio server listens on no address: its client is attached to its stdin'
      : mayNotListen
        ? 'whether the server listens on the network at all is open: its transport is undecided'
        : null;
    if (noListener) sheet.reopen('exposure.bind_address_class', noListener);
    // Nor does it take network ingress for a proxy to restrict.
    if (noListener && !proxy && sheet.get('exposure.ingress_restricted_to_proxy') === false)
      sheet.reopen(
        'exposure.ingress_restricted_to_proxy',
        stdio ? 'a stdio server takes no network ingress: its client is attached to its stdin' : noListener,
      );
    // A tunnel of the stack that forwards to the server puts it on the internet, whatever the host publishes.
    const tunnel = tunnelTo(ctx, svcs, srv);
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
      if (noListener)
        sheet.undecided(
          'exposure.endpoint_address_class',
          stdio
            ? 'a stdio server has no network endpoint: its client reaches it through the container engine (docker compose run, docker attach)'
            : noListener,
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
      if (tunnel) sheet.set('exposure.reachable_from_internet', true, tunnel.at, tunnel.why);
      else if (quick) {
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
    if (tunnel && !stdio && sheet.get('exposure.reachable_from_internet') !== true)
      sheet.set('exposure.reachable_from_internet', true, tunnel.at, tunnel.why);
    const external = stdio ? undefined : srv.networks.find((n) => isExternal(project, n));
    if (external) {
      const why = `network ${external} is external: a proxy or tunnel outside these files may reach the server on it`;
      if (sheet.get('exposure.reachable_from_internet') === false) sheet.reopen('exposure.reachable_from_internet', why);
      if (['private', 'loopback'].includes(String(sheet.get('exposure.endpoint_address_class'))))
        sheet.reopen('exposure.endpoint_address_class', why);
      // A port of its own on the host, or a service of the stack that calls it past the proxy
      // (deslicer/mcp-for-splunk's Inspector), still reaches it past any proxy: that stays "no proxy in front".
      if (sheet.get('exposure.behind_reverse_proxy') === false && published.kind === 'none' && !caller)
        sheet.reopen('exposure.behind_reverse_proxy', why);
      // "No proxy to restrict ingress to" holds only where no proxy can be (Maicon-Bartoski-Saas/mcp-server's Traefik on `cloud`).
      if (!proxy && published.kind === 'none' && sheet.get('exposure.ingress_restricted_to_proxy') === false)
        sheet.reopen('exposure.ingress_restricted_to_proxy', why);
    }
    // Another MCP server of the stack that publishes a port, shares a network with this one and
    // names it or is a gateway (PiefkePaul/mcp-oauth-gateway, whose routes file is not among the
    // files) may forward clients to it: "nothing reaches it" and "no proxy" are not the files' to
    // say. An agent that calls it (docker/compose-for-agents' adk) is a client, not a way in.
    const gateway =
      stdio || proxy
        ? undefined
        : servers.find(
            (v) =>
              v !== srv &&
              publishedPorts(v).kind !== 'none' &&
              v.networks.some((n) => srv.networks.includes(n)) &&
              (mentions(v, srv.s.name) || /gateway|proxy|router|aggregat/i.test(`${v.s.name} ${v.image ?? ''}`)),
          );
    if (gateway) {
      const why = `${gateway.s.name} publishes ${publishedPorts(gateway).text} and shares a network with the server: a gateway whose routes are not read here may forward clients to it`;
      if (sheet.get('exposure.reachable_from_internet') === false) sheet.reopen('exposure.reachable_from_internet', why);
      // The gateway's reason says more than an open transport does.
      if (sheet.get('exposure.endpoint_address_class') === 'private' || (mayNotListen && published.kind === 'none'))
        sheet.reopen('exposure.endpoint_address_class', why);
      if (sheet.get('exposure.behind_reverse_proxy') === false && published.kind === 'none')
        sheet.reopen('exposure.behind_reverse_proxy', why);
    }
    hostProxyInFront(
      ctx,
      sheet,
      srv,
      new Set(
        proxies.flatMap((p) => ctx.proxyFiles(p.contextDir, volumesOf(p), composeDir(project), ['nginx', 'caddyfile']).map((f) => f.path)),
      ),
    );
    egress(sheet, srv, project);
    const srvDf = srv.df;
    legacySse(sheet, run.at, ...run.parts);
    hostCheckOff(sheet, run.at, ...run.parts);
    const ownEnv = envView(srv.df, srv);
    hostCheckOffByVariable(sheet, Object.fromEntries([...ownEnv].map(([k, v]) => [k, v.value])), (k) => ownEnv.get(k)!.at);
    if (script && !script.branch && !sheet.has('transport.legacy_sse')) legacySse(sheet, script.at, script.words);
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
    if (srv.dockerfile) pulledFirst(ctx, sheet, srv, project);
    // The names a client entry reaches this container by: `docker exec -i NAME`, `docker compose run SERVICE`.
    const named = spec['container_name'];
    for (const name of [typeof named === 'string' ? named : `${project.name}-${srv.s.name}-1`, `service ${srv.s.name}`])
      ctx.composeContainers.set(name, sheet);
    return sheet;
  });
}
