// The only module that reads process.env. Every SIGNET_* variable is parsed and
// validated here once; the rest of the code receives a typed Config.

import { existsSync } from 'node:fs';
import type { BlockList } from 'node:net';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { SignetError } from './errors.js';
import { IPV6_PREFIX, OAUTH_URL, ORIGIN_PATTERN, SCOPE_TOKEN as SCOPE_TOKEN_GRAMMAR } from './shared/edge-contract.js';
import { hostnameOf, LOOPBACK_HOSTNAMES } from './shared/hostnames.js';
import { blockListOf, parseCidr } from './shared/ip-address.js';

export type Transport = 'stdio' | 'http';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface HttpConfig {
  host: string;
  port: number;
  /** tools/call per client IP per minute; 0 disables the limit (unsafe). */
  rateLimitPerMinute: number;
  /** Other MCP requests (initialize, tools/list, ping...) per client IP per minute. */
  otherRequestsPerMinute: number;
  /** tools/call per principal (the API key the proxy names) per minute; 0 = off. */
  rateLimitPerKeyPerMinute: number;
  /** tools/call per client IP per minute over every principal calling from it: the coarse outer guard; 0 = off. */
  rateLimitIpGuardPerMinute: number;
  /** IPv6 clients share a rate-limit bucket per prefix of this many bits. */
  rateLimitIpv6Prefix: number;
  /** SIGNET_TRUSTED_PROXIES, parsed: where the proxy's connections must come from, besides presenting the proxy secret; null = any. */
  trustedProxies: BlockList | null;
  /** SIGNET_PROXY_SECRET_FILE: the secret the proxy presents; null = no proxy is believed. */
  proxySecretFile: string | null;
  /** SIGNET_TLS_CERT_FILE and SIGNET_TLS_KEY_FILE: serve HTTPS (the hop from the proxy, when it leaves the host); null = plain HTTP. */
  tls: { certFile: string; keyFile: string } | null;
  maxBodyBytes: number;
  /** Deepest JSON nesting a body may have (checked while it is read, before parsing). */
  maxJsonDepth: number;
  /** Most JSON containers and members a body may hold (checked while it is read). */
  maxJsonNodes: number;
  /** Request bodies read and parsed at once, over all clients; 503 beyond. */
  maxConcurrentBodies: number;
  /** Request bodies read and parsed at once for one principal (API key, or client address without one); 429 beyond. */
  maxConcurrentBodiesPerPrincipal: number;
  allowedOrigins: string[];
  /** Loopback origins (http(s)://localhost etc., any port) allowed besides allowedOrigins. */
  allowLoopbackOrigins: boolean;
  /** The hostnames Host may name: the loopback names and SIGNET_ALLOWED_HOSTS (lower case, ports dropped). */
  allowedHostnames: ReadonlySet<string>;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM, keep accepting (answering Connection: close) this long before closing the listener. */
  shutdownDelayMs: number;
  redisUrl: string | null;
  /** SIGNET_REDIS_TIMEOUT_MS: how long a limiter command may wait for Redis before the insurance limiter answers. */
  redisTimeoutMs: number;
  /** SIGNET_REDIS_PASSWORD_FILE: Redis's password, read from a file (never from the environment); null = none or in the URL. */
  redisPasswordFile: string | null;
  /** Prometheus /metrics port; null = no metrics server. */
  metricsPort: number | null;
  metricsHost: string;
  /** SIGNET_METRICS_TOKEN_FILE: the bearer token a scrape must present; null = none (loopback listeners only). */
  metricsTokenFile: string | null;
  /** SIGNET_OAUTH_SCOPE_MAP and SIGNET_OAUTH_SCOPE_IMPLIES: the scopes a call by an OAuth principal needs. */
  oauthScopes: { map: ReadonlyMap<string, readonly string[]>; implies: ReadonlyMap<string, readonly string[]> };
}

