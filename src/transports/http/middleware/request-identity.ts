// Who is calling: a request id, the client's address (X-Forwarded-For only from trusted
// proxies), the API key id the proxy vouches for. Only a trusted proxy may name the request
// or the key; anyone else's X-Request-Id and X-Signet-Key-Id are ignored.
import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { clientIp, isTrusted } from '../client-ip.js';
import type { HttpEnv } from '../env.js';
import { header } from '../node-request.js';

export interface RequestIdentityOptions {
  /** SIGNET_TRUSTED_PROXIES, parsed. */
  trustedProxies: BlockList;
  /** False when no proxy is trusted: then no header is read at all. */
  anyTrustedProxy: boolean;
  /** Test seam: where the socket peer address comes from. */
  peerAddress?: (c: Context) => string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KEY_ID = /^[0-9A-Za-z]{1,64}$/;

export function requestIdentity(options: RequestIdentityOptions): MiddlewareHandler<HttpEnv> {
  const peer = options.peerAddress ?? ((c: Context) => getConnInfo(c).remote.address ?? '0.0.0.0');
  return function requestIdentityHandler(c, next) {
    const peerAddr = peer(c);
    const fromProxy = options.anyTrustedProxy && isTrusted(options.trustedProxies, peerAddr);
    const rid = fromProxy ? header(c, 'x-request-id') : undefined;
    c.set('requestId', rid && REQUEST_ID.test(rid) ? rid : randomUUID());
    c.set('clientIp', clientIp(peerAddr, header(c, 'x-forwarded-for'), options.trustedProxies, options.anyTrustedProxy));
    const kid = fromProxy ? header(c, 'x-signet-key-id') : undefined;
    c.set('keyId', kid && KEY_ID.test(kid) ? kid : null);
    return next();
  };
}
