// `collect`: the facts a set of files decides about the MCP deployments they describe. A pure
// function of the bytes and options: same input, same output, byte for byte (every list sorted,
// objects built in a fixed key order). Nothing the files name is run or fetched; the CLI reads
// the files from disk (src/cli/facts.ts), the MCP tool takes them from a client.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { Doctrine } from '../doctrine/types.js';
import { SignetError } from '../errors.js';
import { dockerfileFacts, privilegeDrop, supervisedRun } from './build-facts.js';
import { caddyFacts, caddyRoutes } from './caddy.js';
import { classify, looksBinary } from './classify.js';
import { clientDeployments } from './client/deployments.js';
import { composeDeployments } from './compose/facts.js';
import { loadCompose } from './compose/load.js';
import { type CollectOptions, Context } from './context.js';
import { scriptCommand, scriptEnv, scriptExecs } from './entrypoint-script.js';
import { bareBridge, imageBridge } from './image-bridge.js';
import { dirOf, Inputs, normalise, type TextFile } from './inputs.js';
import { kubernetesDeployments } from './kubernetes/facts.js';
import { kubernetesSets } from './kubernetes/sets.js';
import { configurations, type LocationCtx, proxiedLocations } from './nginx.js';
import { mcpRoutes, nginxFacts } from './nginx-facts.js';
import { contextOfDockerfile, isMcpPackage, mcpEvidenceOfBuild, npmDeclared, runsBinaryOnly } from './packages.js';
import { firstLine } from './parse-errors.js';
import { registryName, registryTransport } from './registry-server.js';
import { asksHelp, mcpWord, namesMcpHost, namesMcpRoute, namesMcpServer, repository, runsMcpClient, runsTests } from './roles.js';
import { legacySse, transportNamed } from './server-args.js';
import { FactSheet } from './sheet.js';
import { smitheryBuild, smitheryTransport } from './smithery.js';
import { startImage, startRelease } from './start-release.js';
import type { CollectedFile, CollectionNote, CollectionOut, FileKind, SkippedFile } from './types.js';
import { addressOf } from './upstream-address.js';
import { readYaml } from './yaml-lines.js';

export type { CollectOptions } from './context.js';

export interface InputFile {
  /** Relative to the collection root, POSIX or Windows separators. */
  path: string;
  bytes: Uint8Array;
}

/** Bounds on what one collection reads (the CLI and the MCP tool enforce them before reading more). */
export const LIMITS = { files: 2000, fileBytes: 2 * 1024 * 1024, totalBytes: 32 * 1024 * 1024, pathLength: 512 } as const;

export interface Options extends CollectOptions {
  /** Check facts against this doctrine's schema: unknown facts become `inexpressible`. */
  doctrine?: Doctrine;
  /** Files the reader left out (the CLI: too large, links out of the root), reported with the rest. */
  skipped?: SkippedFile[];
  /** Notes of the reader (the CLI: how kustomizations were rendered). */
  notes?: CollectionNote[];
}

