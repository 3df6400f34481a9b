// DNS-rebinding protection, half two, and the browser boundary: a request that carries an
// Origin (browsers always do) must come from an allowed one. Requests without Origin pass:
// MCP clients that are not browsers send none. Loopback origins are allowed by hostname,
// any port, as the MCP SDK v2 originValidation does; configured origins
// (SIGNET_ALLOWED_ORIGINS, shared with the proxy's CORS) match exactly.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { refusal, SERVER_ERROR } from '../responses.js';
import { LOOPBACK_HOSTNAMES } from './host-validation.js';

export interface OriginPolicy {
  /** Exact origins allowed (scheme://host[:port]). */
  origins: ReadonlySet<string>;
  /** Origins whose hostname is one of these are allowed, on any port. */
  hostnames: ReadonlySet<string>;
}

export function originPolicy(configured: string[]): OriginPolicy {
  return { origins: new Set(configured), hostnames: new Set(LOOPBACK_HOSTNAMES) };
}

/** null when allowed, else why not. */
export function checkOrigin(policy: OriginPolicy, origin: string | undefined): string | null {
  if (origin === undefined || origin === '') return null;
  if (policy.origins.has(origin)) return null;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'Invalid Origin header';
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && policy.hostnames.has(url.hostname)) return null;
  return `Origin ${JSON.stringify(origin.slice(0, 100))} is not allowed (SIGNET_ALLOWED_ORIGINS)`;
}

export function originValidation(policy: OriginPolicy): MiddlewareHandler<HttpEnv> {
  return async function originValidationHandler(c, next) {
    const reason = checkOrigin(policy, header(c, 'origin'));
    if (reason) return refusal(403, null, SERVER_ERROR, `Forbidden: ${reason}`, edgeHeaders(c));
    return next();
  };
}
