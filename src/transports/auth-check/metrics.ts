// The auth check's Prometheus metrics (served like the server's, on SIGNET_METRICS_PORT):
// what it answered, and the API keys' expiry (issue 29: a metric per key id, and how many keys
// expire within SIGNET_KEY_EXPIRY_WARNING_DAYS). Labels are bounded: kinds, states, key ids.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { KeySet } from '../../api-keys/key-set.js';
import { statusOf } from '../../api-keys/store.js';

export class AuthCheckMetrics {
  readonly registry = new Registry();
  readonly checks = new Counter({
    name: 'signet_auth_checks_total',
    help: 'Answers of the auth check, by credential kind (key, token, none) and state (ok, a refusal, limited, unavailable)',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });
  readonly unauthenticated = new Counter({
    name: 'signet_auth_unauthenticated_requests_total',
    help: 'Requests to the auth check without the proxy secret (refused with 403)',
    registers: [this.registry],
  });

  constructor(keys: KeySet | null, warningDays: number) {
    collectDefaultMetrics({ register: this.registry, prefix: 'signet_auth_' });
    if (keys === null) return;
    const active = () => keys.records().filter((k) => k.expires_at !== null && statusOf(k, Date.now()) === 'active');
    new Gauge({
      name: 'signet_api_key_expiry_timestamp_seconds',
      help: 'When each active API key with a lifetime expires (seconds since the epoch), by key id',
      labelNames: ['key_id'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const k of active()) this.set({ key_id: k.id }, Date.parse(k.expires_at!) / 1000);
      },
    });
    new Gauge({
      name: 'signet_api_keys_expiring',
      help: `Active API keys that expire within SIGNET_KEY_EXPIRY_WARNING_DAYS (${warningDays} days)`,
      registers: [this.registry],
      collect() {
        const until = Date.now() + warningDays * 86_400_000;
        this.set(active().filter((k) => Date.parse(k.expires_at!) <= until).length);
      },
    });
  }
}
