// The refused-credential limit (pen test M5), kept where the credentials are checked so it can
// apply before the expensive part: each client address bucket (IPv6 cut to its prefix, as the
// server buckets its own limits) may have SIGNET_PROXY_AUTH_FAILURES_BURST credentials refused at
// once, then SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE; past that a new token is answered 429 without
// its signature being checked. nginx's limit_req with burst and nodelay behaves the same way (the
// static-key proxy, which has no auth check, keeps using it).
import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  at: number;
}

export class RefusalLimit {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #buckets = new LRUCache<string, Bucket>({ max: 100_000 });

  constructor(perMinute: number, burst: number) {
    // The burst plus the one the rate allows at once (nginx: burst=N nodelay lets N + 1 through).
    this.#capacity = burst + 1;
    this.#perMs = perMinute / 60_000;
  }

  #bucket(key: string, now: number): Bucket {
    const b = this.#buckets.get(key);
    if (b === undefined) {
      const fresh = { tokens: this.#capacity, at: now };
      this.#buckets.set(key, fresh);
      return fresh;
    }
    b.tokens = Math.min(this.#capacity, b.tokens + (now - b.at) * this.#perMs);
    b.at = now;
    return b;
  }

  /** True when this address may have no more credentials refused right now. */
  exhausted(key: string, now = Date.now()): boolean {
    return this.#bucket(key, now).tokens < 1;
  }

  /** Spends one refusal; false when none was left (the answer is then 429). */
  take(key: string, now = Date.now()): boolean {
    const b = this.#bucket(key, now);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Gives back a refusal taken before a check that then succeeded (or could not be made). */
  give(key: string): void {
    const b = this.#buckets.get(key);
    if (b) b.tokens = Math.min(this.#capacity, b.tokens + 1);
  }
}
