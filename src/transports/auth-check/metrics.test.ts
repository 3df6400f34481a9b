// The auth check's metrics cost an answer one addition: answers are counted as numbers and handed
// to Prometheus at the scrape, and the process metrics start at the first scrape (none without a
// metrics listener).
import { describe, expect, it } from 'vitest';
import { AuthCheckMetrics } from './metrics.js';

describe('AuthCheckMetrics', () => {
  it('starts the process metrics at the first scrape, not before', async () => {
    const m = new AuthCheckMetrics(null, 14);
    expect(m.registry.getSingleMetric('signet_auth_process_cpu_user_seconds_total')).toBeUndefined();
    expect(await m.registry.metrics()).toMatch(/^signet_auth_process_cpu_user_seconds_total \d/m);
    // Once: a second scrape registers nothing twice (prom-client would throw).
    expect(await m.registry.metrics()).toMatch(/^signet_auth_nodejs_eventloop_lag_seconds /m);
  });

  it('reports the answers counted, by kind and state, and the requests without the proxy secret', async () => {
    const m = new AuthCheckMetrics(null, 14);
    const ok = m.answers('key', 'ok');
    expect(m.answers('key', 'ok')).toBe(ok);
    ok.n += 3;
    m.answers('none', 'missing').n++;
    m.unauthenticated();
    const first = await m.registry.metrics();
    expect(first).toContain('signet_auth_checks_total{kind="key",state="ok"} 3');
    expect(first).toContain('signet_auth_checks_total{kind="none",state="missing"} 1');
    expect(first).not.toContain('kind="token"');
    expect(first).toMatch(/^signet_auth_unauthenticated_requests_total 1$/m);
    ok.n++;
    expect(await m.registry.metrics()).toContain('signet_auth_checks_total{kind="key",state="ok"} 4');
  });
});
