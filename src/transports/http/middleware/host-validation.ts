// DNS-rebinding protection, half one: the Host header must name this server. Shaped like
// the MCP SDK v2 hostHeaderValidation middleware: an allowlist of hostnames, port-agnostic.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { refusal, SERVER_ERROR } from '../responses.js';

/** localhost, 127.0.0.1 and [::1]: accepted on every bind address (DNS rebinding needs a foreign name). */
export const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The hostname of a Host header value (IPv6 keeps its brackets); null when malformed. */
export function hostnameOf(host: string): string | null {
  try {
    const name = new URL(`http://${host}`).hostname;
    return name === '' ? null : name;
  } catch {
    return null;
  }
}

/** null when allowed, else why not. */
export function checkHost(allowed: ReadonlySet<string>, host: string | undefined): string | null {
  if (!host) return 'Missing Host header';
  const name = hostnameOf(host);
  if (name === null) return 'Invalid Host header';
  return allowed.has(name) ? null : `Host ${JSON.stringify(name.slice(0, 100))} is not allowed (SIGNET_ALLOWED_HOSTS)`;
}

export function hostValidation(allowed: () => ReadonlySet<string>): MiddlewareHandler<HttpEnv> {
  return async function hostValidationHandler(c, next) {
    const reason = checkHost(allowed(), header(c, 'host'));
    if (reason) return refusal(403, null, SERVER_ERROR, `Forbidden: ${reason}`, edgeHeaders(c));
    return next();
  };
}
