import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../log.js';
import { Metrics } from '../../../metrics.js';
import { memoryStore, redisStore } from './store.js';

describe('limiter stores', () => {
  it('memory: a policy per budget, none for 0 (off)', async () => {
    const store = memoryStore();
    expect(store.policy('calls', 0)).toBeNull();
    const p = store.policy('calls', 2)!;
    await p.limiter.consume('a');
    await p.limiter.consume('a');
    await expect(p.limiter.consume('a')).rejects.toMatchObject({ remainingPoints: 0 });
    await expect(p.limiter.consume('b')).resolves.toMatchObject({ remainingPoints: 1 });
  });

  it('redis, unreachable: the insurance limiter answers (never a 5xx), enforces the limit, and is counted', async () => {
    const metrics = new Metrics({ processMetrics: false });
    // Nothing listens on port 1: Redis is down from the start.
    const store = redisStore('redis://127.0.0.1:1', createLogger('silent'), metrics, { timeoutMs: 200 });
    try {
      const p = store.policy('calls', 2)!;
      await expect(p.limiter.consume('c')).resolves.toBeDefined();
      await expect(p.limiter.consume('c')).resolves.toBeDefined();
      await expect(p.limiter.consume('c')).rejects.toMatchObject({ remainingPoints: 0 });
      expect(await metrics.registry.getSingleMetricAsString('signet_rate_limiter_store_errors_total')).toMatch(/handled_by="insurance"} 3/);
    } finally {
      await store.close();
    }
  });
});
