import { BlockList, isIP } from 'node:net';
import { SignetError } from '../../errors.js';

/** `::ffff:10.0.0.1` → `10.0.0.1`, so IPv4 clients get one bucket whichever socket family they arrive on. */
export function normaliseIp(address: string): string {
  const lower = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped ? mapped[1]! : lower;
}

/** SIGNET_TRUSTED_PROXIES: CIDRs (or single addresses) whose X-Forwarded-For is believed. */
export function parseTrustedProxies(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const raw of cidrs) {
    const [addr, prefix] = raw.split('/');
    const ip = normaliseIp(addr ?? '');
    const family = isIP(ip);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (
      family === 0 ||
      !Number.isInteger(bits) ||
      bits < 0 ||
      bits > (family === 6 ? 128 : 32) ||
      (prefix !== undefined && !/^\d+$/.test(prefix))
    ) {
      throw new SignetError('config_invalid', `SIGNET_TRUSTED_PROXIES: "${raw}" is not an IP address or CIDR (e.g. 10.0.0.0/8, fd00::/8)`);
    }
    list.addSubnet(ip, bits, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

export function isTrusted(list: BlockList, address: string): boolean {
  const ip = normaliseIp(address);
  const family = isIP(ip);
  if (family === 0) return false;
  return list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy, in which
 * case X-Forwarded-For is read right to left and the first address that is not a
 * trusted proxy wins. Entries left of that are client-controlled and never used, so a
 * client cannot pick its own rate-limit bucket. X-Real-IP is never read.
 */
export function clientIp(peer: string, forwardedFor: string | null | undefined, trusted: BlockList, anyTrusted: boolean): string {
  const peerIp = normaliseIp(peer);
  if (!anyTrusted || !forwardedFor || !isTrusted(trusted, peerIp)) return peerIp;
  const hops = forwardedFor.split(',').map((h) => normaliseIp(h));
  let candidate = peerIp;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return candidate; // garbage left of a trusted hop: stop at the last good one
    candidate = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return candidate;
}
