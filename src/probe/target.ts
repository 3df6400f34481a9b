// The URL a probe is pointed at: http or https, no credentials in it. Every exchange goes to
// its origin and nowhere else.
import { isIP } from 'node:net';
import { SignetError } from '../errors.js';

export interface ProbeTarget {
  /** The URL as probed: no userinfo, no fragment. */
  url: URL;
  https: boolean;
  /** The host name without IPv6 brackets (what DNS and SNI see). */
  hostname: string;
  port: number;
  /** `host[:port]` as the Host header carries it. */
  host: string;
  /** Path and query of the MCP endpoint. */
  path: string;
  /** SNI name: the host name, unless it is an IP address (RFC 6066 forbids those). */
  servername: string | undefined;
}

export function parseTarget(raw: string): ProbeTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SignetError('invalid_arguments', 'probe: the target must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SignetError('invalid_arguments', `probe: the target must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    // Never echoed: the user part is a credential.
    throw new SignetError(
      'invalid_arguments',
      'probe: the target URL holds a user name or password; pass credentials with --key or --token',
    );
  }
  url.hash = '';
  const https = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    url,
    https,
    hostname,
    port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
    host: url.host,
    path: `${url.pathname}${url.search}`,
    servername: isIP(hostname) === 0 ? hostname : undefined,
  };
}

/** The same origin, another path: the only URLs a probe ever requests. */
export function sameOrigin(target: ProbeTarget, path: string): string {
  return `${target.url.origin}${path}`;
}
