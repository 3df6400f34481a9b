// The only module that reads process.env. Every SIGNET_* variable is parsed and
// validated here once; the rest of the code receives a typed Config.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { SignetError } from './errors.js';

export type Transport = 'stdio' | 'http';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface HttpConfig {
  host: string;
  port: number;
  /** tools/call per client IP per minute; 0 disables the limit (unsafe). */
  rateLimitPerMinute: number;
  /** Other MCP requests (initialize, tools/list, ping...) per client IP per minute. */
  otherRequestsPerMinute: number;
  /** tools/call per authenticated key id per minute (header set by the proxy); 0 = off. */
  rateLimitPerKeyPerMinute: number;
  /** IPv6 clients share a rate-limit bucket per prefix of this many bits. */
  rateLimitIpv6Prefix: number;
  /** CIDRs whose X-Forwarded-For is believed. */
  trustedProxies: string[];
  maxBodyBytes: number;
  allowedOrigins: string[];
  allowedHosts: string[];
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM, keep accepting (answering Connection: close) this long before closing the listener. */
  shutdownDelayMs: number;
  redisUrl: string | null;
  /** Prometheus /metrics port; null = no metrics server. */
  metricsPort: number | null;
  metricsHost: string;
}

export interface Config {
  transport: Transport;
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

/** An origin as browsers send it: scheme://host[:port], lower case, no path; the proxy checks the same. */
const ORIGIN = /^https?:\/\/([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:]+\])(:[0-9]{1,5})?$/;
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
  SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE: integer(0, 0, 10_000_000),
  SIGNET_RATE_LIMIT_IPV6_PREFIX: integer(64, 32, 128),
  SIGNET_TRUSTED_PROXIES: list,
  SIGNET_MAX_BODY_BYTES: integer(MiB, 1024, 64 * MiB),
  SIGNET_ALLOWED_ORIGINS: origins,
  SIGNET_ALLOWED_HOSTS: list,
  SIGNET_REQUEST_TIMEOUT_MS: integer(30_000, 1000, 600_000),
  SIGNET_HEADERS_TIMEOUT_MS: integer(10_000, 1000, 600_000),
  SIGNET_KEEP_ALIVE_TIMEOUT_MS: integer(65_000, 1000, 600_000),
  SIGNET_SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
  SIGNET_SHUTDOWN_DELAY_MS: integer(1000, 0, 60_000),
  // A Redis URL may carry a password: never shown back.
  SIGNET_REDIS_URL: matching(/^rediss?:\/\//, 'must start with redis:// or rediss://', () => '<redacted>'),
  SIGNET_METRICS_PORT: optionalInteger(0, 65535),
  SIGNET_METRICS_HOST: text,
  XDG_DATA_HOME: text,
});

/** Every variable the schema reads: the docs test checks docs/configuration.md lists them. */
export const CONFIG_VARIABLES = Object.keys(SCHEMA.shape).filter((k) => k.startsWith('SIGNET_'));

function defaultDataDir(xdg: string | undefined): string {
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'signet');
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
  const dataDir = c.SIGNET_DATA_DIR ?? defaultDataDir(c.XDG_DATA_HOME);
  return {
    transport: c.SIGNET_TRANSPORT,
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
      rateLimitIpv6Prefix: c.SIGNET_RATE_LIMIT_IPV6_PREFIX,
      trustedProxies: c.SIGNET_TRUSTED_PROXIES,
      maxBodyBytes: c.SIGNET_MAX_BODY_BYTES,
      allowedOrigins: c.SIGNET_ALLOWED_ORIGINS,
      allowedHosts: c.SIGNET_ALLOWED_HOSTS,
      requestTimeoutMs: c.SIGNET_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: c.SIGNET_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: c.SIGNET_KEEP_ALIVE_TIMEOUT_MS,
      shutdownTimeoutMs: c.SIGNET_SHUTDOWN_TIMEOUT_MS,
      shutdownDelayMs: c.SIGNET_SHUTDOWN_DELAY_MS,
      redisUrl: c.SIGNET_REDIS_URL ?? null,
      metricsPort: c.SIGNET_METRICS_PORT,
      metricsHost: c.SIGNET_METRICS_HOST ?? c.SIGNET_HTTP_HOST ?? '127.0.0.1',
    },
  };
}
