// Who is calling: a request id, the client's address and the API key id the proxy vouches for.
// The proxy proves itself with a per-deployment secret (SIGNET_PROXY_SECRET_FILE) in
// X-Signet-Proxy-Auth, never by its address alone: on a Docker network the host holds the
// gateway address, and in a cluster any pod a NetworkPolicy misses shares the proxy's range.
// Only an authenticated proxy may name the client (X-Forwarded-For), the request
// (X-Request-Id) or the principal (X-Signet-Key-Id for an API key, X-Signet-Principal and
// X-Signet-Scopes for an OAuth token). With a secret configured, a request without it is
// refused: nothing but the proxy may call.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { BlockList } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { EDGE_HEADERS } from '../../../shared/edge-contract.js';
import { clientIp, isTrusted } from '../client-ip.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { PRINCIPAL_HEADER, parseSubject, SCOPES_HEADER } from '../oauth/principal-header.js';
import { refusal, SERVER_ERROR } from '../responses.js';

/** The header the reference proxy sets (overwriting any client's) to the deployment's secret. */
export const PROXY_AUTH_HEADER = EDGE_HEADERS.proxyAuth.toLowerCase();

export interface RequestIdentityOptions {
  /** The proxy secret (SIGNET_PROXY_SECRET_FILE's content); null = no proxy: identity headers are never read. */
  proxySecret: string | null;
  /** SIGNET_TRUSTED_PROXIES, parsed: when set, the proxy must also connect from there; null = any address. */
  trustedProxies: BlockList | null;
  /** Test seam: where the socket peer address comes from. */
  peerAddress?: (c: Context) => string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KEY_ID = /^[0-9A-Za-z]{1,64}$/;
const FORBIDDEN = 'Forbidden: this server answers only its authenticated proxy';
const TWO_PRINCIPALS = 'Forbidden: the proxy named both an API key and an OAuth subject; a call has one principal';
const BAD_PRINCIPAL = 'Forbidden: the proxy named a malformed OAuth principal';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when the request carries the secret; compared as digests in constant time. */
export function presentsSecret(expected: Buffer, presented: string | undefined): boolean {
  return presented !== undefined && timingSafeEqual(expected, digest(presented));
}

export function requestIdentity(options: RequestIdentityOptions): MiddlewareHandler<HttpEnv> {
  const peer = options.peerAddress ?? ((c: Context) => getConnInfo(c).remote.address ?? '0.0.0.0');
  const expected = options.proxySecret === null ? null : digest(options.proxySecret);
  const allowed = options.trustedProxies;
  return function requestIdentityHandler(c, next) {
    const peerAddr = peer(c);
    const fromProxy =
      expected !== null && presentsSecret(expected, header(c, PROXY_AUTH_HEADER)) && (allowed === null || isTrusted(allowed, peerAddr));
    const rid = fromProxy ? header(c, 'x-request-id') : undefined;
    c.set('requestId', rid && REQUEST_ID.test(rid) ? rid : randomUUID());
    c.set('clientIp', clientIp(peerAddr, fromProxy ? header(c, 'x-forwarded-for') : undefined));
    const kid = fromProxy ? header(c, 'x-signet-key-id') : undefined;
    c.set('keyId', kid && KEY_ID.test(kid) ? kid : null);
    c.set('subject', null);
    if (expected !== null && !fromProxy) return Promise.resolve(refusal(403, null, SERVER_ERROR, FORBIDDEN, edgeHeaders(c)));
    const named = fromProxy ? header(c, PRINCIPAL_HEADER) : undefined;
    if (named !== undefined && named !== '') {
      // A token is never taken for a key nor a key for a token: one principal per call.
      if (kid) return Promise.resolve(refusal(403, null, SERVER_ERROR, TWO_PRINCIPALS, edgeHeaders(c)));
      const subject = parseSubject(named, header(c, SCOPES_HEADER));
      if (subject === null) return Promise.resolve(refusal(403, null, SERVER_ERROR, BAD_PRINCIPAL, edgeHeaders(c)));
      c.set('subject', subject);
    }
    return next();
  };
}
