// What a container is: by its image's repository name, a reverse proxy, a datastore, or neither
// (names only, no registry lookups: `nginx:1.27`, `docker.io/library/nginx`, `ghcr.io/x/nginx-foo`);
// by its command, a test run, a certificate maker, an idle container or a client, never a server.
import { commandsOf, shellScript, unwrap, wordsOfLine } from './shell.js';

const PROXIES: [RegExp, string][] = [
  // Red Hat's `ubi9/nginx-124` (pgEdge/pgedge-postgres-mcp's Dockerfile.web) names its version in the repository.
  [/(^|\/)(nginx|nginx-unprivileged|openresty|nginx-\d+)$/, 'nginx'],
  [/(^|\/)caddy$/, 'caddy'],
  [/(^|\/)traefik$/, 'traefik'],
  [/(^|\/)envoy(proxy)?$|envoyproxy\/envoy/, 'envoy'],
  [/(^|\/)haproxy$/, 'haproxy'],
  [/(^|\/)oauth2-proxy$/, 'oauth2-proxy'],
  [/(^|\/)(kong|apache\/apisix|httpd)$/, 'other'],
];
const TUNNELS = /(^|\/)(cloudflared|ngrok|tailscale)$/;
const DATASTORE_NAMES =
  'redis|valkey|postgres|postgresql|pgvector|mysql|mariadb|mongo|mongodb|memcached|elasticsearch|opensearch|qdrant|chroma|chromadb|weaviate|milvus|rabbitmq|minio|neo4j|clickhouse-server|keycloak|dex|authelia|zitadel|hydra|kratos|etcd|nats|kafka|zookeeper|ollama|prometheus|grafana|jaeger|loki|alertmanager|thanos|vault';
const DATASTORES = new RegExp(`(^|\\/)(${DATASTORE_NAMES}|otel\\/opentelemetry-collector)$`);
/**
 * A project's own build of one, named with its prefix (seanchatmangpt/erlmcp's `erlmcp-redis`,
 * `erlmcp-prometheus`); with `mcp` a word of the prefix it is an MCP server for the product (`mcp-redis`, `mcp-server-qdrant`).
 */
const PREFIXED_DATASTORE = new RegExp(`^(.+)[-_](${DATASTORE_NAMES})$`);

/**
 * A container that runs an MCP server's authenticator beside its proxy (`signet auth-check`, which
 * nginx asks about every credential): part of the proxy, never the server itself, though the
 * proxy names it.
 */
export function runsAuthenticator(...commands: unknown[]): boolean {
  return commands.some((c) => Array.isArray(c) && c.some((w) => w === 'auth-check' || w === 'token-verifier'));
}

/** A test runner, as the command a container keeps running: it runs the tests and exits. */
const TEST_RUNNER =
  /^((npm|yarn|pnpm|bun)( (--filter|-F|-w|--workspace|workspace) \S+| -r| --recursive)?( run| run-script)? (test|t)([:-][\w:-]*)?|(mvn|(\.\/)?mvnw)( \S+)* (test|verify)|(gradle|(\.\/)?gradlew)( \S+)* (test|check)|dotnet test|(uv|poetry|pipenv|hatch) run (pytest|tox)|(python3?|py) -m (pytest|unittest)|pytest|tox|nox|jest|vitest|(npx|bunx|pnpx)( -y| --yes)? (jest|vitest|playwright test|mocha)|mocha|go test|cargo (test|nextest)|make (test|check))( |$)/;

/**
 * The test run a container's command ends in, or null: `npm test`, `pnpm --filter @inkeep/agents-manage-ui
 * test` in a `bash -lc` script (inkeep/agents' Dockerfile.manage-ui-test), `mvn clean test`, `pytest`.
 */
export function runsTests(...commands: unknown[]): string | null {
  return testRun(runningCommands(commands));
}

const testRun = (running: string[][]): string | null => {
  const last = running.at(-1)?.join(' ') ?? '';
  return TEST_RUNNER.test(last) ? last : null;
};

/** The commands of what a container runs, a `sh -c` script's own; loop words (`while true`, `done`) left out. */
function runningCommands(commands: unknown[]): string[][] {
  const parts = commands.filter((c) => c !== undefined && c !== null);
  if (!parts.length) return [];
  const words = parts.flatMap((c) => (Array.isArray(c) ? c.map(String) : typeof c === 'string' ? wordsOfLine(c) : []));
  const script = shellScript(words);
  const line = script ?? words.map((w) => (/\s/.test(w) ? `'${w}'` : w)).join(' ');
  // A loop's own words (`while true`, `done`) keep nothing running: the command inside does.
  return commandsOf(line)
    .map(unwrap)
    .filter((c) => c.length && !['done', 'fi', 'true', ':', 'wait'].includes(c.join(' ')));
}

