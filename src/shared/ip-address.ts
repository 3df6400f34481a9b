// IP addresses and CIDRs as the configuration and the HTTP edge read them. Shared, so that
// config.ts parses SIGNET_TRUSTED_PROXIES once at start and the edge only checks addresses.
import { BlockList, isIP, isIPv4 } from 'node:net';

/** `::ffff:10.0.0.1` → `10.0.0.1`, so IPv4 clients get one bucket whichever socket family they arrive on. */
export function normaliseIp(address: string): string {
  const lower = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped ? mapped[1]! : lower;
}

/** An address or CIDR (`10.0.0.0/8`, `fd00::/8`, `192.168.1.5`), or null when it is neither. */
export function parseCidr(raw: string): { ip: string; bits: number; family: 'ipv4' | 'ipv6' } | null {
  const [addr, prefix] = raw.split('/');
  const ip = normaliseIp(addr ?? '');
  const family = isIP(ip);
  if (family === 0 || (prefix !== undefined && !/^\d+$/.test(prefix))) return null;
  const max = family === 6 ? 128 : 32;
  const bits = prefix === undefined ? max : Number(prefix);
  return bits > max ? null : { ip, bits, family: family === 6 ? 'ipv6' : 'ipv4' };
}

/** A BlockList of CIDRs that parseCidr accepted. */
export function blockListOf(cidrs: readonly { ip: string; bits: number; family: 'ipv4' | 'ipv6' }[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) list.addSubnet(c.ip, c.bits, c.family);
  return list;
}

export function isInList(list: BlockList, address: string): boolean {
  const ip = normaliseIp(address);
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Routable only inside a private network: RFC 1918, shared address space, link-local, unique local. */
const privateRanges = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
] as const)
  privateRanges.addSubnet(net, bits, 'ipv4');
privateRanges.addSubnet('fc00::', 7, 'ipv6');
privateRanges.addSubnet('fe80::', 10, 'ipv6');

/** The class of an IP address (exposure.endpoint_address_class): the probe's peer, a URL's literal host. */
export function addressClass(raw: string): 'loopback' | 'private' | 'public' {
  const ip = normaliseIp(raw);
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  if (loopback.check(ip, family)) return 'loopback';
  if (privateRanges.check(ip, family)) return 'private';
  return 'public';
}

/** `0.0.0.0` (and 0.0.0.0/8) or `::`: an address to listen on, no host's address to connect to. */
export function isUnspecified(raw: string): boolean {
  const ip = normaliseIp(raw);
  return isIPv4(ip) ? ip.startsWith('0.') : isIP(ip) === 6 && /^[0:]+$/.test(ip);
}
