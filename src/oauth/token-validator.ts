// Validates an OAuth 2.1 access token for this resource: an RFC 9068 JWT, signed by the
// configured issuer with a key from its JWKS, for this resource (RFC 8707 audience), in its
// time window. What the proxy does with the answer is in transports/token-verifier.
//
// - Keys: jose's remote JWKS, cached; an unknown `kid` refetches at most once per cooldown
//   (30 s), so a flood of made-up kids cannot hammer the issuer; concurrent lookups share
//   one fetch. Only keys from the issuer's jwks_uri are used: a token's own `jwk`, `jku`,
//   `x5u` or `x5c` header is refused, never followed.
// - Algorithms: an explicit allow-list of asymmetric ones; `none` and HS* (the public key
//   taken as an HMAC secret) are refused before any key is looked at.
// - Claims: `iss` exact, `aud` containing the resource (or a configured extra audience),
//   `exp` required, `nbf` and `iat` checked, all with a small leeway; `typ` at+jwt (RFC 9068
//   §4) or, for providers that issue plain JWTs, JWT or none.
// - Decisions are cached by the token's SHA-256 (never the token) until it expires, so the
//   signature of a token in use is checked once, not on every call.
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';

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
export type Decision = ({ ok: true } & Validated) | Refusal;

const FOREIGN_KEY_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;
const ACCEPTED_TYP = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

const refuse = (description: string): Refusal => ({ ok: false, error: 'invalid_token', description });

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
  if (e instanceof errors.JWKSNoMatchingKey) return 'no key of the issuer matches the token (kid)';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not verify';
  if (e instanceof errors.JOSEAlgNotAllowed) return 'the token algorithm is not allowed';
  if (e instanceof errors.JWTInvalid || e instanceof errors.JWSInvalid) return 'the token is not a well-formed JWT';
  return 'the token cannot be validated';
}

export class TokenValidator {
  readonly #o: TokenValidatorOptions;
  readonly #keys: ReturnType<typeof createRemoteJWKSet>;
  readonly #cache: LRUCache<string, Validated>;
  readonly #algorithms: Set<string>;

  constructor(options: TokenValidatorOptions) {
    this.#o = options;
    this.#algorithms = new Set(options.algorithms);
    this.#keys = createRemoteJWKSet(options.jwksUri, {
      cooldownDuration: options.jwksCooldownSeconds * 1000,
      cacheMaxAge: 10 * 60 * 1000,
      timeoutDuration: 5000,
    });
    this.#cache = new LRUCache({ max: options.cacheEntries ?? 10_000 });
  }

  /** True once the issuer's keys were fetched at least once (what /readyz reports). */
  get keysLoaded(): boolean {
    return this.#keys.fresh || this.#keys.jwks() !== undefined;
  }

  /** Fetches the keys now (at start-up, so the first call does not wait). */
  async warm(): Promise<void> {
    await this.#keys.reload();
  }

  async validate(token: string): Promise<Decision> {
    const digest = createHash('sha256').update(token).digest('base64url');
    const now = Math.floor(Date.now() / 1000);
    const hit = this.#cache.get(digest);
    if (hit !== undefined) {
      if (hit.exp + this.#o.leewaySeconds > now) return { ok: true, ...hit };
      this.#cache.delete(digest);
      return refuse('the token has expired');
    }
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
      ({ payload } = await jwtVerify(token, this.#keys, {
        issuer: this.#o.issuer,
        audience: [...this.#o.audiences],
        algorithms: [...this.#algorithms],
        clockTolerance: this.#o.leewaySeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      if (e instanceof errors.JWKSTimeout || (e instanceof Error && !(e instanceof errors.JOSEError))) throw e;
      return refuse(describe(e));
    }
    if (typeof payload.iat === 'number' && payload.iat > now + this.#o.leewaySeconds)
      return refuse('the token is issued in the future (iat)');
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
    const validated: Validated = {
      iss: this.#o.issuer,
      sub: String(payload.sub),
      client,
      scopes: [...new Set([...scope.split(' ').filter((s) => s.length > 0), ...scp])],
      exp: payload.exp as number,
    };
    this.#cache.set(digest, validated, { ttl: Math.max(1, (validated.exp - now) * 1000) });
    return { ok: true, ...validated };
  }
}
