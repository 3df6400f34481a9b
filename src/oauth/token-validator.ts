// Validates an OAuth 2.1 access token for this resource: an RFC 9068 JWT, signed by the
// configured issuer with a key from its JWKS, for this resource (RFC 8707 audience), in its
// time window. What the proxy does with the answer is in transports/token-verifier.
//
// - Keys: the issuer's JWKS as issuer-keys.ts keeps it (the last good set survives an outage;
//   an unknown `kid` refetches at most once per cooldown; a failed fetch is 503 with backoff).
//   Only keys from the issuer's jwks_uri are used: a token's own `jwk`, `jku`, `x5u` or `x5c`
//   header is refused, never followed.
// - Algorithms: an explicit allow-list of asymmetric ones; `none` and HS* (the public key
//   taken as an HMAC secret) are refused before any key is looked at.
// - Claims: `iss` exact, `aud` containing the resource (or a configured extra audience),
//   `exp` required, `nbf` and `iat` checked, all with a small leeway; `typ` at+jwt (RFC 9068
//   §4) or, for providers that issue plain JWTs, JWT or none, but never an ID token (pen test
//   L3: `nonce`, `at_hash`, `c_hash`, or Keycloak's `typ: ID`); `sub` a string (RFC 7519 §4.1.2).
// - Decisions are cached by the token's SHA-256 (never the token): a valid one until it expires,
//   so the signature of a token in use is checked once, a refusal for a short while (a replayed
//   forgery costs a lookup, not a signature check). A refusal for a kid the issuer's keys lack is
//   kept only until the keys may be fetched again: the kid may be a key the issuer just published.
import { hash } from 'node:crypto';
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import { createLogger } from '../log.js';
import { SCOPE_TOKEN } from '../shared/edge-contract.js';
import { IssuerKeys, KeysUnavailable } from './issuer-keys.js';

export interface TokenValidatorOptions {
  issuer: string;
  jwksUri: URL;
  /** SIGNET_OAUTH_RESOURCE plus SIGNET_OAUTH_AUDIENCES: `aud` must contain one of these. */
  audiences: readonly string[];
  /** SIGNET_OAUTH_ALGORITHMS. */
  algorithms: readonly string[];
  /** SIGNET_OAUTH_CLOCK_LEEWAY_SECONDS. */
  leewaySeconds: number;
  /** SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS: the least time between two key fetches for an unknown kid. */
  jwksCooldownSeconds: number;
  /** SIGNET_OAUTH_JWKS_REFRESH_SECONDS: how often the keys are fetched again in the background. */
  jwksRefreshSeconds?: number;
  /** The key set to use (the auth check's, which logs); built from jwksUri otherwise. */
  keys?: IssuerKeys;
  /** Decisions kept (by token digest) until the token expires. */
  cacheEntries?: number;
}

export interface Validated {
  iss: string;
  sub: string;
  /** client_id (RFC 9068 §2.2) or azp; '' when neither. */
  client: string;
  scopes: string[];
  /** Seconds since the epoch. */
  exp: number;
}

export type Refusal = { ok: false; error: 'invalid_token'; description: string };
export type Accepted = { ok: true } & Validated;
export type Decision = Accepted | Refusal;

const FOREIGN_KEY_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;
const ACCEPTED_TYP = new Set(['at+jwt', 'application/at+jwt', 'jwt']);
/** Claims only ID tokens carry (OpenID Connect Core §2, §3.1.3.6, §3.3.2.11). */
const ID_TOKEN_CLAIMS = ['nonce', 'at_hash', 'c_hash', 's_hash'] as const;
const SCOPE = new RegExp(SCOPE_TOKEN.js);
const MAX_SUB = 512;
/** How long a refusal is remembered (by the token's digest). */
const REFUSAL_TTL_MS = 30_000;

const refuse = (description: string): Refusal => ({ ok: false, error: 'invalid_token', description });
/** The one refusal for a kid the issuer's keys lack (remembered only until the next fetch may be made). */
const NO_MATCHING_KEY: Refusal = Object.freeze(refuse('no key of the issuer matches the token (kid)'));

/** Why jose refused, in words fit for an error_description (never the token). */
function describe(e: unknown): string {
  if (e instanceof errors.JWTExpired) return 'the token has expired';
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return 'the token is for another resource (aud)';
    if (e.claim === 'iss') return 'the token is from another issuer (iss)';
    if (e.claim === 'nbf') return 'the token is not valid yet (nbf)';
    if (e.claim === 'iat') return 'the token is issued in the future (iat)';
    return `the token's ${e.claim} claim is not acceptable`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not verify';
  if (e instanceof errors.JOSEAlgNotAllowed) return 'the token algorithm is not allowed';
  if (e instanceof errors.JWTInvalid || e instanceof errors.JWSInvalid) return 'the token is not a well-formed JWT';
  return 'the token cannot be validated';
}

export class TokenValidator {
  readonly #o: TokenValidatorOptions;
  readonly #keys: IssuerKeys;
  readonly #cache: LRUCache<string, Accepted>;
  readonly #refused: LRUCache<string, Refusal>;
  readonly #algorithms: Set<string>;

