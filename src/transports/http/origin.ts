import { isIP } from 'node:net';

export interface OriginPolicy {
  /** Exact Origin values allowed; a request with any other Origin header gets 403. */
  origins: Set<string>;
  /** Exact Host values allowed; null = Host is not checked. */
  hosts: Set<string> | null;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/**
 * DNS-rebinding protection. Explicit lists win. Without them, a server bound to
 * loopback accepts only localhost Host/Origin values on its own port (a web page
 * resolving evil.example to 127.0.0.1 is refused); a server bound elsewhere checks no
 * Host (the proxy in front sets it) and accepts no Origin, since MCP clients that are
 * not browsers send none.
 */
export function originPolicy(listenHost: string, port: number, allowedOrigins: string[], allowedHosts: string[]): OriginPolicy {
  const loopback = isLoopback(listenHost);
  const localNames = ['localhost', '127.0.0.1', '[::1]'];
  const origins = allowedOrigins.length > 0 ? allowedOrigins : loopback ? localNames.map((h) => `http://${h}:${port}`) : [];
  const hosts = allowedHosts.length > 0 ? allowedHosts : loopback ? localNames.map((h) => `${h}:${port}`) : null;
  return { origins: new Set(origins), hosts: hosts ? new Set(hosts.map((h) => h.toLowerCase())) : null };
}

/** null when allowed, else the reason for a 403. */
export function checkOrigin(policy: OriginPolicy, host: string | null, origin: string | null): string | null {
  if (policy.hosts && (!host || !policy.hosts.has(host.toLowerCase()))) return 'Host header is not allowed (SIGNET_ALLOWED_HOSTS)';
  if (origin !== null && !policy.origins.has(origin)) return 'Origin is not allowed (SIGNET_ALLOWED_ORIGINS)';
  return null;
}