export function collect(files: InputFile[], options: Options = {}): CollectionOut {
  if (files.length > LIMITS.files) throw new SignetError('input_too_large', `too many files: ${files.length} (at most ${LIMITS.files})`);
  const seen = new Set<string>();
  const collected: CollectedFile[] = [];
  const skipped: SkippedFile[] = [...(options.skipped ?? [])];
  const texts: TextFile[] = [];
  const kinds = new Map<string, FileKind>();
  let total = 0;
  const charts = helmCharts(files.map((f) => normalise(f.path)));
  for (const f of files) {
    const path = normalise(f.path);
    if (
      !path ||
      path.startsWith('../') ||
      path === '..' ||
      posix.isAbsolute(path) ||
      path.length > LIMITS.pathLength ||
      /^[A-Za-z]:/.test(path) ||
      /[\u0000-\u001f]/.test(path)
    )
      throw new SignetError(
        'invalid_arguments',
        `file path ${JSON.stringify(f.path.slice(0, 80))} must be relative, inside the root, at most ${LIMITS.pathLength} characters`,
      );
    if (seen.has(path)) throw new SignetError('invalid_arguments', `file ${path} is given twice`);
    seen.add(path);
    total += f.bytes.length;
    if (total > LIMITS.totalBytes) throw new SignetError('input_too_large', `the files exceed ${LIMITS.totalBytes} bytes in all`);
    const sha256 = `sha256:${createHash('sha256').update(f.bytes).digest('hex')}`;
    let kind: FileKind = 'other';
    if (f.bytes.length > LIMITS.fileBytes) skipped.push({ path, reason: `larger than ${LIMITS.fileBytes} bytes` });
    // Bun's binary lockfile: a build that copies it is held to it; its bytes are never read.
    else if (looksBinary(f.bytes) && posix.basename(path) === 'bun.lockb') {
      kind = 'bun_lockfile';
      texts.push({ path, text: '' });
    } else if (looksBinary(f.bytes)) skipped.push({ path, reason: 'binary (a NUL byte)' });
    else {
      let text: string | null = null;
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(f.bytes);
      } catch {
        skipped.push({ path, reason: 'not UTF-8 text' });
      }
      if (text !== null && (chartTemplate(charts, path) || helmActions(path, text))) {
        kind = 'helm_template';
        skipped.push({ path, reason: HELM_TEMPLATE });
      } else if (text !== null) {
        kind = classify(path, text);
        texts.push({ path, text });
      }
    }
    kinds.set(path, kind);
    collected.push({ path, kind, sha256 });
  }
  const ctx = new Context(new Inputs(texts), kinds, options);
  for (const n of options.notes ?? []) ctx.note(n.file, n.what);
  const sheets: FactSheet[] = [];
  const guard = (path: string, f: () => FactSheet[]) => {
    try {
      sheets.push(...f());
    } catch (err) {
      if (err instanceof SignetError && err.code === 'internal_error') throw err;
      // A file the collector cannot read is reported, never guessed around.
      skipped.push({
        path,
        reason: `could not be read as ${kinds.get(path) ?? 'a deployment file'}: ${firstLine(err)}`,
      });
    }
  };

  const usedDockerfiles = new Set<string>();
  for (const project of composeProjects(ctx, texts, kinds))
    guard(project[0]!, () => {
      const p = loadCompose(ctx.inputs, project, { env: options.env, profiles: options.profiles });
      return composeDeployments(ctx, p);
    });
  for (const set of kubernetesSets(ctx, texts, kinds, skipped))
    guard(set.root ?? set.objects[0]?.file ?? '', () => kubernetesDeployments(ctx, set));
  for (const f of texts.filter((t) => kinds.get(t.path) === 'mcp_client_config')) guard(f.path, () => clientDeployments(ctx, f));
  for (const s of sheets) for (const x of s.files()) if (kinds.get(x) === 'dockerfile') usedDockerfiles.add(x);
  for (const f of texts.filter((t) => kinds.get(t.path) === 'dockerfile' && !usedDockerfiles.has(t.path) && !ctx.claimed.has(t.path)))
    guard(f.path, () => imageOnly(ctx, f));
  // Proxy configurations no container of the files runs: a proxy on a host in front of an MCP route.
  const used = new Set([...sheets.flatMap((s) => [...s.files()]), ...ctx.claimed]);
  // A template for the nginx image's envsubst step (`proxy_pass http://1mcp:${ONE_MCP_PORT}`) that no
  // container mounts is an alternative for a proxy container, never a host's: no host nginx renders it.
  const imageTemplate = (t: TextFile) => /\.(template|tmpl)$/.test(t.path) && /\$\{[A-Z_][A-Z0-9_]*\}/.test(t.text);
  for (const t of texts.filter((x) => kinds.get(x.path) === 'nginx' && !used.has(x.path) && imageTemplate(x)))
    ctx.note(
      t.path,
      "an nginx image template (the image's envsubst step fills in its variables) that no container among the files mounts: not read",
    );
  // A configuration a Dockerfile among the files copies into its image (firecrawl/firecrawl-mcp-server's
  // docker/nginx.conf, beside the server in one container): that image's proxy, not a host's.
  const baked = new Map<string, string>();
  for (const t of texts.filter((x) => kinds.get(x.path) === 'dockerfile')) {
    // One that cannot be read was reported where it was read as an image (skipped, with why).
    let df: ReturnType<typeof ctx.dockerfile> = null;
    try {
      df = ctx.dockerfile(t.path);
    } catch {
      continue;
    }
    const dir = df ? contextOfDockerfile(ctx.inputs, t.path, df.copied) : '';
    for (const c of df?.copied ?? []) if (!/[*?[]/.test(c)) baked.set(normalise(posix.join(dir, c)), t.path);
  }
  for (const t of texts.filter((x) => ['nginx', 'caddyfile'].includes(kinds.get(x.path) ?? '') && !used.has(x.path) && baked.has(x.path)))
    ctx.note(
      t.path,
      `a proxy configuration ${baked.get(t.path)} copies into its image: that container's proxy, not one on a host; not read as a host's`,
    );
  const hostNginx = texts.filter((t) => kinds.get(t.path) === 'nginx' && !used.has(t.path) && !imageTemplate(t) && !baked.has(t.path));
  // A fragment two nginx.conf include is read with each: its route is one deployment, the first configuration's.
  for (const group of configurations(hostNginx))
    guard(group[0]!.path, () => hostProxies(ctx, group).filter((p) => !sheets.some((s) => s.name === p.name)));
  for (const f of texts.filter((t) => kinds.get(t.path) === 'caddyfile' && !used.has(t.path) && !baked.has(t.path)))
    guard(f.path, () => hostCaddy(f));

  const names = new Map<string, number>();
  const deployments = sheets
    .map((s) => {
      const n = names.get(s.name) ?? 0;
      names.set(s.name, n + 1);
      if (n) s.name = `${s.name}#${n + 1}`;
      return s;
    })
    .map((s) => s.finish(options.doctrine))
    .sort((a, b) => cmp(a.name, b.name));
  return {
    format: 'signet-facts/1',
    files: collected.sort((a, b) => cmp(a.path, b.path)),
    deployments,
    skipped: skipped.sort((a, b) => cmp(a.path, b.path) || cmp(a.reason, b.reason)),
    notes: dedupe(ctx.notes).sort((a, b) => cmp(a.file, b.file) || cmp(a.what, b.what)),
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const dedupe = <T>(xs: T[]) => [...new Map(xs.map((x) => [JSON.stringify(x), x])).values()];

const DEFAULT_COMPOSE = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];
const OVERRIDE = (n: string) => /^(docker-)?compose\.override\.ya?ml$/.test(n);

/** Compose projects: those named in options, each directory's default file with its override, the other files alone. */
function composeProjects(ctx: Context, texts: TextFile[], kinds: Map<string, FileKind>): string[][] {
  const projects: string[][] = (ctx.options.compose ?? []).map((group) => group.map(normalise));
  const taken = new Set(projects.flat());
  const composeFiles = texts.filter((t) => kinds.get(t.path) === 'compose').map((t) => t.path);
  // Files another file includes are part of that project; a file in an include cycle stays a
  // project of its own, so loading it reports the cycle (Compose refuses one) instead of nothing.
  const includes = new Map<string, string[]>();
  for (const p of composeFiles) {
    try {
      const top = readYaml(ctx.inputs.get(p)!.text, { composeTags: true })[0]?.value as Record<string, unknown> | undefined;
      for (const e of (Array.isArray(top?.['include']) ? top['include'] : []) as unknown[]) {
        const paths = typeof e === 'string' ? [e] : e && typeof e === 'object' ? [(e as Record<string, unknown>)['path']].flat() : [];
        for (const x of paths) if (typeof x === 'string') includes.set(p, [...(includes.get(p) ?? []), ctx.inputs.resolve(p, x)]);
      }
    } catch {
      /* reported when the project is loaded */
    }
  }
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    (includes.get(from) ?? []).some((x) => {
      if (x === to) return true;
      if (seen.has(x)) return false;
      seen.add(x);
      return reaches(x, to, seen);
    });
  for (const [p, xs] of includes) for (const x of xs) if (!reaches(x, p)) taken.add(x);
  const byDir = new Map<string, string[]>();
  for (const p of composeFiles) byDir.set(dirOf(p), [...(byDir.get(dirOf(p)) ?? []), p]);
  for (const [dir, ps] of [...byDir.entries()].sort((a, b) => cmp(a[0], b[0]))) {
    const def = DEFAULT_COMPOSE.map((n) => (dir ? `${dir}/${n}` : n)).find((p) => ps.includes(p) && !taken.has(p));
    if (def) {
      const override = ps.find((p) => OVERRIDE(posix.basename(p)) && !taken.has(p));
      projects.push(override ? [def, override] : [def]);
      taken.add(def);
      if (override) taken.add(override);
    }
    for (const p of ps.sort()) {
      if (taken.has(p)) continue;
      if (isOverlay(ctx, p)) {
        ctx.note(
          p,
          'a Compose file whose services have neither image nor build: an override, read only when named with its base (--compose base.yml,this.yml)',
        );
        continue;
      }
      projects.push([p]);
    }
  }
  return projects;
}

function isOverlay(ctx: Context, path: string): boolean {
  try {
    const top = readYaml(ctx.inputs.get(path)!.text, { composeTags: true })[0]?.value as Record<string, unknown> | undefined;
    const services = top?.['services'];
    if (!services || typeof services !== 'object') return false;
    return Object.values(services as Record<string, Record<string, unknown>>).some((s) => s && !s['image'] && !s['build'] && !s['extends']);
  } catch {
    return false;
  }
}

const HELM_TEMPLATE =
  "a Helm chart template (Helm's {{ .Values }}, or under a chart's templates/): not YAML until Helm renders it; check what `helm template RELEASE CHART > rendered.yaml` writes instead";

/** Directories holding a Helm chart (a `Chart.yaml`) among the inputs. */
function helmCharts(paths: string[]): string[] {
  return paths.filter((p) => posix.basename(p) === 'Chart.yaml').map((p) => posix.dirname(p));
}

/** A YAML or JSON file under a chart's `templates/` directory: Helm renders every one of them before Kubernetes reads it. */
function chartTemplate(charts: string[], path: string): boolean {
  if (!/\.(ya?ml|json)$/i.test(path)) return false;
  return charts.some((c) => path.startsWith(c === '.' ? 'templates/' : `${c}/templates/`));
}

/**
 * YAML that uses Helm's own objects (`{{ .Values.x }}`, `.Release`, `.Chart`, `.Capabilities`,
 * `.Template`) or `include`: a chart template copied out of its chart. Other Go templates in
 * YAML (an Alertmanager message's `{{ $labels.instance }}` in a ConfigMap) are data, not this.
 */
function helmActions(path: string, text: string): boolean {
  const ACTION = /\{\{-?\s*(?:[^}]*?[\s(|])?(?:\$?\.(?:Values|Release|Chart|Capabilities|Template)\b|include\s+")/;
  return (
    /\.ya?ml$/i.test(path) &&
    // A chart's values file is data: strings for the chart's own `tpl` (containers/kubernetes-mcp-server's
    // `port: "{{ .Values.service.port }}"`), no object of its own.
    /^(apiVersion|kind)\s*:/m.test(text) &&
    // A quoted checksum annotation alone, copied from a chart, is a string to `kubectl apply`
    // (rhel-lightspeed/linux-mcp-server's `checksum/config: "{{ include (print $.Template.BasePath …) … }}"`).
    text.split('\n').some((l) => ACTION.test(l) && !/^\s*checksum\/[\w.-]+:\s*(["'])\{\{[^\n]*\}\}\1\s*$/.test(l))
  );
}

/** nginx on a host: one deployment per server an MCP route (`/mcp`, `/sse`) forwards to. */
function hostProxies(ctx: Context, files: TextFile[]): FactSheet[] {
  const cfg = ctx.nginxConfig(files);
  const byTarget = new Map<string, LocationCtx[]>();
  const isMcpRoute = mcpRoutes(cfg);
  // A server whose name names MCP (`server_name mcp-qbit.example.com`) serves it on every route.
  const mcpServer = (l: LocationCtx) => (l.server.block ?? []).some((d) => d.name === 'server_name' && d.args.some(namesMcpHost));
  for (const l of proxiedLocations(cfg)) {
    const host = addressOf(l.proxyPass?.args[0] ?? '');
    // Or an upstream named for MCP (Cronus87/ProxmoxMCP-Production's `proxy_pass http://mcp-server:8080`, `upstream mcp_backend`).
    if (!isMcpRoute(l) && !mcpServer(l) && !mcpWord(host.split(':')[0] ?? '')) continue;
    if (host) byTarget.set(host, [...(byTarget.get(host) ?? []), l]);
  }
  return [...byTarget.entries()].map(([target, routes]) => {
    const l = routes[0]!;
    const sheet = new FactSheet(`proxy:${l.location!.at.file}:${target}`);
    sheet.set(
      'transport.kind',
      'http',
      l.location!.at,
      isMcpRoute(l) || mcpServer(l)
        ? `nginx forwards ${l.location!.args.join(' ')}${isMcpRoute(l) ? '' : ' of a server named for MCP'} to an MCP server`
        : `nginx forwards ${l.location!.args.join(' ')} to ${target}, an MCP server by its name`,
    );
    const sse = routes.find((r) => /sse/i.test(r.location!.args.join(' ')));
    if (sse) sheet.set('transport.legacy_sse', true, sse.location!.at, 'the proxied route is the /sse endpoint of the HTTP+SSE transport');
    nginxFacts(sheet, cfg, { targets: [target], platform: 'host', facesClients: true });
    mayBeBypassed(sheet, target);
    return sheet;
  });
}

/** Caddy on a host: one deployment per upstream an MCP route forwards to. */
function hostCaddy(f: TextFile): FactSheet[] {
  const out = new Map<string, FactSheet>();
  for (const r of caddyRoutes(f)) {
    const named = mcpWord(addressOf(r.upstream).split(':')[0] ?? '');
    if (!(namesMcpRoute(r.path) || r.mcpSite || named) || out.has(r.upstream)) continue;
    const sheet = new FactSheet(`proxy:${f.path}:${r.upstream}`);
    const what =
      namesMcpRoute(r.path) || r.mcpSite
        ? `${r.path.trim() || 'every path of a site named for MCP'} to an MCP server`
        : `${r.path.trim() || 'every path'} to ${r.upstream}, an MCP server by its name`;
    sheet.set('transport.kind', 'http', r.at, `Caddy forwards ${what}`);
    if (/sse/i.test(r.path))
      sheet.set('transport.legacy_sse', true, r.at, 'the proxied route is the /sse endpoint of the HTTP+SSE transport');
    caddyFacts(sheet, f, { targets: [addressOf(r.upstream)], platform: 'host', facesClients: true });
    mayBeBypassed(sheet, r.upstream);
    out.set(r.upstream, sheet);
  }
  return [...out.values()];
}

/**
 * A proxy on a host shows that it forwards to the server, not that clients cannot reach the
 * server's port past it: the server's listen address and the host's firewall are not in its
 * file (trufnetwork's own compose publishes the port its Caddyfile and nginx example forward to).
 */
function mayBeBypassed(sheet: FactSheet, target: string): void {
  const why = `the proxy forwards to ${target}; whether clients can also reach that port past the proxy (the server's listen address, a published port, the host's firewall) is not in its configuration`;
  if (sheet.get('exposure.behind_reverse_proxy') === true) sheet.reopen('exposure.behind_reverse_proxy', why);
  if (sheet.get('tls.enabled') === true) sheet.reopen('tls.enabled', `every listener of the proxy has TLS, but ${why}`);
}

/** A Dockerfile no compose service or workload runs: the image it builds, when it is an MCP server's. */
function imageOnly(ctx: Context, f: TextFile): FactSheet[] {
  const df = ctx.dockerfile(f.path)!;
  const dir = contextOfDockerfile(ctx.inputs, f.path, df.copied);
  const mcp = mcpEvidenceOfBuild(ctx.inputs, dir, df.copied, runsBinaryOnly(df, ctx.inputs));
  // So too a command its launcher script hands over to (Altinity/altinity-mcp's `exec /bin/altinity-mcp "$@"`).
  const named = mcpWord(f.path) || df.entrypoint.some(mcpWord) || scriptExecs(df, ctx.inputs, dir).some((w) => w.some(mcpWord));
  // `npm install -g supergateway`: the image installs an MCP server or bridge from a registry.
  const installed = df.installs.flatMap((i) => (i.packages ?? []).filter(isMcpPackage).map((name) => ({ name, at: i.at })))[0];
  // `COPY --from=docker/mcp-gateway /docker-mcp /`: the server's binary out of its published image.
  const copiedFrom = df.copiedImages.find((c) => isMcpPackage(repository(c.image)))?.image;
  // A smithery.yaml that builds it, or the MCP Registry's label: the image is published as an MCP server.
  const published = smitheryBuild(ctx.inputs, f.path) !== null || registryName(df) !== null;
  // `git clone https://github.com/polygon-io/mcp_polygon.git` (stefanosimontacchi/Polygon-mcp-cloudrun):
  // the build fetches an MCP server's repository, named for MCP, and builds it.
  // A comment line that names one (`# git clone …` in instructions) builds nothing.
  const cloned = [...f.text.replace(/^\s*#.*$/gm, '').matchAll(/\bgit\s+clone\b[^\n&;|]*?\s((?:https?|git|ssh):\/\/\S+|git@\S+)/g)]
    .map((m) => m[1]!.replace(/["']/g, ''))
    .find((u) => namesMcpServer((u.split(/[/:]/).pop() ?? '').replace(/\.git$/, '')));
  if (!mcp && !named && !installed && !copiedFrom && !published && !cloned) return [];
  // Started with a server's MCP URL to call (freemangh/mcp-demo-server's testclient images:
  // `CMD ["-i", "-url", "http://localhost:8080/mcp"]`): a client of that server, not one itself.
  // Or any URL given to a flag named for it (pgEdge/pgedge-postgres-mcp's CLI: `-mcp-url http://postgres-mcp:8080`).
  const MCP_URL_FLAG = /^--?(mcp[-_]?(server[-_]?)?(url|endpoint))(=|$)/i;
  const calls =
    df.entrypoint.find((w) => /^https?:\/\/[^/\s]+\/(mcp|sse)\/?$/.test(w)) ??
    df.entrypoint
      .map((w, i) => (MCP_URL_FLAG.test(w) ? (w.includes('=') ? w.slice(w.indexOf('=') + 1) : df.entrypoint[i + 1]) : undefined))
      .find((u): u is string => u !== undefined && /^https?:\/\//.test(u));
  if (calls) {
    ctx.note(f.path, `the image is started with the MCP endpoint ${calls} to call: a client of that server, and no deployment of its own`);
    return [];
  }
  // mcp-use/mcp-use's inspector image (`npx @mcp-use/inspector --port …`): the MCP Inspector, a client.
  if (runsMcpClient(null, df.entrypoint)) {
    ctx.note(f.path, `the image runs an MCP client (${df.entrypoint.join(' ')}): no server, and no deployment of its own`);
    return [];
  }
  // `FROM scratch` with neither ENTRYPOINT nor CMD cannot start as a container: it carries an
  // artifact (higress-group/higress's Wasm and Go filter plugins) for another program to load.
  if (df.scratch && !df.entrypoint.length) {
    ctx.note(
      f.path,
      'an image FROM scratch with no ENTRYPOINT or CMD: it cannot run as a container, only carry files (a plugin) for another program, and it is no deployment',
    );
    return [];
  }
  // An image that runs its tests (`CMD ["mvn", "clean", "test"]`, datacline/secure-mcp-gateway's
  // Dockerfile.test) or only a shell (`CMD ["bash"]`, sitbon/magg's user stage) starts no server.
  const words = df.entrypoint.map((w) => w.split('/').pop()!);
  const runsTestsNow = runsTests(df.entrypoint) !== null || runsTests(words) !== null;
  const shellOnly = words.length === 1 && /^(ba|z|da|)sh$/.test(words[0]!);
  // A CMD of its own only: after an ENTRYPOINT, `CMD ["--help"]` is the default a run replaces
  // (supercorp-ai/supergateway's base image: `ENTRYPOINT ["supergateway"]`, `CMD ["--help"]`).
  const help = !df.entrypointOnly.length && asksHelp(df.entrypoint);
  if (runsTestsNow || shellOnly || help) {
    ctx.note(
      f.path,
      `the image starts ${runsTestsNow ? 'its tests' : help ? 'a program that prints its help' : 'a shell'} (${df.entrypoint.join(' ')}), not a server: no deployment of its own`,
    );
    return [];
  }
  const sheet = new FactSheet(`image:${f.path}`);
  const at = df.base?.at ?? { file: f.path, line: 1 };
  if (mcp) sheet.set('container.used', true, at, `an image of an MCP server (${mcp.name})`);
  else if (installed) sheet.set('container.used', true, installed.at, `the image installs an MCP package (${installed.name})`);
  else if (copiedFrom) sheet.set('container.used', true, at, `the image copies from the MCP image ${copiedFrom}`);
  else if (cloned) sheet.set('container.used', true, at, `the build clones the MCP server's repository ${cloned}`);
  else sheet.set('container.used', true, at, 'an image whose command, or the script it starts, names MCP');
  dockerfileFacts(sheet, df, ctx.inputs, dir, at);
  const script = scriptCommand(df, ctx.inputs, dir);
  privilegeDrop(sheet, script);
  supervisedRun(sheet, script?.words ?? df.entrypoint);
  if (df.commandAt)
    startRelease(
      sheet,
      script?.words ?? df.entrypoint,
      script?.at ?? df.commandAt,
      script ? 'its entrypoint script' : 'the image',
      startImage(df, null, npmDeclared(ctx.inputs, dir, df.copied)),
    );
  // What the image runs when started as it is (`docker run IMAGE`): a transport its command names
  // (aRustyDev/zettelkasten-mcp's `CMD ["--transport", "http"]`), or its entrypoint script's.
  if (imageBridge(sheet, df)) {
    if (!sheet.looked('container.healthcheck'))
      sheet.undecided('container.healthcheck', 'how the image is run (compose, Kubernetes) decides its health checks');
    return [sheet];
  }
  const ownCommand = transportNamed(df.entrypoint, scriptEnv(df.env, script));
  const transport = ownCommand ?? (script && !script.branch ? transportNamed(script.words, scriptEnv(new Map(), script)) : null);
  const transportAt = transport?.variable
    ? (script?.env.get(transport.variable)?.at ?? df.envAt.get(transport.variable) ?? df.commandAt)
    : ownCommand
      ? df.commandAt
      : (script?.at ?? null);
  if (transport && transportAt) {
    sheet.set('transport.kind', transport.kind, transportAt, `${transport.why}, as the image starts`);
    if (transport.sse) sheet.set('transport.legacy_sse', true, transportAt, `${transport.why}: the deprecated HTTP+SSE transport`);
    if (df.commandAt) legacySse(sheet, df.commandAt, df.entrypoint);
    if (script && !script.branch && !sheet.has('transport.legacy_sse')) legacySse(sheet, script.at, script.words);
  }
  // The project's smithery.yaml says how its image is started, where the image's own command does not;
  // so does the MCP Registry's server.json of the name the image's label gives it. A bare bridge's does.
  const bridged = !sheet.has('transport.kind') && bareBridge(sheet, df);
  const smithery = sheet.has('transport.kind') || bridged ? null : smitheryTransport(ctx.inputs, f.path);
  if (smithery) sheet.set('transport.kind', smithery.kind, smithery.at, smithery.why);
  const registry = sheet.has('transport.kind') || bridged ? null : registryTransport(ctx.inputs, df);
  if (registry) {
    sheet.set('transport.kind', registry.kind, registry.at, registry.why);
    if (registry.sse) sheet.set('transport.legacy_sse', true, registry.at, `${registry.why}: the deprecated HTTP+SSE transport`);
  }
  if (!sheet.looked('container.healthcheck'))
    sheet.undecided('container.healthcheck', 'how the image is run (compose, Kubernetes) decides its health checks');
  if (!sheet.looked('transport.kind'))
    sheet.undecided(
      'transport.kind',
      'what the image starts names no transport, nor does a smithery.yaml or server.json: whether it serves the network is in its code, and how it is run (a port published, a proxy) shows it',
    );
  return [sheet];
}
