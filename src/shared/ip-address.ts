// IP addresses and CIDRs as the configuration and the HTTP edge read them. Shared, so that
// config.ts parses SIGNET_TRUSTED_PROXIES once at start and the edge only checks addresses.
import { BlockList, isIP } from 'node:net';

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
