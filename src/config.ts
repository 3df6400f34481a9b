// The only module that reads process.env. Every SIGNET_* variable is parsed and
// validated here once; the rest of the code receives a typed Config.
import { homedir } from 'node:os';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
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

function fail(name: string, message: string, value: string): never {
  throw new SignetError('config_invalid', `${name} ${message} (got ${JSON.stringify(value.length > 80 ? value.slice(0, 80) + '…' : value)})`, [
    { where: name, message },
  ]);
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) fail(name, `must be a whole number between ${min} and ${max}`, raw);
  const n = Number(raw.trim());
  if (n < min || n > max) fail(name, `must be between ${min} and ${max}`, raw);
  return n;
}

function list(env: Env, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) fail(name, `must be one of ${allowed.join(', ')}`, raw);
  return raw as T;
}

function path(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  return isAbsolute(raw) ? raw : resolve(raw);
}

function defaultDataDir(env: Env): string {
  const xdg = env['XDG_DATA_HOME'];
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'signet');
}

export function loadConfig(env: Env = process.env): Config {
  const redis = env['SIGNET_REDIS_URL'];
  if (redis && !/^rediss?:\/\//.test(redis)) fail('SIGNET_REDIS_URL', 'must start with redis:// or rediss://', '<redacted>');
  const publisher = env['SIGNET_DOCTRINE_PUBLISHER_KEY'];
  if (publisher !== undefined && publisher !== '' && !/^[A-Za-z0-9+/]{59}=$/.test(publisher)) {
    fail('SIGNET_DOCTRINE_PUBLISHER_KEY', 'must be the base64 DER SPKI of an Ed25519 key (60 characters)', publisher);
  }
  const pinnedHash = env['SIGNET_DOCTRINE_HASH'];
  if (pinnedHash !== undefined && pinnedHash !== '' && !/^sha256:[0-9a-f]{64}$/.test(pinnedHash)) {
    fail('SIGNET_DOCTRINE_HASH', 'must be sha256: followed by 64 lowercase hex digits (`signet doctrine check` prints it)', pinnedHash);
  }
  return {
    transport: oneOf(env, 'SIGNET_TRANSPORT', ['stdio', 'http'] as const, 'stdio'),
    doctrineDir: path(env, 'SIGNET_DOCTRINE_DIR') ?? DEFAULT_DOCTRINE_DIR,
    dataDir: path(env, 'SIGNET_DATA_DIR') ?? defaultDataDir(env),
    signingKeyFile: path(env, 'SIGNET_SIGNING_KEY_FILE'),
    trustFile: path(env, 'SIGNET_TRUST_FILE'),
    doctrinePublisherKey: publisher || undefined,
    doctrineHash: pinnedHash || undefined,
    logLevel: oneOf(env, 'SIGNET_LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    cacheEntries: int(env, 'SIGNET_CACHE_ENTRIES', 1024, 0, 1_000_000),
    cacheBytes: int(env, 'SIGNET_CACHE_BYTES', 32 * 1024 * 1024, 64 * 1024, 4 * 1024 * 1024 * 1024),
    maxArgumentBytes: int(env, 'SIGNET_MAX_ARGUMENT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    maxArgumentDepth: 32,
    maxBatchMessages: int(env, 'SIGNET_MAX_BATCH_MESSAGES', 32, 1, 1000),
    apiKey: env['SIGNET_API_KEY'] || undefined,
    keyStore: path(env, 'SIGNET_KEY_STORE') ?? join(path(env, 'SIGNET_DATA_DIR') ?? defaultDataDir(env), 'keys.json'),
    http: {
      host: env['SIGNET_HTTP_HOST'] || '127.0.0.1',
      port: int(env, 'SIGNET_HTTP_PORT', 3000, 0, 65535),
      rateLimitPerMinute: int(env, 'SIGNET_RATE_LIMIT_PER_MINUTE', 60, 0, 10_000_000),
      otherRequestsPerMinute: int(env, 'SIGNET_RATE_LIMIT_OTHER_PER_MINUTE', 600, 0, 10_000_000),
      rateLimitPerKeyPerMinute: int(env, 'SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE', 0, 0, 10_000_000),
      rateLimitIpv6Prefix: int(env, 'SIGNET_RATE_LIMIT_IPV6_PREFIX', 64, 32, 128),
      trustedProxies: list(env, 'SIGNET_TRUSTED_PROXIES'),
      maxBodyBytes: int(env, 'SIGNET_MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      allowedOrigins: list(env, 'SIGNET_ALLOWED_ORIGINS'),
      allowedHosts: list(env, 'SIGNET_ALLOWED_HOSTS'),
      requestTimeoutMs: int(env, 'SIGNET_REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
      headersTimeoutMs: int(env, 'SIGNET_HEADERS_TIMEOUT_MS', 10_000, 1000, 600_000),
      keepAliveTimeoutMs: int(env, 'SIGNET_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1000, 600_000),
      shutdownTimeoutMs: int(env, 'SIGNET_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
      shutdownDelayMs: int(env, 'SIGNET_SHUTDOWN_DELAY_MS', 1000, 0, 60_000),
      redisUrl: redis || null,
      metricsPort: env['SIGNET_METRICS_PORT'] ? int(env, 'SIGNET_METRICS_PORT', 0, 0, 65535) : null,
      metricsHost: env['SIGNET_METRICS_HOST'] || env['SIGNET_HTTP_HOST'] || '127.0.0.1',
    },
  };
}
