// The class of the address clients connect to (exposure.endpoint_address_class): the peer of
// the probe's connections, as the target's host name resolved for it.
import { addressClass } from '../../shared/ip-address.js';
import type { Check } from '../check.js';

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
