// Where rate-limit counters live. Default: this process's memory. With SIGNET_REDIS_URL:
// Redis, shared by every replica, with an in-memory insurance limiter per replica that
// answers while Redis is unreachable or silent (so an outage never turns into 5xx or a hang).
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from '../../../log.js';
import type { Metrics } from '../../../metrics.js';
import type { Policy } from './policy.js';

/** What answers the limits now: this process alone, Redis, or the insurance limiter while Redis cannot. */
export type LimiterState = 'memory' | 'redis' | 'redis_unreachable';

export interface LimiterStore {
  policy(name: Policy['name'], perMinute: number): Policy | null;
  state(): LimiterState;
  close(): Promise<void>;
}

export function memoryStore(): LimiterStore {
  return {
    policy: (name, perMinute) =>
      perMinute > 0
        ? { name, perMinute, limiter: new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: `signet:${name}` }) }
        : null,
    state: () => 'memory',
    close: async () => {},
  };
}

/** Answers in Redis's place; `onFallback` hears each time it had to (Redis not ready, failing or silent). */
class InsuranceLimiter extends RateLimiterMemory {
  onFallback: (() => void) | null = null;
  override consume(...args: Parameters<RateLimiterMemory['consume']>): ReturnType<RateLimiterMemory['consume']> {
    this.onFallback?.();
    return super.consume(...args);
  }
}

export interface RedisStoreOptions {
  /** SIGNET_REDIS_PASSWORD_FILE's password, when set (the URL then carries none). */
  password?: string | undefined;
  /** SIGNET_REDIS_TIMEOUT_MS: a command with no answer by then fails, and the insurance limiter answers. */
  timeoutMs: number;
}

export function redisStore(url: string, log: Logger, metrics: Metrics | null, options: RedisStoreOptions): LimiterStore {
  const client = new Redis(url, {
    ...(options.password === undefined ? {} : { password: options.password }),
    // Fail fast while disconnected: the insurance limiter answers instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    // A Redis that stops answering (paused, its packets dropped) leaves the connection open and
    // every command waiting: each one fails after the bound instead (pen test M4 of issue 26:
    // every call waited 60 s for the proxy's 503), the ready check of a reconnection too.
    commandTimeout: options.timeoutMs,
    keepAlive: 1000,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 5000),
  });
  let state: 'connecting' | 'ready' | 'down' = 'connecting';
  let everReady = false;
  const report = (next: typeof state, detail?: string) => {
    if (next === state) return;
    const was = state;
    state = next;
    if (next === 'ready') {
      everReady = true;
      log.info('rate limiter store (redis) ready: limits are shared by all replicas');
    } else if (everReady || was === 'ready') {
      log.warn({ detail }, 'rate limiter store (redis) unreachable: each replica limits on its own until it returns');
    } else {
      // Never reached yet (e.g. the compose stack without the scale profile): one process,
      // one in-memory limiter, which is what the insurance limiter is.
      log.info({ detail }, 'rate limiter store (redis) unreachable: each replica limits on its own until it returns');
    }
  };
  client.on('ready', () => report('ready'));
  client.on('error', (err: Error & { code?: string }) => report('down', err.code ?? err.message));
  client.on('end', () => report('down', 'connection closed'));
  // A command failed on a connection that looked ready: a silent Redis. Drop that connection
  // and reconnect, so that until Redis answers again every limit is the insurance limiter's at
  // once (rejectIfRedisNotReady), never one more timeout per request.
  const onFallback = () => {
    metrics?.limiterStoreErrors.inc({ handled_by: 'insurance' });
    if (client.status !== 'ready') return;
    report('down', `no answer within ${options.timeoutMs} ms`);
    client.disconnect(true);
  };
  const insurance = (perMinute: number, name: string) => {
    const limiter = new InsuranceLimiter({ points: perMinute, duration: 60, keyPrefix: `signet:insurance:${name}` });
    limiter.onFallback = onFallback;
    return limiter;
  };
  return {
    policy: (name, perMinute) =>
      perMinute > 0
        ? {
            name,
            perMinute,
            limiter: new RateLimiterRedis({
              storeClient: client,
              points: perMinute,
              duration: 60,
              keyPrefix: `signet:${name}`,
              rejectIfRedisNotReady: true,
              insuranceLimiter: insurance(perMinute, name),
            }),
          }
        : null,
    state: () => (state === 'ready' ? 'redis' : 'redis_unreachable'),
    close: async () => {
      client.disconnect();
    },
  };
}