/** How access tokens are checked (`signet auth-check`); null in keys mode. */
export interface OAuthConfig {
  mode: 'oauth' | 'keys+oauth';
  issuer: string;
  resource: string;
  /** The resource plus SIGNET_OAUTH_AUDIENCES: `aud` must contain one of them. */
  audiences: string[];
  algorithms: string[];
  leewaySeconds: number;
  jwksCooldownSeconds: number;
  /** SIGNET_OAUTH_JWKS_REFRESH_SECONDS: the keys are fetched again this often, in the background. */
  jwksRefreshSeconds: number;
  /** SIGNET_OAUTH_CA_FILE: the CA that issued the provider's certificate, when it is private. */
  caFile: string | null;
}

/** `signet auth-check`: the proxy's one authenticator (API keys and OAuth tokens). */
export interface AuthCheckConfig {
  mode: 'keys' | 'oauth' | 'keys+oauth';
  host: string;
  port: number;
  /** Refused credentials per client address: a burst, then so many a minute (SIGNET_PROXY_AUTH_FAILURES_*). */
  failuresPerMinute: number;
  failuresBurst: number;
  /** SIGNET_KEY_EXPIRY_WARNING_DAYS: an API key this close to its expiry is logged and counted. */
  expiryWarningDays: number;
}

export interface Config {
  transport: Transport;
  oauth: OAuthConfig | null;
  authCheck: AuthCheckConfig;
  doctrineDir: string;
  dataDir: string;
  signingKeyFile: string | undefined;
  /** SIGNET_TRUST_FILE: a signet-trust/1 file; the server's older keys, and what `signet verify` trusts. */
  trustFile: string | undefined;
  doctrinePublisherKey: string | undefined;
  /** The approved doctrine hash; the server refuses to start on any other doctrine. */
  doctrineHash: string | undefined;
  logLevel: LogLevel;
  cacheEntries: number;
  /** SIGNET_CACHE_BYTES: the most memory the signed-result cache may hold. */
  cacheBytes: number;
  maxArgumentBytes: number;
  maxArgumentDepth: number;
  /** SIGNET_MAX_BATCH_MESSAGES: the most messages one JSON-RPC batch may hold. */
  maxBatchMessages: number;
  /** SIGNET_API_KEY: the static key `keys init` defers to (the server itself never uses it). */
  apiKey: string | undefined;
  /** SIGNET_KEY_STORE: the hashed API key store the proxy checks (default: <data dir>/keys.json). */
  keyStore: string;
  http: HttpConfig;
}

export type Env = Record<string, string | undefined>;

/**
 * The doctrine shipped with the package: the nearest `doctrine/doctrine.json` above this
 * module, which is one level up from src/ and dist/ but two from the bundle's chunks.
 */
export const DEFAULT_DOCTRINE_DIR = (() => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; ) {
    if (existsSync(join(dir, 'doctrine', 'doctrine.json'))) return join(dir, 'doctrine') + sep;
    const up = dirname(dir);
    if (up === dir) return fileURLToPath(new URL('../doctrine/', import.meta.url));
    dir = up;
  }
})();

// ---- the schema: one entry per variable, in the order docs/configuration.md lists them ----
// zod/mini (a few KB bundled; the classic zod API measured ~20 ms of cold start). Every value
// arrives as a string or nothing; each entry turns it into its typed value or an issue that
// names what is wrong, and an empty value means the default.

type Ctx = { issues: { push(issue: { code: 'custom'; message: string; input: unknown; params: { shown: string } }): unknown } };
const raw = z.optional(z.string());
const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

function variable<T>(parse: (value: string, ctx: Ctx) => T | typeof z.NEVER, fallback: T) {
  return z.pipe(
    raw,
    z.transform((v: string | undefined, ctx: Ctx) => {
      const s = given(v);
      return s === undefined ? fallback : parse(s, ctx);
    }),
  );
}
const problem = (ctx: Ctx, message: string, input: string) => {
  ctx.issues.push({ code: 'custom', message, input, params: { shown: input } });
  return z.NEVER;
};

const integer = (fallback: number, min: number, max: number) =>
  variable((s, ctx) => {
    if (!/^\d+$/.test(s)) return problem(ctx, `must be a whole number between ${min} and ${max}`, s);
    const n = Number(s);
    return n < min || n > max ? problem(ctx, `must be between ${min} and ${max}`, s) : n;
  }, fallback);