/**
 * A service that runs tests or makes certificates: no server, whatever its build holds
 * (1AQuantum/websee-mcp-server's `command: npm test` and `npm run test:watch`,
 * ADORSYS-GIS/lightbridge-authz's authz-tls, an alpine script of `openssl req` that writes
 * `mcp.key`). The command that stays running decides, the last of the line: `npm test && node
 * dist/index.js` serves.
 */
export function runsNoServer(...commands: unknown[]): string | null {
  const running = runningCommands(commands);
  const tests = testRun(running);
  if (tests) return `it runs tests (${tests})`;
  // Certificates made, then file modes set: the last command starts no program that serves.
  const makes = running.find((c) => (c[0] === 'openssl' && /^(req|x509|genrsa|genpkey|ecparam)$/.test(c[1] ?? '')) || c[0] === 'mkcert');
  if (makes && /^(chmod|chown|cp|mv|rm|echo|printf|ls|cat|openssl|mkcert|touch|mkdir|exit|fi|done)$/.test(running.at(-1)?.[0] ?? ''))
    return `it makes certificates (${makes.slice(0, 2).join(' ')}) and serves nothing`;
  return null;
}

/** A command that prints its help or version and exits (Dezocode/mcp-system's `CMD ["mcp-universal", "--help"]`). */
export const asksHelp = (words: string[]): boolean => words.length >= 2 && /^(--help|-h|--version|-V|help|version)$/.test(words.at(-1)!);

/**
 * A container kept idle (`tail -f /dev/null`, 1trippycat/courtlistener-mcp's `while true; do sleep 30;
 * done`): a server runs in it only when started there, as a client's `docker exec -i NAME server`
 * does (Hawaiideveloper/mcp-kubernetes-platform-engineer's), so its own command says no transport.
 */
export function idles(...commands: unknown[]): string | null {
  const last = runningCommands(commands).at(-1)?.join(' ') ?? '';
  return /^(sleep( \S+)?|tail -f \/dev\/null)$/.test(last) ? last : null;
}

/**
 * An MCP client run as a service: the MCP Inspector (its npm package or image) connects to servers
 * and serves a debugging UI and proxy, it serves no MCP endpoint of its own; a socat stdio adapter
 * carries a client's stdio to a server's port.
 */
export function runsMcpClient(image: string | null, ...commands: unknown[]): boolean {
  if (image && /(^|\/)mcp\/inspector(:|@|$)/.test(image)) return true;
  const words = commands.flat(2).filter((c): c is string => typeof c === 'string');
  // `socat STDIO TCP:localhost:8811` (ofayese/mcp): a client's stdio adapter to a server's port, no server.
  if (/(^|\s)socat\s+(STDIO|-)\s+TCP4?6?:/i.test(words.join(' '))) return true;
  // The same adapter as an image whose entrypoint is socat (ofayese/mcp's alpine/socat with
  // `command: STDIO TCP:localhost:8811`).
  if (image && /(^|\/)socat$/.test(repository(image)) && /^\s*(STDIO|-)\s+TCP4?6?:/i.test(words.join(' '))) return true;
  // The MCP Inspector, the SDK team's or mcp-use's: a client that debugs servers.
  return words.some((c) => /@(modelcontextprotocol|mcp-use)\/inspector\b/.test(c));
}

/** The repository part of an image reference: no registry port confusion, no tag, no digest. */
export function repository(image: string): string {
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return (colon > slash ? noDigest.slice(0, colon) : noDigest).toLowerCase();
}

/** `files`: an nginx that only serves files (a web UI's build, `try_files`, no `proxy_pass`): neither a proxy nor a server. */
export type Role = { kind: 'proxy'; product: string } | { kind: 'tunnel' } | { kind: 'datastore' } | { kind: 'files' } | null;

