// The compose stack without the `scale` profile (issue 28, the edge's ops papercuts): signet is
// given SIGNET_REDIS_URL=redis://redis:6379, but no redis service runs, so the name does not
// resolve. One replica limiting in memory is the intended shape there, not a fault: its log says
// so once, at info, and neither start-up nor a run of calls writes a warning or an error.
import { afterAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest, rpc, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

describe('signet with SIGNET_REDIS_URL naming a Redis that is not there (compose without the scale profile)', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('says so once at info, and writes no warning or error at start or under calls', async () => {
    const dir = tempDir('signet-redis-absent-');
    server = await startHttpServer({
      SIGNET_DATA_DIR: `${dir}/data`,
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      // `redis` resolves only on the compose network, and only with the profile.
      SIGNET_REDIS_URL: 'redis://redis.invalid:6379',
      SIGNET_RATE_LIMIT_PER_MINUTE: '1000',
    });
    const s = server;
    const said = await s.waitForLog((l) => String(l['msg']).startsWith('rate limiter store (redis) unreachable'), 10_000);
    expect(said['level']).toBe('info');
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await rawRequest(s.url, {
        headers: JSON_HEADERS,
        body: rpc('tools/call', { name: 'doctrine_get', arguments: { id: 'RATE-001' } }, i),
      });
      statuses.push(r.status);
    }
    expect(statuses.every((st) => st === 200)).toBe(true);
    // ioredis retried in the background meanwhile (after 0.2, 0.4, 0.8 s, …), each time failing.
    // The log arrives on its own pipe: the last call's line says it is complete up to here.
    const requestLines = () => s.logLines().filter((l) => l['msg'] === 'mcp request').length;
    await s.waitForLog(() => requestLines() >= 100);
    const lines = s.logLines();
    const loud = lines.filter((l) => l['level'] !== 'info' && l['level'] !== 'debug');
    expect(loud, JSON.stringify(loud)).toEqual([]);
    expect(lines.filter((l) => /redis/i.test(String(l['msg']))).map((l) => l['msg'])).toEqual([
      'rate limiter store (redis) unreachable: each replica limits on its own until it returns',
    ]);
  }, 30_000);
});