const optionalInteger = (min: number, max: number) =>
  variable<number | null>((s, ctx) => {
    if (!/^\d+$/.test(s) || Number(s) < min || Number(s) > max) return problem(ctx, `must be a whole number between ${min} and ${max}`, s);
    return Number(s);
  }, null);
const oneOf = <T extends string>(allowed: readonly T[], fallback: T) =>
  variable(
    (s, ctx) => ((allowed as readonly string[]).includes(s) ? (s as T) : problem(ctx, `must be one of ${allowed.join(', ')}`, s)),
    fallback,
  );
const boolean = (fallback: boolean) =>
  variable((s, ctx) => {
    const v = s.toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    return problem(ctx, 'must be true or false', s);
  }, fallback);
const filePath = variable<string | undefined>((s) => (isAbsolute(s) ? s : resolve(s)), undefined);
const text = variable<string | undefined>((s) => s, undefined);
const list = variable<string[]>(
  (s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
  [],
);
const matching = (pattern: RegExp, message: string, shown: (s: string) => string = (s) => s) =>
  variable<string | undefined>((s, ctx) => (pattern.test(s) ? s : problem(ctx, message, shown(s))), undefined);

/** An origin as browsers send it: scheme://host[:port], lower case, no path; the proxy checks the same (the edge contract). */
const ORIGIN = new RegExp(ORIGIN_PATTERN);
const origins = variable<string[]>((s, ctx) => {
  const values = s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
  const bad = values.find((v) => !ORIGIN.test(v));
  return bad === undefined
    ? values
    : problem(
        ctx,
        'must list origins as scheme://host[:port], in lower case, without path or wildcard (e.g. https://app.example.com)',
        bad,
      );
}, []);

// RFC 6749 §3.3 scope tokens (the edge contract); tool names as the MCP spec allows them, or "*".
const SCOPE_TOKEN = new RegExp(SCOPE_TOKEN_GRAMMAR.js);
const TOOL_NAME = /^(\*|[A-Za-z0-9_.-]{1,128})$/;
/** "name=scope scope,name=scope": SIGNET_OAUTH_SCOPE_MAP (name: a tool or *) and SIGNET_OAUTH_SCOPE_IMPLIES (name: a scope). */
const scopeTable = (fallback: string, names: RegExp, what: string) =>
  z.pipe(
    raw,
    z.transform((v: string | undefined, ctx: Ctx) => {
      const s = given(v) ?? fallback;
      const table = new Map<string, string[]>();
      for (const entry of s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x.length > 0)) {
        const eq = entry.indexOf('=');
        const name = eq < 0 ? '' : entry.slice(0, eq).trim();
        const scopes =
          eq < 0
            ? []
            : entry
                .slice(eq + 1)
                .trim()
                .split(/\s+/)
                .filter((x) => x.length > 0);
        if (!names.test(name) || scopes.length === 0 || !scopes.every((x) => SCOPE_TOKEN.test(x)) || table.has(name)) {
          return problem(ctx, `must list ${what}=scope[ scope…] entries separated by commas, each ${what} once (e.g. ${fallback})`, entry);
        }
        table.set(name, scopes);
      }
      return table;
    }),
  );

/**
 * An OAuth URL (SIGNET_OAUTH_ISSUER, SIGNET_OAUTH_RESOURCE): https, or http on a loopback
 * host for local development and tests; no query, fragment, credentials or trailing slash
 * for the resource (the form RFC 8707 and the MCP spec compare, byte for byte).
 */
