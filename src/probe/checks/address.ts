// The class of the address clients connect to (exposure.endpoint_address_class): the peer of
// the probe's connections, as the target's host name resolved for it.
import { BlockList, isIPv4 } from 'node:net';
import { normaliseIp } from '../../shared/ip-address.js';
import type { Check } from '../check.js';

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

export function addressClass(raw: string): 'loopback' | 'private' | 'public' {
  const ip = normaliseIp(raw);
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  if (loopback.check(ip, family)) return 'loopback';
  if (privateRanges.check(ip, family)) return 'private';
  return 'public';
}

export const address: Check = {
  name: 'address',
  facts: ['exposure.endpoint_address_class'],
  async run(ctx) {
    const reached = ctx.prober.evidence.find((e) => e.peer_address !== null);
    if (!reached?.peer_address) {
      ctx.findings.leave('exposure.endpoint_address_class', 'no connection was made');
      return;
    }
    const cls = addressClass(reached.peer_address);
    ctx.findings.decide('exposure.endpoint_address_class', cls, {
      probe: reached.id,
      why: `the connection reached ${reached.peer_address} (${cls})`,
    });
  },
};
