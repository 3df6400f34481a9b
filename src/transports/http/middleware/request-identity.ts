// Who is calling: a request id, the client's address (X-Forwarded-For only from trusted
// proxies), the API key id the proxy vouches for. Reports every /mcp request once, after
// its response is built (logs, metrics).
import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { clientIp, isTrusted } from '../client-ip.js';
import type { HttpEnv, RequestEvent } from '../env.js';
import { header } from '../node-request.js';

export interface RequestIdentityOptions {
  trustedProxies: BlockList;
  anyTrustedProxy: boolean;
  /** Test seam: where the socket peer address comes from. */
  peerAddress?: (c: Context) => string;
  onRequest?: (event: RequestEvent) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KEY_ID = /^[0-9A-Za-z]{1,64}$/;

function outcomeOf(status: number): RequestEvent['outcome'] {
  if (status < 400) return 'ok';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'limiter_error';
  return status < 500 ? 'rejected' : 'error';
}

export function requestIdentity(options: RequestIdentityOptions): MiddlewareHandler<HttpEnv> {
  const peer = options.peerAddress ?? ((c: Context) => getConnInfo(c).remote.address ?? '0.0.0.0');
  return async function requestIdentityHandler(c, next) {
    const start = performance.now();
    const peerAddr = peer(c);
    // Only a trusted proxy may name the request or the key; anyone else's headers are ignored.
    const fromProxy = options.anyTrustedProxy && isTrusted(options.trustedProxies, peerAddr);
    const rid = header(c, 'x-request-id');
    c.set('requestId', fromProxy && rid && REQUEST_ID.test(rid) ? rid : randomUUID());
    c.set('clientIp', clientIp(peerAddr, header(c, 'x-forwarded-for'), options.trustedProxies, options.anyTrustedProxy));
    const kid = header(c, 'x-signet-key-id');
    c.set('keyId', fromProxy && kid && KEY_ID.test(kid) ? kid : null);
    c.set('rpcMethod', null);
    c.set('limitedBy', null);
    c.set('route', null);
    c.set('rateHeaders', {});
    await next();
    const route = c.get('route');
    options.onRequest?.({
      requestId: c.get('requestId'),
      clientIp: c.get('clientIp'),
      keyId: c.get('keyId'),
      rpcMethod: c.get('rpcMethod'),
      tool: route?.tool ?? null,
      status: c.res.status,
      outcome: outcomeOf(c.res.status),
      cached: route?.cached ?? false,
      limitedBy: c.get('limitedBy'),
      era: route?.era ?? null,
      durationMs: performance.now() - start,
    });
  };
}