const oauthUrl = (trailingSlash: boolean) =>
  variable<string | undefined>((s, ctx) => {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      return problem(ctx, 'must be an absolute URL such as https://mcp.example.org/mcp', s);
    }
    const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname);
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) {
      return problem(ctx, 'must be an https:// URL (http:// only on a loopback host, for local development)', s);
    }
    if (u.search || u.hash || u.username || u.password || s.includes('#') || s.includes('?')) {
      return problem(ctx, 'must have no query, fragment or credentials', s);
    }
    if (!trailingSlash && s.endsWith('/')) return problem(ctx, 'must not end with a slash (the canonical form has none)', s);
    // The characters the proxy writes into its configuration as they are (the edge contract).
    if (!new RegExp(trailingSlash ? OAUTH_URL.issuer : OAUTH_URL.resource).test(s))
      return problem(ctx, 'must hold only letters, digits and - . _ ~ % ! & ( ) * + , ; = : @ / (no quote)', s);
    return s;
  }, undefined);
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const algorithms = variable<string[]>(
  (s, ctx) => {
    const values = s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
    const bad = values.find((v) => !ALGORITHMS.includes(v));
    return bad === undefined && values.length > 0
      ? values
      : problem(ctx, `must list asymmetric JWS algorithms from ${ALGORITHMS.join(', ')} (never none or HS*)`, bad ?? s);
  },
  ['RS256', 'PS256', 'ES256', 'EdDSA'],
);

const MiB = 1024 * 1024;
const SCHEMA = z.object({
  SIGNET_TRANSPORT: oneOf(['stdio', 'http'] as const, 'stdio'),
  SIGNET_DOCTRINE_DIR: filePath,
  SIGNET_DOCTRINE_PUBLISHER_KEY: matching(/^[A-Za-z0-9+/]{59}=$/, 'must be the base64 DER SPKI of an Ed25519 key (60 characters)'),
  SIGNET_DOCTRINE_HASH: matching(
    /^sha256:[0-9a-f]{64}$/,
    'must be sha256: followed by 64 lowercase hex digits (`signet doctrine check` prints it)',
  ),
  SIGNET_DATA_DIR: filePath,
  SIGNET_SIGNING_KEY_FILE: filePath,
  SIGNET_TRUST_FILE: filePath,
  SIGNET_LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  SIGNET_CACHE_ENTRIES: integer(1024, 0, 1_000_000),
  SIGNET_CACHE_BYTES: integer(32 * MiB, 64 * 1024, 4096 * MiB),
  SIGNET_MAX_ARGUMENT_BYTES: integer(256 * 1024, 1024, 64 * MiB),
  SIGNET_MAX_BATCH_MESSAGES: integer(32, 1, 1000),
  SIGNET_API_KEY: text,
  SIGNET_KEY_STORE: filePath,
  SIGNET_HTTP_HOST: text,
  SIGNET_HTTP_PORT: integer(3000, 0, 65535),
  SIGNET_RATE_LIMIT_PER_MINUTE: integer(60, 0, 10_000_000),
  SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: integer(600, 0, 10_000_000),
  SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE: integer(60, 0, 10_000_000),
  SIGNET_RATE_LIMIT_IP_GUARD_PER_MINUTE: integer(600, 0, 10_000_000),
  SIGNET_RATE_LIMIT_IPV6_PREFIX: integer(IPV6_PREFIX.default, IPV6_PREFIX.min, IPV6_PREFIX.max),
  SIGNET_TRUSTED_PROXIES: variable<BlockList | null>((s, ctx) => {
    const entries = s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
    const parsed = entries.map(parseCidr);
    const bad = entries.find((_, i) => parsed[i] === null);
    if (bad !== undefined) return problem(ctx, 'must list IP addresses or CIDRs (e.g. 10.0.0.0/8, fd00::/8)', bad);
    return entries.length === 0 ? null : blockListOf(parsed as NonNullable<(typeof parsed)[number]>[]);
  }, null),
  SIGNET_PROXY_SECRET_FILE: filePath,
  SIGNET_TLS_CERT_FILE: filePath,
  SIGNET_TLS_KEY_FILE: filePath,
  SIGNET_MAX_BODY_BYTES: integer(MiB, 1024, 64 * MiB),
  SIGNET_MAX_JSON_DEPTH: integer(64, 8, 1000),
  SIGNET_MAX_JSON_NODES: integer(100_000, 100, 10_000_000),
  SIGNET_MAX_CONCURRENT_BODIES: integer(32, 1, 10_000),
  SIGNET_MAX_CONCURRENT_BODIES_PER_PRINCIPAL: integer(8, 1, 10_000),
  SIGNET_ALLOWED_ORIGINS: origins,
  SIGNET_ALLOW_LOOPBACK_ORIGINS: boolean(true),
  SIGNET_ALLOWED_HOSTS: variable<ReadonlySet<string>>(
    (s) =>
      new Set([
        ...LOOPBACK_HOSTNAMES,
        ...s
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x.length > 0)
          .map((h) => hostnameOf(h) ?? h.toLowerCase()),
      ]),
    new Set(LOOPBACK_HOSTNAMES),
  ),
  SIGNET_REQUEST_TIMEOUT_MS: integer(30_000, 1000, 600_000),
  SIGNET_HEADERS_TIMEOUT_MS: integer(10_000, 1000, 600_000),
  SIGNET_KEEP_ALIVE_TIMEOUT_MS: integer(65_000, 1000, 600_000),
  SIGNET_SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
  SIGNET_SHUTDOWN_DELAY_MS: integer(1000, 0, 60_000),
  // A Redis URL may carry a password: never shown back.
  SIGNET_REDIS_URL: matching(/^rediss?:\/\//, 'must start with redis:// or rediss://', () => '<redacted>'),
  SIGNET_REDIS_PASSWORD_FILE: filePath,
  SIGNET_REDIS_TIMEOUT_MS: integer(200, 10, 10_000),
  SIGNET_METRICS_PORT: optionalInteger(0, 65535),
  SIGNET_METRICS_HOST: text,
  SIGNET_METRICS_TOKEN_FILE: filePath,
  SIGNET_AUTH_MODE: oneOf(['keys', 'oauth', 'keys+oauth'] as const, 'keys'),
  // The issuer exactly as its tokens' `iss` (Auth0's ends with a slash); the resource in canonical form.
  SIGNET_OAUTH_ISSUER: oauthUrl(true),
  SIGNET_OAUTH_RESOURCE: oauthUrl(false),
  SIGNET_OAUTH_AUDIENCES: list,
  SIGNET_OAUTH_ALGORITHMS: algorithms,
  SIGNET_OAUTH_CLOCK_LEEWAY_SECONDS: integer(30, 0, 300),
  SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS: integer(30, 1, 3600),
  SIGNET_OAUTH_JWKS_REFRESH_SECONDS: integer(600, 1, 86_400),
  SIGNET_OAUTH_CA_FILE: filePath,
  SIGNET_AUTH_CHECK_HOST: text,
  SIGNET_AUTH_CHECK_PORT: integer(3100, 0, 65535),
  SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: integer(60, 1, 1_000_000),
  SIGNET_PROXY_AUTH_FAILURES_BURST: integer(20, 1, 1_000_000),
  SIGNET_KEY_EXPIRY_WARNING_DAYS: integer(14, 0, 3650),
  SIGNET_OAUTH_SCOPE_MAP: scopeTable('doctrine_evaluate=signet:evaluate,deployment_check=signet:evaluate,*=signet:read', TOOL_NAME, 'tool'),
  SIGNET_OAUTH_SCOPE_IMPLIES: scopeTable('signet:evaluate=signet:read', SCOPE_TOKEN, 'scope'),
  XDG_DATA_HOME: text,
});

