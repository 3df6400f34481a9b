import { isIP } from 'node:net';
import { normaliseIp } from '../../shared/ip-address.js';

export { isInList as isTrusted, normaliseIp } from '../../shared/ip-address.js';

/**
 * The client's address: the socket peer, or, for a request from the authenticated proxy, the
 * address it names in X-Forwarded-For. The reference proxy overwrites the header with the one
 * address it saw (after its own trusted front proxies), so the last entry is the proxy's word;
 * anything left of it is never used. X-Real-IP is never read.
 */
export function clientIp(peer: string, forwardedFor: string | null | undefined): string {
  const peerIp = normaliseIp(peer);
  if (!forwardedFor) return peerIp;
  const last = normaliseIp(forwardedFor.slice(forwardedFor.lastIndexOf(',') + 1));
  return isIP(last) === 0 ? peerIp : last;
}
