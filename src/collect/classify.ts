// What each file is, from its name first and its content where names are ambiguous (a
// `*.yaml` may be Compose, Kubernetes or neither; a `*.conf` may be nginx or anything).
import { posix } from 'node:path';
import type { FileKind } from './types.js';

const CLIENT_NAMES = new Set([
  'claude_desktop_config.json',
  '.mcp.json',
  'mcp.json',
  'mcp_config.json',
  'cline_mcp_settings.json',
  '.claude.json',
]);

export function classify(path: string, text: string): FileKind {
  const base = posix.basename(path);
  const lower = base.toLowerCase();
  if (isDockerfileName(lower)) return 'dockerfile';
  if (lower === '.env' || lower.endsWith('.env') || lower.startsWith('.env.')) return 'dotenv';
  if (lower === 'kustomization.yaml' || lower === 'kustomization.yml' || base === 'Kustomization') return 'kustomization';
  if (lower === 'caddyfile' || lower.endsWith('.caddyfile') || lower.startsWith('caddyfile.')) return 'caddyfile';
  if (lower === 'package.json') return 'npm_manifest';
  if (lower === 'package-lock.json' || lower === 'npm-shrinkwrap.json') return 'npm_lockfile';
  if (lower === 'pnpm-lock.yaml') return 'pnpm_lockfile';
  if (lower === 'yarn.lock') return 'yarn_lockfile';
  if (lower === 'pyproject.toml' || /^requirements.*\.(txt|in)$/.test(lower)) return 'python_manifest';
  if (lower === 'uv.lock' || lower === 'poetry.lock' || lower === 'pylock.toml') return 'python_lockfile';
  if (lower === 'go.mod') return 'go_module';
  if (lower === 'go.sum') return 'go_sum';
  if (base === 'Cargo.toml') return 'cargo_manifest';
  if (base === 'Cargo.lock') return 'cargo_lockfile';
  if (lower === 'bun.lock') return 'bun_lockfile';
  // Codex's config.toml, and profiles of it under other names (influxdata/influxdb3_mcp_server's codex/*.config.toml).
  if (lower.endsWith('.toml') && /^\s*\[mcp_servers\./m.test(text)) return 'mcp_client_config';
  // GitHub Copilot's custom agents (`.github/agents/*.agent.md`): servers in the YAML front matter.
  if (lower.endsWith('.agent.md')) return /^mcp-servers\s*:/m.test(frontMatter(text)) ? 'mcp_client_config' : 'other';
  if (lower.endsWith('.json') || lower.endsWith('.jsonc')) {
    // `kubectl get -o json` and `kubectl create --dry-run=client -o json`: an object or a List.
    if (lower.endsWith('.json') && isKubernetesJson(text)) return 'kubernetes';
    // A JSON Schema of a configuration (lastmile-ai/mcp-agent's mcp-agent.config.schema.json) describes servers, lists none.
    if (isJsonSchema(text)) return 'other';
    // An MCP Bundle's manifest (Claude Desktop's extensions, formerly DXT): how the client launches its one server.
    if (/"mcp_config"\s*:\s*\{/.test(text) && /"(manifest_version|dxt_version)"\s*:/.test(text)) return 'mcp_client_config';
    // OpenCode's opencode.json(c): its servers under `mcp`.
    // Under any name when its `$schema` is OpenCode's.
    if (
      (/^opencode\.jsonc?$/.test(lower) || /"\$schema"\s*:\s*"https?:\/\/opencode\.ai\/config\.json"/.test(text)) &&
      /"mcp"\s*:\s*\{/.test(text)
    )
      return 'mcp_client_config';
    // The servers are an object keyed by name (an OpenAPI document's `servers` is a list).
    // A client's own file name with no server key in it is something else (wandb's `.badges/mcp.json`, a badge;
    // getsentry/sentry-mcp's OpenTelemetry conventions in `mcp.json`).
    if ((CLIENT_NAMES.has(lower) && !namesNoServer(text)) || /"(mcpServers|context_servers)"\s*:\s*\{/.test(text))
      return 'mcp_client_config';
    // VS Code's `servers` (mcp.json, or `mcp.servers` in settings.json): a word too common to
    // decide alone, so only in a file whose name says MCP or an editor's settings.json.
    if ((lower.includes('mcp') || lower === 'settings.json') && /"servers"\s*:\s*\{/.test(text) && /"(command|url|type)"\s*:/.test(text))
      return 'mcp_client_config';
    return 'other';
  }
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) {
    // Continue's configuration and blocks: a list of MCP servers at the top; LibreChat's
    // librechat.yaml and other clients' YAML: servers keyed by name under `mcpServers:`.
    if (/^mcpServers\s*:\s*(#.*)?\n\s*-/m.test(text)) return 'mcp_client_config';
    if (/^(mcpServers|mcp_servers)\s*:\s*(#.*)?\n(\s*(#.*)?\n)*\s+[\w.@-]+\s*:/m.test(text) && /^\s+(command|url)\s*:/m.test(text))
      return 'mcp_client_config';
    // mcp-agent's and fast-agent's: servers by name under `mcp: servers:`.
    if (hasChild(text, 'mcp', 'servers')) return 'mcp_client_config';
    // Goose's config.yaml: extensions that are MCP servers (stdio, sse, streamable_http).
    if (/^extensions\s*:/m.test(text) && /^\s+type\s*:\s*["']?(stdio|sse|streamable_http)\b/m.test(text) && /^\s+(cmd|uri)\s*:/m.test(text))
      return 'mcp_client_config';
    if (
      // A chart's values file (`values.yaml`, `values-prod.yaml`, `ci/x-values.yaml`) is Helm's data, whatever keys it holds.
      !/^values([.-][\w.-]+)?\.ya?ml$|[.-]values\.ya?ml$/.test(lower) &&
      // Compose's include is a list; Dart's analysis_options.yaml writes `include: package:lints/recommended.yaml`.
      (/^services\s*:/m.test(text) || /^include\s*:\s*(\[|(#.*)?\n(\s*(#.*)?\n)*\s*-)/m.test(text)) &&
      !/^kind\s*:/m.test(text) &&
      !OTHER_SERVICES.test(lower) &&
      !/^services\s*:\s*\n\s*-/m.test(text) &&
      // A map of strings is no Compose services' (lazygit's `services: {"git.example.com": "github:…"}`): each service is a mapping.
      !/^services\s*:\s*(#.*)?\n(\s*(#.*)?\n)*\s+("[^"]*"|'[^']*'|[^\s:#]+)\s*:[ \t]+["']?[^\s{&!|>#"'][^\n]*$/m.test(text)
    )
      return 'compose';
    if (/^kind\s*:/m.test(text) && /^apiVersion\s*:/m.test(text)) {
      if (/^(entryPoints|http|tcp|providers)\s*:/m.test(text)) return 'traefik';
      return 'kubernetes';
    }
    if (
      /^entryPoints\s*:/m.test(text) ||
      traefikProviders(text) ||
      (/^http\s*:/m.test(text) && /^\s+(routers|middlewares)\s*:/m.test(text))
    )
      return 'traefik';
    return 'other';
  }
  // Cargo's `.cargo/config.toml` has an `[http]` table of its own (seanchatmangpt/erlmcp): Traefik's has routers or services under it.
  if (
    lower.endsWith('.toml') &&
    // `[providers.docker]`, not fnox's or Walker's `[providers.X]` of their own (1natsu172/dotfiles).
    (/^\[(entryPoints|http\.routers|http\.services|http\.middlewares)/m.test(text) ||
      [...text.matchAll(/^\[providers\.([\w-]+)/gm)].some((m) => TRAEFIK_PROVIDERS.has(m[1]!)) ||
      (/^\[http\]/m.test(text) && /^\s*\[http\.(routers|services|middlewares)\b/m.test(text)))
  )
    return 'traefik';
  if (isNginx(lower, text)) return 'nginx';
  return 'other';
}

/**
 * Traefik's static `providers:` names its providers (docker, file, kubernetesCRD, ...); Grafana's
 * provisioning files have a `providers:` list and an OAuth configuration a map of identity
 * providers (agentic-community/mcp-gateway-registry's oauth2_providers.yml), neither Traefik's.
 */
function traefikProviders(text: string): boolean {
  const m = /^providers\s*:[^\S\n]*(#.*)?\n((?:[^\S\n]*(?:#.*)?\n)*)([^\S\n]+)([\w-]+)\s*:/m.exec(text);
  return m !== null && TRAEFIK_PROVIDERS.has(m[4]!);
}
const TRAEFIK_PROVIDERS = new Set([
  'docker',
  'swarm',
  'file',
  'kubernetesCRD',
  'kubernetesIngress',
  'kubernetesGateway',
  'kubernetesIngressNGINX',
  'consulCatalog',
  'consul',
  'etcd',
  'redis',
  'zooKeeper',
  'http',
  'ecs',
  'nomad',
  'rest',
  'plugin',
  'providersThrottleDuration',
]);

/**
 * Files with a top-level `services:` that are no Compose file: the Azure Developer CLI's
 * azure.yaml (Azure-Samples/mcp-container-ts), Render's render.yaml; a `services:` list
 * (GitLab CI's) is not Compose's map either.
 */
const OTHER_SERVICES = /^(azure\.ya?ml|render\.ya?ml|\.gitlab-ci\.ya?ml|bitbucket-pipelines\.ya?ml)$/;

/** `Dockerfile`, `Dockerfile.dev`, `Dockerfile-8000` (elastic/mcp-server-elasticsearch), `dev.Dockerfile`, `Containerfile`. */
export function isDockerfileName(lower: string): boolean {
  for (const stem of ['dockerfile', 'containerfile']) {
    if (lower === stem || lower.endsWith(`.${stem}`) || lower.startsWith(`${stem}.`)) return !NOT_DOCKERFILE.test(lower);
    if (lower.startsWith(`${stem}-`) || lower.startsWith(`${stem}_`)) return !NOT_DOCKERFILE.test(lower);
  }
  return false;
}
/**
 * Files named after a Dockerfile that are about one: `Dockerfile.md`, `dockerfile-lint.json`,
 * `Dockerfile.dockerignore`; and templates that become one when a tool fills them in
 * (kagent-dev/kagent's `Dockerfile.tmpl`, Jinja's `Dockerfile.j2`): no Dockerfile yet.
 */
// An editor's grammar for the format (continuedev/continue's `Dockerfile.tmLanguage`) is none either.
const NOT_DOCKERFILE =
  /\.(md|txt|json|ya?ml|toml|sh|py|js|ts|dockerignore|lock|tmpl|tpl|j2|jinja2?|mustache|hbs|erb|template|tmlanguage|sublime-syntax|plist|xml|vim|el|ps1|bat)$/;

/**
 * A JSON Schema document: `$schema` naming a json-schema.org draft at its top level, with a schema's
 * own keywords. A configuration that names a draft as its `$schema` (Deivisan/Contexto-Pleno's
 * kiro-mcp-docker.json, servers under `mcpServers`) is still a configuration.
 */
function isJsonSchema(text: string): boolean {
  if (!/"\$schema"\s*:\s*"https?:\/\/json-schema\.org\//.test(text)) return false;
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    if (!/^https?:\/\/json-schema\.org\//.test(String(o['$schema']))) return false;
    const describes = ['type', 'properties', '$defs', 'definitions', 'allOf', 'anyOf', 'oneOf', '$ref'].some((k) => k in o);
    return describes && !('mcpServers' in o) && !('context_servers' in o);
  } catch {
    return false;
  }
}

function isKubernetesJson(text: string): boolean {
  if (!/"apiVersion"\s*:/.test(text) || !/"kind"\s*:/.test(text)) return false;
  try {
    const v = JSON.parse(text) as unknown;
    return (
      v !== null &&
      typeof v === 'object' &&
      typeof (v as Record<string, unknown>)['apiVersion'] === 'string' &&
      typeof (v as Record<string, unknown>)['kind'] === 'string'
    );
  } catch {
    return false;
  }
}

function isNginx(lower: string, text: string): boolean {
  if (/^# configuration file \S+:$/m.test(text) || /^nginx: the configuration file/m.test(text)) return true;
  // nginx.conf, site.conf, *.conf.template, and the copies projects ship as nginx.conf.example.
  const named = /\.conf(\.(template|example|sample|tmpl))?$/.test(lower) || lower.endsWith('.nginx') || lower.includes('nginx');
  if (!named) return false;
  // nginx's own blocks decide it, whatever a directive continued over lines looks like
  // (IBM/mcp-context-forge's `proxy_cache_path …` with `levels=1:2` on the next line).
  if (/^\s*(http|events|stream|server|upstream\s+[\w.-]+)\s*\{/m.test(text) && /^\s*(server|http)\s*\{/m.test(text)) return true;
  // Blocks, or snippets of directives nginx includes (`name args;` lines), not INI-style files.
  if (/^\s*\[[^\]]+\]\s*$/m.test(text) || /^\s*[\w.-]+\s*=\s*[^\s{][^{]*$/m.test(text)) return false;
  return (
    /^\s*(server|http|upstream|location\s+[^{]+|events|map\s+\S+\s+\S+|if\s*\(.*\))\s*\{/m.test(text) ||
    /^\s*[a-z][a-z0-9_]*\s+[^\n;{]*;\s*(#.*)?$/m.test(text)
  );
}

/** Binary content: a NUL byte in the first 8 KiB, as git and grep decide it. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * A Markdown file's YAML front matter, between its opening `---` line and the next, with the
 * opening line left blank so YAML's line numbers are the file's; empty when it has none.
 */
export function frontMatter(text: string): string {
  // CRLF files too: a `\r` left after a quoted value ends no YAML line.
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines[0]?.trim() !== '---') return '';
  const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l));
  return end < 0 ? '' : ['', ...lines.slice(1, end)].join('\n');
}

/**
 * A file with a client's name that is JSON naming no server: no `command`, `url` or server key
 * (wandb's `.badges/mcp.json`, a badge; getsentry/sentry-mcp's OpenTelemetry conventions). One that
 * is no JSON is still read as a client's file, so its parse error is reported.
 */
function namesNoServer(text: string): boolean {
  if (/"(mcpServers|servers|inputs|context_servers|projects|command|url|serverUrl|httpUrl|baseUrl)"\s*:/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a YAML text has the top-level mapping `parent` with `child` among its own keys, after
 * any others (fast-agent's template writes `mcp:` with `targets:` before `servers:`).
 */
function hasChild(text: string, parent: string, child: string): boolean {
  const rows = text.split(/\r?\n/);
  const start = rows.findIndex((r) => new RegExp(`^${parent}\\s*:\\s*(#.*)?$`).test(r));
  if (start < 0) return false;
  const block: string[] = [];
  for (const r of rows.slice(start + 1)) {
    if (/^\S/.test(r) && !r.startsWith('#')) break;
    if (r.trim() !== '' && !r.trim().startsWith('#')) block.push(r);
  }
  const indent = Math.min(...block.map((r) => r.length - r.trimStart().length));
  return block.some((r) => r.length - r.trimStart().length === indent && new RegExp(`^\\s*${child}\\s*:`).test(r));
}