/** Every variable the schema reads: the docs test checks docs/configuration.md lists them. */
export const CONFIG_VARIABLES = Object.keys(SCHEMA.shape);

function defaultDataDir(xdg: string | undefined): string {
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'signet');
}

/** Does a Redis URL carry a password (redis://:pw@host, redis://user:pw@host)? */
export function redisUrlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Settings that are each valid but unsafe together: refused, naming the variables. */
function crossCheck(c: z.infer<typeof SCHEMA>): void {
  const refuse = (where: string, message: string) => {
    throw new SignetError('config_invalid', `${where} ${message}`, [{ where, message }]);
  };
  // An address range alone is never a proxy's credential: anything that can reach the range
  // (the Docker host through the network's gateway, a pod a NetworkPolicy misses) could speak for clients.
  if (c.SIGNET_TRUSTED_PROXIES !== null && !c.SIGNET_PROXY_SECRET_FILE) {
    refuse(
      'SIGNET_TRUSTED_PROXIES',
      'needs SIGNET_PROXY_SECRET_FILE: identity headers are believed only from a proxy that presents the secret, never from an address range alone',
    );
  }
  // One without the other is a mistake, never a reason to fall back to plain HTTP.
  if (!c.SIGNET_TLS_CERT_FILE !== !c.SIGNET_TLS_KEY_FILE) {
    const [missing, given] = c.SIGNET_TLS_CERT_FILE
      ? ['SIGNET_TLS_KEY_FILE', 'SIGNET_TLS_CERT_FILE']
      : ['SIGNET_TLS_CERT_FILE', 'SIGNET_TLS_KEY_FILE'];
    refuse(missing, `is required with ${given}: HTTPS needs the certificate and its key`);
  }
  if (c.SIGNET_AUTH_MODE !== 'keys') {
    for (const name of ['SIGNET_OAUTH_ISSUER', 'SIGNET_OAUTH_RESOURCE'] as const) {
      if (!c[name]) refuse(name, `is required with SIGNET_AUTH_MODE=${c.SIGNET_AUTH_MODE}`);
    }
  }
  if (c.SIGNET_REDIS_PASSWORD_FILE && !c.SIGNET_REDIS_URL)
    refuse('SIGNET_REDIS_PASSWORD_FILE', 'needs SIGNET_REDIS_URL (the Redis it is for)');
  if (c.SIGNET_REDIS_PASSWORD_FILE && c.SIGNET_REDIS_URL && redisUrlHasPassword(c.SIGNET_REDIS_URL)) {
    refuse('SIGNET_REDIS_URL', 'carries a password and SIGNET_REDIS_PASSWORD_FILE names another: keep the password in the file only');
  }
  const metricsHost = c.SIGNET_METRICS_HOST ?? c.SIGNET_HTTP_HOST ?? '127.0.0.1';
  if (c.SIGNET_METRICS_PORT !== null && !c.SIGNET_METRICS_TOKEN_FILE && !isLoopbackHost(metricsHost)) {
    refuse(
      'SIGNET_METRICS_HOST',
      `is ${JSON.stringify(metricsHost)}, not loopback: a metrics listener others can reach needs SIGNET_METRICS_TOKEN_FILE (a bearer token for the scraper)`,
    );
  }
}

