// The auth check's Prometheus metrics (served like the server's, on SIGNET_METRICS_PORT):
// what it answered, and the API keys' expiry (issue 29: a metric per key id, and how many keys
// expire within SIGNET_KEY_EXPIRY_WARNING_DAYS). Labels are bounded: kinds, states, key ids.
// Nothing here costs an answer more than an addition: answers are counted as plain numbers,
// handed to the counter when Prometheus scrapes, and the process metrics (CPU, memory, event
// loop, GC observers) start at the first scrape, so without a metrics listener they never run.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { KeySet } from '../../api-keys/key-set.js';
import { statusOf } from '../../api-keys/store.js';
import type { AuthState } from '../../shared/edge-contract.js';

export type CredentialKind = 'key' | 'token' | 'none';

/** One kind and state's count of answers. */
export interface AnswerCount {
  readonly kind: CredentialKind;
  readonly state: AuthState;
  n: number;
}

/** A registry that starts the process metrics when it is first scraped. */
class ScrapedRegistry extends Registry {
  #started = false;

  override metrics(): Promise<string> {
    if (!this.#started) {
      this.#started = true;
      collectDefaultMetrics({ register: this, prefix: 'signet_auth_' });
    }
    return super.metrics();
  }
}

export class AuthCheckMetrics {
  readonly registry: Registry = new ScrapedRegistry();
  readonly #answers = new Map<string, AnswerCount>();
  readonly #unauthenticated = { n: 0 };

  constructor(keys: KeySet | null, warningDays: number) {
    const answers = this.#answers;
    new Counter({
      name: 'signet_auth_checks_total',
      help: 'Answers of the auth check, by credential kind (key, token, none) and state (ok, a refusal, limited, unavailable)',
      labelNames: ['kind', 'state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const a of answers.values()) if (a.n > 0) this.inc({ kind: a.kind, state: a.state }, a.n);
      },
    });
    const unauthenticated = this.#unauthenticated;
    new Counter({
      name: 'signet_auth_unauthenticated_requests_total',
      help: 'Requests to the auth check without the proxy secret (refused with 403)',
      registers: [this.registry],
      collect() {
        this.reset();
        if (unauthenticated.n > 0) this.inc(unauthenticated.n);
      },
    });
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

  /** The count of one kind and state of answer, to add to as they are given (bound once per pair). */
  answers(kind: CredentialKind, state: AuthState): AnswerCount {
    const key = `${kind}:${state}`;
    let a = this.#answers.get(key);
    if (a === undefined) this.#answers.set(key, (a = { kind, state, n: 0 }));
    return a;
  }

  /** One request without the proxy secret. */
  unauthenticated(): void {
    this.#unauthenticated.n++;
  }
}
