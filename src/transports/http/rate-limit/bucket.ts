// Which rate-limit bucket a client address falls in: IPv6 clients share one per prefix.
import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (embedded IPv4 and :: expanded); null when not IPv6. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.split('%')[0]!;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/**
 * The rate-limit bucket of a client address: an IPv4 address as is; an IPv6 address cut to
 * its first `prefix` bits (default /64, what one host or site usually gets), so a client
 * rotating addresses inside its own prefix stays in one bucket.
 */
export function limitBucket(address: string, prefix: number): string {
  const groups = ipv6Groups(address);
  if (groups === null || prefix >= 128) return address;
  const out = groups.map((g, i) => {
    const bits = Math.max(0, Math.min(16, prefix - i * 16));
    return bits === 16 ? g : bits === 0 ? 0 : g & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${out.map((g) => g.toString(16)).join(':')}/${prefix}`;
}
