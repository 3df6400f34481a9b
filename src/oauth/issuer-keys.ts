// The issuer's signing keys (its JWKS), kept so that an outage of the issuer never refuses a
// good token (pen test M6). jose's remote key set re-fetches once its cache is old and throws
// when that fails, dropping the keys it had; here:
// - the last good key set is kept until a fetch brings a new one; a failed fetch never empties it;
// - keys are refreshed in the background (SIGNET_OAUTH_JWKS_REFRESH_SECONDS), never by a request
//   for a kid the set has;
// - a kid the set lacks (rotation at the issuer, or a forgery) fetches at most once per cooldown
//   (SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS); requests meanwhile share that one fetch;
// - a failed fetch is an outage, not a bad token: the caller answers 503, and the next fetch
//   waits a backoff that doubles (cooldown, 2×, … up to 5 minutes) until the issuer answers again.
// jose still does every cryptographic check, on a local key set built from the fetched JWKS.
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '../log.js';
import { getJson } from './http-json.js';

export interface IssuerKeysOptions {
  jwksUri: URL;
  cooldownSeconds: number;
  refreshSeconds: number;
  timeoutMs?: number;
  ca?: string | undefined;
  log: Logger;
}

/** The issuer's keys cannot be had right now: an outage (503), never the token's fault. */
export class KeysUnavailable extends Error {}

const MAX_BACKOFF_MS = 5 * 60_000;

export class IssuerKeys {
  readonly #o: IssuerKeysOptions;
  #local: ReturnType<typeof createLocalJWKSet> | null = null;
  #kids = new Set<string | undefined>();
  #lastAttempt = 0;
  #lastFailed = false;
  #backoffMs: number;
  #pending: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #fetches = 0;

  constructor(options: IssuerKeysOptions) {
    this.#o = options;
    this.#backoffMs = options.cooldownSeconds * 1000;
  }

  get loaded(): boolean {
    return this.#local !== null;
  }

  /**
   * When a token whose kid the set lacks may fetch the keys again (ms since the epoch): a refusal
   * for such a kid holds only until then (a rotation at the issuer is seen at the next fetch).
   */
  get nextFetchAt(): number {
    return this.#lastAttempt + (this.#lastFailed ? this.#backoffMs : this.#o.cooldownSeconds * 1000);
  }

  /** Fetches made so far (tests and the start-up line). */
  get fetches(): number {
    return this.#fetches;
  }

  /** The first fetch; throws when the issuer cannot be reached (the caller retries). Then refreshes in the background. */
  async load(): Promise<void> {
    await this.#fetch();
    if (this.#lastFailed) throw new KeysUnavailable('the JWKS could not be fetched');
    this.#schedule(this.#o.refreshSeconds * 1000);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  /** For jose's jwtVerify: the key for a token's header, fetching once per cooldown for a kid the set lacks. */
  readonly getKey: JWTVerifyGetKey = async (header: JWSHeaderParameters, token) => {
    if (this.#local === null || !this.#kids.has(header.kid)) {
      const since = Date.now() - this.#lastAttempt;
      const wait = this.#lastFailed ? this.#backoffMs : this.#o.cooldownSeconds * 1000;
      if (since >= wait || this.#pending) {
        await (this.#pending ?? this.#fetch());
        if (this.#lastFailed) throw new KeysUnavailable('the JWKS could not be fetched');
      } else if (this.#lastFailed) throw new KeysUnavailable('the JWKS could not be fetched (backing off)');
    }
    if (this.#local === null) throw new KeysUnavailable('the issuer keys were never fetched');
    return this.#local(header, token);
  };

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      void this.#fetch().then(() =>
        this.#schedule(this.#lastFailed ? Math.min(this.#backoffMs, this.#o.refreshSeconds * 1000) : this.#o.refreshSeconds * 1000),
      );
    }, ms);
    this.#timer.unref();
  }

  #fetch(): Promise<void> {
    this.#pending ??= (async () => {
      this.#lastAttempt = Date.now();
      this.#fetches++;
      try {
        const jwks = (await getJson(this.#o.jwksUri, { timeoutMs: this.#o.timeoutMs ?? 5000, ca: this.#o.ca })) as JSONWebKeySet;
        if (!jwks || !Array.isArray(jwks.keys)) throw new Error('the document has no "keys" array');
        const local = createLocalJWKSet(jwks);
        this.#local = local;
        this.#kids = new Set(jwks.keys.map((k) => (typeof k.kid === 'string' ? k.kid : undefined)));
        if (this.#lastFailed) this.#o.log.info({ jwks_uri: this.#o.jwksUri.href }, 'issuer keys fetched again');
        this.#lastFailed = false;
        this.#backoffMs = this.#o.cooldownSeconds * 1000;
      } catch (e) {
        if (this.#lastFailed) this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
        this.#lastFailed = true;
        this.#o.log.warn(
          { jwks_uri: this.#o.jwksUri.href, err: (e as Error).message, retry_after_ms: this.#backoffMs, keys_kept: this.#local !== null },
          'issuer keys could not be fetched; the last good keys stay in use',
        );
      } finally {
        this.#pending = null;
      }
    })();
    return this.#pending;
  }
}

/** jose errors that say the token is bad, as opposed to the keys being unavailable. */
export const isTokenError = (e: unknown): boolean => e instanceof errors.JOSEError && !(e instanceof errors.JWKSTimeout);