export function loadConfig(env: Env = process.env): Config {
  const parsed = SCHEMA.safeParse(env);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => ({ where: String(i.path[0]), message: i.message }));
    const first = parsed.error.issues[0]!;
    const input = String((first as { params?: { shown?: string } }).params?.shown ?? '');
    const shown = input.length > 80 ? `${input.slice(0, 80)}…` : input;
    throw new SignetError('config_invalid', `${String(first.path[0])} ${first.message} (got ${JSON.stringify(shown)})`, details);
  }
  const c = parsed.data;
  crossCheck(c);
  const dataDir = c.SIGNET_DATA_DIR ?? defaultDataDir(c.XDG_DATA_HOME);
  return {
    transport: c.SIGNET_TRANSPORT,
    oauth:
      c.SIGNET_AUTH_MODE === 'keys' || !c.SIGNET_OAUTH_ISSUER || !c.SIGNET_OAUTH_RESOURCE
        ? null
        : {
            mode: c.SIGNET_AUTH_MODE,
            issuer: c.SIGNET_OAUTH_ISSUER,
            resource: c.SIGNET_OAUTH_RESOURCE,
            audiences: [c.SIGNET_OAUTH_RESOURCE, ...c.SIGNET_OAUTH_AUDIENCES],
            algorithms: c.SIGNET_OAUTH_ALGORITHMS,
            leewaySeconds: c.SIGNET_OAUTH_CLOCK_LEEWAY_SECONDS,
            jwksCooldownSeconds: c.SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS,
            jwksRefreshSeconds: c.SIGNET_OAUTH_JWKS_REFRESH_SECONDS,
            caFile: c.SIGNET_OAUTH_CA_FILE ?? null,
          },
    authCheck: {
      mode: c.SIGNET_AUTH_MODE,
      host: c.SIGNET_AUTH_CHECK_HOST ?? '127.0.0.1',
      port: c.SIGNET_AUTH_CHECK_PORT,
      failuresPerMinute: c.SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE,
      failuresBurst: c.SIGNET_PROXY_AUTH_FAILURES_BURST,
      expiryWarningDays: c.SIGNET_KEY_EXPIRY_WARNING_DAYS,
    },
    doctrineDir: c.SIGNET_DOCTRINE_DIR ?? DEFAULT_DOCTRINE_DIR,
    dataDir,
    signingKeyFile: c.SIGNET_SIGNING_KEY_FILE,
    trustFile: c.SIGNET_TRUST_FILE,
    doctrinePublisherKey: c.SIGNET_DOCTRINE_PUBLISHER_KEY,
    doctrineHash: c.SIGNET_DOCTRINE_HASH,
    logLevel: c.SIGNET_LOG_LEVEL,
    cacheEntries: c.SIGNET_CACHE_ENTRIES,
    cacheBytes: c.SIGNET_CACHE_BYTES,
    maxArgumentBytes: c.SIGNET_MAX_ARGUMENT_BYTES,
    maxArgumentDepth: 32,
    maxBatchMessages: c.SIGNET_MAX_BATCH_MESSAGES,
    apiKey: c.SIGNET_API_KEY,
    keyStore: c.SIGNET_KEY_STORE ?? join(dataDir, 'keys.json'),
    http: {
      host: c.SIGNET_HTTP_HOST ?? '127.0.0.1',
      port: c.SIGNET_HTTP_PORT,
      rateLimitPerMinute: c.SIGNET_RATE_LIMIT_PER_MINUTE,
      otherRequestsPerMinute: c.SIGNET_RATE_LIMIT_OTHER_PER_MINUTE,
      rateLimitPerKeyPerMinute: c.SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE,
      rateLimitIpGuardPerMinute: c.SIGNET_RATE_LIMIT_IP_GUARD_PER_MINUTE,
      rateLimitIpv6Prefix: c.SIGNET_RATE_LIMIT_IPV6_PREFIX,
      trustedProxies: c.SIGNET_TRUSTED_PROXIES,
      proxySecretFile: c.SIGNET_PROXY_SECRET_FILE ?? null,
      tls: c.SIGNET_TLS_CERT_FILE && c.SIGNET_TLS_KEY_FILE ? { certFile: c.SIGNET_TLS_CERT_FILE, keyFile: c.SIGNET_TLS_KEY_FILE } : null,
      maxBodyBytes: c.SIGNET_MAX_BODY_BYTES,
      maxJsonDepth: c.SIGNET_MAX_JSON_DEPTH,
      maxJsonNodes: c.SIGNET_MAX_JSON_NODES,
      maxConcurrentBodies: c.SIGNET_MAX_CONCURRENT_BODIES,
      maxConcurrentBodiesPerPrincipal: c.SIGNET_MAX_CONCURRENT_BODIES_PER_PRINCIPAL,
      allowedOrigins: c.SIGNET_ALLOWED_ORIGINS,
      allowLoopbackOrigins: c.SIGNET_ALLOW_LOOPBACK_ORIGINS,
      allowedHostnames: c.SIGNET_ALLOWED_HOSTS,
      requestTimeoutMs: c.SIGNET_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: c.SIGNET_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: c.SIGNET_KEEP_ALIVE_TIMEOUT_MS,
      shutdownTimeoutMs: c.SIGNET_SHUTDOWN_TIMEOUT_MS,
      shutdownDelayMs: c.SIGNET_SHUTDOWN_DELAY_MS,
      redisUrl: c.SIGNET_REDIS_URL ?? null,
      redisPasswordFile: c.SIGNET_REDIS_PASSWORD_FILE ?? null,
      redisTimeoutMs: c.SIGNET_REDIS_TIMEOUT_MS,
      metricsPort: c.SIGNET_METRICS_PORT,
      metricsHost: c.SIGNET_METRICS_HOST ?? c.SIGNET_HTTP_HOST ?? '127.0.0.1',
      metricsTokenFile: c.SIGNET_METRICS_TOKEN_FILE ?? null,
      oauthScopes: { map: c.SIGNET_OAUTH_SCOPE_MAP, implies: c.SIGNET_OAUTH_SCOPE_IMPLIES },
    },
  };
}