/** An nginx configuration that hands requests on: a `*_pass` upstream, or njs code that may. */
export const FORWARDS = /(^|[\s;{])((proxy|grpc|fastcgi|uwsgi|scgi|memcached)_pass|js_content)\s/m;

export function imageRole(image: string): Role {
  const repo = repository(image);
  // Docker's MCP catalog (`mcp/grafana`, `mcp/postgres`, `mcp/redis`): MCP servers for those products, not the products.
  if (/(^|\/)mcp\/[^/]+$/.test(repo)) return null;
  for (const [re, product] of PROXIES) if (re.test(repo)) return { kind: 'proxy', product };
  if (TUNNELS.test(repo)) return { kind: 'tunnel' };
  if (DATASTORES.test(repo)) return { kind: 'datastore' };
  const prefixed = PREFIXED_DATASTORE.exec(repo.split('/').pop() ?? '');
  if (prefixed && !/(^|[-_])mcp([-_]|$)/i.test(prefixed[1]!)) return { kind: 'datastore' };
  return null;
}

/**
 * What a container built from a Dockerfile among the files is: its base image's role (FROM
 * nginx), else a proxy its build installs from the distribution's packages, else what the name
 * the build is tagged with says. The tag is the weakest: `mcpgateway/nginx-cache` names no role.
 */
export function builtRole(base: string | null, installedProxy: string | null, tag: string | null): Role {
  return (
    (base ? imageRole(base) : null) ?? (installedProxy ? { kind: 'proxy', product: installedProxy } : null) ?? (tag ? imageRole(tag) : null)
  );
}

/** How fixed an image reference is: by digest, by a version tag, or floating (no tag, latest, a branch-like tag). */
export function imagePin(image: string): 'digest' | 'exact_version' | 'floating' {
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return 'digest';
  const repo = image.split('@')[0]!;
  const slash = repo.lastIndexOf('/');
  const colon = repo.lastIndexOf(':');
  const tag = colon > slash ? repo.slice(colon + 1) : '';
  if (!tag || /^(latest|main|master|edge|nightly|dev|stable)$/i.test(tag)) return 'floating';
  // A major or major.minor line (`v2`, `3.12-slim`) moves with each release in it, as npm's `pkg@1`
  // does (whales-workshops' docker/mcp-gateway:v2); a full version, a date or a commit names one.
  if (/^v?\d{1,4}(\.\d+)?([-_][a-z][\w.-]*)?$/i.test(tag)) return 'floating';
  return /\d/.test(tag) ? 'exact_version' : 'floating';
}

/** MCP as a word of its own (`mcp-server.js`, `server_mcp.py`, `/mcp`), not inside another name (`@mcpjam/discord-app`). */
export const mcpWord = (s: string): boolean => /(^|[^a-z])mcp([^a-z]|$)/i.test(s);

/**
 * The last word of a name that says its role is not serving MCP: an authenticator, a UI, a client, a
 * backend, a certificate maker, an operator or controller that reconciles containers or resources
 * (unrelated-ai/mcp-gateway's `mcp-gateway-operator`).
 */
const OTHER_ROLE =
  /^(auth|oauth2?|authz|authn|sso|login|frontend|web|webapp|ui|dashboard|playground|client|backend|worker|certgen|certbot|keygen|operator|controller|reconciler)$/;

/**
 * Whether a service's or workload's name, or an image's repository, names an MCP server: `mcp`
 * in it, unless its last word gives it another role (oidebrett/mcpauth's `mcpauth`, boltmcp's
 * `boltmcp-platform-web` and `boltmcp-platform-playground`, 4eyedengineer/mcp-everything's
 * `mcp-backend`).
 */
export function namesMcpServer(nameOrImage: string): boolean {
  const image = nameOrImage.includes('/') || nameOrImage.includes(':');
  if (!/mcp/i.test(image ? repository(nameOrImage) : nameOrImage)) return false;
  const last = image ? repository(nameOrImage).split('/').pop()! : nameOrImage;
  const words = last
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const end = words.at(-1) ?? '';
  // Right after `mcp`, `web` is what the server is for (`mcp-web`, a browsing server), not a web app.
  if (end === 'web' && /mcp/.test(words.at(-2) ?? '')) return true;
  return !OTHER_ROLE.test(end) && !OTHER_ROLE.test(end.replace(/^.*mcp/, ''));
}

/**
 * A proxy route (a location, a Caddy matcher, an Ingress path) whose path names the MCP endpoint:
 * `/mcp`, `/sse`. OAuth metadata under /.well-known/ (`/.well-known/oauth-protected-resource/mcp`)
 * names the server, but is no way to call it.
 */
export const namesMcpRoute = (path: string): boolean => /mcp|sse/i.test(path) && !/\.well-known\//.test(path);

/**
 * A host name with MCP as a label or a word of one (`mcp.example.com`, `mcp-qbit.example.com`,
 * `remote-mcps.sloboda.fr`): a site that serves an MCP server.
 */
export const namesMcpHost = (host: string): boolean =>
  /(^|[.\-_])mcps?([.\-_]|$)/i.test(host.replace(/^[a-z]+:\/\//i, '').split(/[:/]/)[0] ?? '');
