// Which services of a Compose project are MCP servers and which are proxies: named by the caller,
// or shown by the files (a proxy forwards to it, an MCP SDK in its build, "mcp" in its name).

import type { Context } from '../context.js';
import type { DockerfileInfo } from '../dockerfile/read.js';
import { dockerfileFor } from '../own-image.js';
import { contextOfDockerfile, isMcpPackage, manifestsOfBuild, mcpEvidenceOfBuild, runsBinaryOnly, webUi } from '../packages.js';
import { registryName } from '../registry-server.js';
import { idles, mcpWord, namesMcpServer, runsAuthenticator, runsMcpClient, runsNoServer } from '../roles.js';
import { transportNamed } from '../server-args.js';
import { authenticatorsOf } from './authenticators.js';
import { callsMcpOf, dependsOn, mentions } from './calls.js';
import { type ComposeProject, isObj } from './load.js';
import {
  commandWordsOf,
  composeDir,
  containerEnv,
  describe,
  hostNames,
  mcpLabels,
  type Svc,
  str,
  volumesOf,
  volumesOfSpec,
} from './service.js';

export interface Selection {
  svcs: Svc[];
  proxies: Svc[];
  servers: Svc[];
  /** Why each server is read as one. */
  evidence: Map<string, string>;
}

export function selectServers(ctx: Context, project: ComposeProject): Selection | null {
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
  for (const i of project.inactive) {
    // A proxy configuration it mounts is that container's, off with it, never a host's
    // (carlosjperez/SOLARIA-DFO's nginx under `profiles: [with-proxy]`).
    const configs = ctx.proxyFiles(null, volumesOfSpec(i.spec), composeDir(project), ['nginx', 'caddyfile', 'traefik']).map((f) => f.path);
    ctx.note(
      i.at.file,
      `service ${i.name} is left out: its profiles (${i.profiles.join(', ')}) are not enabled${configs.length ? `; the proxy configuration it mounts (${configs.join(', ')}) is read with it when they are` : ''}`,
    );
  }
  for (const n of project.notes) ctx.note(project.entry, n);
  const jobs = new Set<string>();
  for (const v of svcs) {
    const why =
      v.oneShot || (ctx.options.servers ?? []).includes(v.s.name) ? null : runsNoServer(v.s.spec['entrypoint'], v.s.spec['command']);
    if (!why) continue;
    jobs.add(v.s.name);
    ctx.note(v.s.at().file, `service ${v.s.name} is not read as a server: ${why}; name it with --server if it serves MCP`);
  }
  const proxies = svcs.filter((v) => v.role?.kind === 'proxy');
  const authenticators = authenticatorsOf(ctx, project, svcs, proxies);
  if (!(ctx.options.servers ?? []).length)
    for (const [name, proxy] of authenticators)
      ctx.note(
        project.entry,
        `service ${name} is the authenticator ${proxy} asks about each request (forward_auth, auth_request): part of the edge, not read as a server; name it with --server if it serves MCP`,
      );
  const wanted = ctx.options.servers ?? [];
  const candidates = svcs.filter(
    (v) =>
      !v.oneShot &&
      !jobs.has(v.s.name) &&
      (!authenticators.has(v.s.name) || (ctx.options.servers ?? []).includes(v.s.name)) &&
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
  const evidence = new Map<string, string>();
  const clients = new Map<string, string>();
  // Named for MCP only, built from manifests that depend on no MCP SDK: another program.
  const namedOnly = new Map<string, { path: string; framework: string }>();
  const servesMcp = (c: Svc) =>
    svcs.some((v) => v !== c && callsMcpOf(v, c.s.name)) ||
    transportNamed(commandWordsOf([c.s.spec['entrypoint'], c.s.spec['command']]), containerEnv(c))?.kind === 'http';
  for (const c of candidates) {
    const name = c.s.name;
    const marked = mcpLabels(c).marked;
    // Not another service's build it only runs (ADORSYS-GIS/lightbridge-authz's authz-budget runs the
    // image authz-api builds): the SDK a shared manifest lists says nothing of what it starts.
    const built =
      c.contextDir !== null && c.df && !c.builtBy
        ? mcpEvidenceOfBuild(ctx.inputs, c.contextDir, c.df.copied, runsBinaryOnly(c.df, ctx.inputs))
        : null;
    if (wanted.includes(name)) evidence.set(name, 'named with --server');
    else if (
      proxies.some(
        (p) =>
          mentions(p, name) ||
          ctx.proxyConfigNames(p.contextDir, volumesOf(p), hostNames(c, p), composeDir(project), containerEnv(p), true),
      )
    )
      evidence.set(name, 'a proxy of the project forwards to it');
    // A Docker-label MCP gateway's own mark (matthewdart/toolbox's `mcp.enabled: "true"`).
    else if (marked) evidence.set(name, `its label ${marked.key} marks it an MCP server`);
    // An MCP SDK serves clients and servers alike: a service that calls another's MCP endpoint
    // (`MCPGATEWAY_ENDPOINT=http://mcp-gateway:8811/sse`) is that service's client, not a server.
    // Unless it serves MCP itself too, a gateway in the middle: another service calls its MCP endpoint,
    // or what it runs names a network transport (tchiro88/MCP_CREATOR's mcp-integrator, MCP_TRANSPORT=http).
    else if (built && candidates.some((o) => o !== c && callsMcpOf(c, o.s.name)) && !servesMcp(c)) {
      const callee = candidates.find((o) => o !== c && callsMcpOf(c, o.s.name))!;
      clients.set(name, callee.s.name);
    } else if (built) evidence.set(name, `its build copies a manifest that depends on ${built.name}`);
    // Not its container_name: a test fixture's squid is `mcp-test-proxy`, a pgAdmin `mcpjungle-pgadmin`.
    else if (/mcp/i.test(`${name} ${c.image ?? ''} ${JSON.stringify(c.s.spec['command'] ?? '')}`)) {
      // A web UI named for the MCP project it manages (unrelated-ai/mcp-gateway's gateway_ui, a
      // Next.js app): no server, unless another service calls its MCP endpoint. A server written
      // without an SDK (express, FastAPI) looks like any web app, so only a UI framework decides.
      const manifests = c.contextDir !== null && c.df ? manifestsOfBuild(ctx.inputs, c.contextDir, c.df.copied) : [];
      const ui = manifests.map(webUi).find((u) => u !== null);
      const called = svcs.some((v) => v !== c && callsMcpOf(v, name));
      if (ui && !called) namedOnly.set(name, ui);
      else if (
        namesMcpServer(name) ||
        (c.image !== null && namesMcpServer(c.image)) ||
        /mcp/i.test(JSON.stringify(c.s.spec['command'] ?? ''))
      )
        evidence.set(name, 'its name, image or command names MCP');
      else if (called) evidence.set(name, `service ${svcs.find((v) => v !== c && callsMcpOf(v, name))!.s.name} calls its MCP endpoint`);
      else if (!wanted.length)
        ctx.note(
          project.entry,
          `service ${name} names MCP only in a name whose last word gives it another role (${[name, c.image ?? ''].filter((x) => /mcp/i.test(x)).join(', ')}): not read as a server; name it with --server if it serves MCP`,
        );
    }
    // Its image installs an MCP server from a registry, or its Dockerfile's command names MCP
    // (antvis/mcp-server-chart's `npm install -g @antv/mcp-server-chart`, `CMD ["mcp-server-chart", …]`).
    // A command that only idles keeps the image's server there for a client's `docker exec -i` (sudsarkar13/deno-mcp's
    // deno-dev: `tail -f /dev/null`), as no command would.
    else if (
      c.df &&
      (c.s.spec['command'] === undefined || idles(c.s.spec['entrypoint'], c.s.spec['command'])) &&
      imageRunsMcp(c.df) &&
      !candidates.some((o) => o !== c && callsMcpOf(c, o.s.name))
    )
      evidence.set(name, `its image ${imageRunsMcp(c.df)}`);
    // Another service calls its MCP endpoint (emergingrobotics/genai-toolbox-testing's agent:
    // `MCP_URL=http://toolbox:5000/mcp/sse`): what it serves there is MCP.
    else if (svcs.some((v) => v !== c && callsMcpOf(v, name)))
      evidence.set(name, `service ${svcs.find((v) => v !== c && callsMcpOf(v, name))!.s.name} calls its MCP endpoint`);
    // Its image is the project's own build of an MCP server, from a Dockerfile named like it (alderaan/vps'
    // `registry.correlion.ai/ai-dev-server:latest`, which ai-dev-server/Dockerfile builds from a FastMCP project).
    else if (!c.df && c.image && c.s.spec['command'] === undefined) {
      const own = dockerfileFor(ctx, c.image);
      const mcp = own
        ? mcpEvidenceOfBuild(ctx.inputs, contextOfDockerfile(ctx.inputs, own.path, own.copied), own.copied, runsBinaryOnly(own, ctx.inputs))
        : null;
      if (own && mcp && !candidates.some((o) => o !== c && callsMcpOf(c, o.s.name)))
        evidence.set(name, `its image ${c.image} is named like ${own.path}, a build of an MCP server (${mcp.name}) among the files`);
    }
  }
  // "mcp" in a service's name alone, its image another product's, while a server of the stack
  // depends on it: that server's backend (WebSurfinMurf/mcp's mcp-ib-gateway runs
  // ghcr.io/gnzsnz/ib-gateway for mcp-ib), not a server of its own.
  // So too a service built from files that show no MCP SDK, its `image:` only the tag its build
  // gets (homeassistant-ai/ha-mcp's ha-mcp-screenshot, `image: ha-mcp-screenshot:latest`, a
  // headless-Chromium engine ha-mcp fetches dashboards from).
  const backends = new Map<string, string>();
  for (const c of candidates) {
    if (wanted.length || evidence.get(c.s.name) !== 'its name, image or command names MCP') continue;
    const ownTag = c.s.spec['build'] !== undefined;
    if (/mcp/i.test(`${ownTag ? '' : (c.image ?? '')} ${JSON.stringify(c.s.spec['command'] ?? '')}`)) continue;
    // An image a variable names (`${VECTOR_MCP_MCP_IMAGE:?…}`, Knuckles-Team/vector-mcp) may be anyone's.
    if (c.s.spec['image'] !== undefined && str(c.s.spec['image']) === null) continue;
    // A built one only beside a server the files show better than by name: seanchatmangpt/erlmcp's
    // cluster peers and load-test client, all named for MCP, use one another.
    const user = candidates.find(
      (o) =>
        o !== c &&
        evidence.has(o.s.name) &&
        (!ownTag || evidence.get(o.s.name) !== 'its name, image or command names MCP') &&
        (dependsOn(o, c.s.name) || mentions(o, c.s.name)) &&
        // A gateway calls its backends at their MCP endpoints (TheLukasHenry/proxy-server's mcp-proxy,
        // MCP_GITHUB_URL=http://mcp-github:8000): those are MCP servers behind it.
        !callsMcpOf(o, c.s.name) &&
        !backends.has(o.s.name),
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
  // Two images built from one context (hyperion14/docx-mcp-service's requirements.txt lists Flask
  // and fastmcp): the one whose Dockerfile or command names MCP (`Dockerfile.mcp`, `CMD ["python3",
  // "mcp_server_v2.py"]`) is the server, and the other, which it depends on or names and which runs
  // another program (`python app.py`), its backend, whatever SDK the shared manifest lists.
  const runsMcp = (v: Svc) => namesMcp(v) || mcpWord(`${v.dockerfile ?? ''} ${JSON.stringify(v.df?.entrypoint ?? [])}`);
  const sameContext = new Map<string, string>();
  for (const c of candidates) {
    if (wanted.length || siblings.has(c.s.name) || !evidence.get(c.s.name)?.startsWith('its build copies')) continue;
    if (runsMcp(c) || /mcp/i.test(c.s.name)) continue;
    const server = candidates.find(
      (o) =>
        o !== c &&
        evidence.has(o.s.name) &&
        o.contextDir === c.contextDir &&
        // Its Dockerfile or command names MCP, or its name does (FactrueSolin/codebox-rmcp's mcp-server
        // beside python-worker, one Cargo.toml with two binaries).
        (runsMcp(o) || namesMcpServer(o.s.name)) &&
        (dependsOn(o, c.s.name) || mentions(o, c.s.name)),
    );
    if (server) sameContext.set(c.s.name, server.s.name);
  }
  for (const [backend, server] of sameContext) {
    evidence.delete(backend);
    ctx.note(
      project.entry,
      `service ${backend} is built from the same files as ${server}, runs another program, and ${server} depends on it or names it: its backend, not read as a server (the MCP SDK the shared manifest lists is ${server}'s); name it with --server if it serves MCP`,
    );
  }
  for (const [sibling, server] of siblings) {
    evidence.delete(sibling);
    ctx.note(
      project.entry,
      `service ${sibling} runs another program (its command) from the image ${server} serves MCP from: the MCP SDK in the build is that server's, and ${sibling} is not read as one; name it with --server if it serves MCP`,
    );
  }
  if (!wanted.length)
    for (const [name, ui] of namedOnly)
      ctx.note(
        project.entry,
        `service ${name} names MCP only in its name, and ${ui.path} makes it a web UI (${ui.framework}) with no MCP package: not read as a server; name it with --server if it serves MCP`,
      );
  for (const [backend, user] of backends) {
    evidence.delete(backend);
    ctx.note(
      project.entry,
      project.services.get(backend)?.spec['build'] !== undefined
        ? `service ${backend} names MCP only in its name and the tag its build gets, is built from files that show no MCP SDK, and ${user} uses it: a backend of that server, not read as one; name it with --server if it serves MCP`
        : `service ${backend} names MCP only in its name and runs another product's image, which ${user} depends on: a backend of that server, not read as one; name it with --server if it serves MCP`,
    );
  }
  let servers = candidates.filter((c) => (wanted.length ? wanted.includes(c.s.name) : evidence.has(c.s.name)));
  if (!wanted.length)
    for (const [client, callee] of clients)
      ctx.note(
        project.entry,
        `service ${client} calls ${callee}'s MCP endpoint: a client of it (the MCP SDK in its build serves clients too), not read as a server; name it with --server if it serves MCP as well`,
      );
  // The only service counts in a file the caller names. Not in a walk, even built from the files:
  // a repository's lone self-built services are mostly something else (rgryta/homelab's qBittorrent,
  // instantdb's Clojure backend, trufnetwork's indexer), and a note says how to name one.
  const only = candidates.length === 1 ? candidates[0]! : null;
  if (!servers.length && !wanted.length && only && ctx.pointedAt(project.files)) {
    servers = candidates;
    evidence.set(candidates[0]!.s.name, 'the only long-running service that is neither a proxy nor a datastore, in a file named');
  }
  if (!servers.length) {
    ctx.note(
      project.entry,
      `no service of this Compose project is recognisably an MCP server (candidates: ${candidates.map((c) => c.s.name).join(', ') || 'none'}); name it with --server`,
    );
    return null;
  }
  return { svcs, proxies, servers, evidence };
}

/** What shows an image built here runs an MCP server: an MCP package it installs, or MCP as a word of its command. */
function imageRunsMcp(df: DockerfileInfo): string | null {
  // An SDK serves clients as well as servers (docker/mcp-gateway's examples/client installs `mcp[cli]`).
  const pkg = df.installs
    .flatMap((i) => i.packages ?? [])
    .find(
      (p) =>
        isMcpPackage(p) &&
        !/^((mcp|fastmcp|fastmcp-slim)(\[.*\])?|@modelcontextprotocol\/sdk)$/i.test(p) &&
        // A client library (gzhai5/partselect-chatbot's `langchain-mcp-adapters`, `mcp-use`, an `-mcp-client`).
        !/(^|[-_/])(adapters?|clients?|use)$|^mcp-use$/i.test(p),
    );
  if (pkg) return `installs ${pkg}`;
  const word = df.entrypoint.find(mcpWord);
  if (word) return `runs ${word}`;
  // The MCP Registry verifies an image by this label: it is that server's.
  const registered = registryName(df);
  return registered ? `carries the MCP Registry label for ${registered.name}` : null;
}