  constructor(options: TokenValidatorOptions) {
    this.#o = options;
    this.#algorithms = new Set(options.algorithms);
    this.#keys =
      options.keys ??
      new IssuerKeys({
        jwksUri: options.jwksUri,
        cooldownSeconds: options.jwksCooldownSeconds,
        refreshSeconds: options.jwksRefreshSeconds ?? 600,
        log: createLogger('silent'),
      });
    this.#cache = new LRUCache({ max: options.cacheEntries ?? 10_000 });
    this.#refused = new LRUCache({ max: options.cacheEntries ?? 10_000, ttl: REFUSAL_TTL_MS });
  }

  /** True once the issuer's keys were fetched at least once (what /healthz reports). */
  get keysLoaded(): boolean {
    return this.#keys.loaded;
  }

  /** Fetches the keys now (at start-up, so the first call does not wait); throws while the issuer cannot be reached. */
  async warm(): Promise<void> {
    await this.#keys.load();
  }

  /**
   * The decision already known for this token (valid and unexpired, or refused a moment ago),
   * without any check. An acceptance is the same object for every call with the token (never
   * mutate it): a caller may keep what it derives from one, keyed by it.
   */
  known(token: string): Decision | undefined {
    return this.#accepted(token) ?? this.#refused.get(hash('sha256', token, 'base64url'));
  }

  // Acceptances are kept by the token itself, as Envoy's jwt_authn cache keeps them: a token in
  // use costs a map lookup and no hash (OpenSSL's SHA-256 of a JWT was the largest share of the
  // check's CPU). Only tokens the issuer signed get there, up to cacheEntries of them. Refusals
  // stay keyed by the digest: a flood of made-up 16 KiB tokens must not be kept whole.
  #accepted(token: string): Decision | undefined {
    const hit = this.#cache.get(token);
    if (hit === undefined) return undefined;
    if (hit.exp + this.#o.leewaySeconds > Math.floor(Date.now() / 1000)) return hit;
    this.#cache.delete(token);
    return refuse('the token has expired');
  }

  /** Checks a token; throws KeysUnavailable when the issuer's keys cannot be had (503, not the token's fault). */
  async validate(token: string): Promise<Decision> {
    const accepted = this.#accepted(token);
    if (accepted !== undefined) return accepted;
    const digest = hash('sha256', token, 'base64url');
    const refused = this.#refused.get(digest);
    if (refused !== undefined) return refused;
    const d = await this.#check(token);
    if (d.ok) this.#cache.set(token, d, { ttl: Math.max(1, (d.exp - Math.floor(Date.now() / 1000)) * 1000) });
    else if (d !== NO_MATCHING_KEY) this.#refused.set(digest, d);
    else {
      const ttl = Math.min(REFUSAL_TTL_MS, this.#keys.nextFetchAt - Date.now());
      if (ttl >= 1) this.#refused.set(digest, d, { ttl });
    }
    return d;
  }

  async #check(token: string): Promise<Decision> {
    const now = Math.floor(Date.now() / 1000);
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return refuse('the token is not a well-formed JWT');
    }
    if (typeof header.alg !== 'string' || !this.#algorithms.has(header.alg)) return refuse('the token algorithm is not allowed');
    for (const h of FOREIGN_KEY_HEADERS) {
      if (h in header) return refuse(`the token names its own key (${h}); only the issuer's published keys are used`);
    }
    if (header.typ !== undefined && !ACCEPTED_TYP.has(String(header.typ).toLowerCase())) {
      return refuse('the token is not an access token (typ)');
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys.getKey, {
        issuer: this.#o.issuer,
        audience: [...this.#o.audiences],
        algorithms: [...this.#algorithms],
        clockTolerance: this.#o.leewaySeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      if (e instanceof KeysUnavailable || e instanceof errors.JWKSTimeout || (e instanceof Error && !(e instanceof errors.JOSEError)))
        throw e;
      return e instanceof errors.JWKSNoMatchingKey ? NO_MATCHING_KEY : refuse(describe(e));
    }
    if (typeof payload.iat === 'number' && payload.iat > now + this.#o.leewaySeconds)
      return refuse('the token is issued in the future (iat)');
    // An ID token says who signed in to a client; it grants nothing at a resource (RFC 9068 §1).
    if (ID_TOKEN_CLAIMS.some((c) => c in payload) || payload['typ'] === 'ID')
      return refuse('the token is an ID token, not an access token');
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > MAX_SUB)
      return refuse(`the token's sub is not a string of 1 to ${MAX_SUB} characters`);
    // The client: client_id (RFC 9068), azp (OpenID, Entra ID v2), cid (Okta), appid (Entra ID v1).
    const client =
      [payload['client_id'], payload['azp'], payload['cid'], payload['appid']].find((c): c is string => typeof c === 'string') ?? '';
    // Scopes: `scope` (RFC 9068, Auth0, Keycloak), or `scp` as a string (Entra ID) or an array (Okta).
    const scope = typeof payload['scope'] === 'string' ? payload['scope'] : '';
    const rawScp = payload['scp'];
    const scp =
      typeof rawScp === 'string'
        ? rawScp.split(' ')
        : Array.isArray(rawScp)
          ? rawScp.filter((s): s is string => typeof s === 'string')
          : [];
    // Only RFC 6749 scope tokens: anything else (a control character) is dropped, never forwarded.
    const validated: Validated = {
      iss: this.#o.issuer,
      sub: payload.sub,
      client,
      scopes: [...new Set([...scope.split(' '), ...scp])].filter((s) => SCOPE.test(s)),
      exp: payload.exp as number,
    };
    return { ok: true, ...validated };
  }
}
