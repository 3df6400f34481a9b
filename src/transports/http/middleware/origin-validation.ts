// DNS-rebinding protection, half two, and the browser boundary, on every bind address: a
// request that carries an Origin (browsers always do on a POST) must come from an allowed
// one. Requests without Origin pass: MCP clients that are not browsers send none. Loopback
// origins are allowed by hostname, any port, as the MCP SDK v2 originValidation with its
// localhostAllowedOrigins does; SIGNET_ALLOWED_ORIGINS (shared with the proxy's CORS) match
// exactly. A page that DNS rebinding serves from evil.example carries that origin, so it is
// refused whatever address the server is bound to.
import type { MiddlewareHandler } from 'hono';
import { LOOPBACK_HOSTNAMES } from '../../../shared/hostnames.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { refusal, SERVER_ERROR } from '../responses.js';

export interface OriginValidationOptions {
  /** Exact origins allowed (scheme://host[:port]), e.g. SIGNET_ALLOWED_ORIGINS. */
  allowedOrigins: readonly string[];
  /** http(s) origins on these hostnames are allowed on any port (default: the loopback names). */
  allowedHostnames?: readonly string[];
}

interface Policy {
  origins: ReadonlySet<string>;
  hostnames: ReadonlySet<string>;
}

function policyOf(options: OriginValidationOptions): Policy {
  return { origins: new Set(options.allowedOrigins), hostnames: new Set(options.allowedHostnames ?? LOOPBACK_HOSTNAMES) };
}

/** null when allowed, else why not. */
export function checkOrigin(options: OriginValidationOptions | Policy, origin: string | undefined): string | null {
  if (origin === undefined || origin === '') return null;
  const policy = 'origins' in options ? options : policyOf(options);
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

export function originValidation(options: OriginValidationOptions): MiddlewareHandler<HttpEnv> {
  const policy = policyOf(options);
  return function originValidationHandler(c, next) {
    const reason = checkOrigin(policy, header(c, 'origin'));
    if (reason) return Promise.resolve(refusal(403, null, SERVER_ERROR, `Forbidden: ${reason}`, edgeHeaders(c)));
    return next();
  };
}
