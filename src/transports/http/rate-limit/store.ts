// Where rate-limit counters live. Default: this process's memory. With SIGNET_REDIS_URL:
// Redis, shared by every replica, with an in-memory insurance limiter per replica that
// answers while Redis is unreachable (so an outage never turns into 5xx).
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from '../../../log.js';
import type { Metrics } from '../../../metrics.js';
import type { Policy } from './policy.js';

export interface LimiterStore {
  policy(name: Policy['name'], perMinute: number): Policy | null;
  close(): Promise<void>;
}

export function memoryStore(): LimiterStore {
  return {
    policy: (name, perMinute) =>
      perMinute > 0
        ? { name, perMinute, limiter: new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: `signet:${name}` }) }
        : null,
    close: async () => {},
  };
}

/** Counts consumes answered by the insurance limiter (Redis not ready or failing), when metrics are on. */
class InsuranceLimiter extends RateLimiterMemory {
  onConsume: (() => void) | null = null;
  override consume(...args: Parameters<RateLimiterMemory['consume']>): ReturnType<RateLimiterMemory['consume']> {
    this.onConsume?.();
    return super.consume(...args);
  }
}

export function redisStore(url: string, log: Logger, metrics: Metrics | null = null, password?: string): LimiterStore {
  const insurance = (perMinute: number, name: string) => {
    const limiter = new InsuranceLimiter({ points: perMinute, duration: 60, keyPrefix: `signet:insurance:${name}` });
    if (metrics) limiter.onConsume = () => metrics.limiterStoreErrors.inc({ handled_by: 'insurance' });
    return limiter;
  };
  const client = new Redis(url, {
    // SIGNET_REDIS_PASSWORD_FILE's, when set (the URL then carries none).
    ...(password === undefined ? {} : { password }),
    // Fail fast while disconnected: the insurance limiter answers instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
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
    close: async () => {
      client.disconnect();
    },
  };
}
