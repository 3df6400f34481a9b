// DNS-rebinding protection, half one: the Host header must name this server. Shaped like the
// MCP SDK v2 hostHeaderValidation (hostnames, any port), but armed on every bind, where the
// SDK's createMcpHonoApp arms it on loopback binds only: a server bound to 0.0.0.0 in a
// container is reached as localhost through a published port or the proxy, and under any
// other name only when SIGNET_ALLOWED_HOSTS says so (the doctrine's HTTP-002, which Signet
// meets by default). The Origin check (half two) is on for every bind too.
import type { MiddlewareHandler } from 'hono';
import { hostnameOf } from '../../../shared/hostnames.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { refusal, SERVER_ERROR } from '../responses.js';

export { LOOPBACK_HOSTNAMES } from '../../../shared/hostnames.js';

export interface HostValidationOptions {
  /** Hostnames (lower case, IPv6 in brackets) the Host header may name, on any port (config.ts: loopback and SIGNET_ALLOWED_HOSTS). */
  allowedHostnames: ReadonlySet<string>;
}

/** null when allowed, else why not. */
export function checkHost(allowed: ReadonlySet<string>, host: string | undefined): string | null {
  if (!host) return 'Missing Host header';
  const name = hostnameOf(host);
  if (name === null) return 'Invalid Host header';
  return allowed.has(name) ? null : `Host ${JSON.stringify(name.slice(0, 100))} is not allowed (SIGNET_ALLOWED_HOSTS)`;
}

/** Host values already found allowed are remembered (a few, so a client cannot grow the set). */
const REMEMBERED = 32;

export function hostValidation(options: HostValidationOptions): MiddlewareHandler<HttpEnv> {
  const allowed = options.allowedHostnames;
  const known = new Set<string>();
  return function hostValidationHandler(c, next) {
    const host = header(c, 'host');
    if (host !== undefined && known.has(host)) return next();
    const reason = checkHost(allowed, host);
    if (reason) return Promise.resolve(refusal(403, null, SERVER_ERROR, `Forbidden: ${reason}`, edgeHeaders(c)));
    if (known.size < REMEMBERED) known.add(host!);
    return next();
  };
}
