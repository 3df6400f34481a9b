// Host validation, the DNS-rebinding defence (MCP transports; the SDKs' hostHeaderValidation):
// the same request with `Host: evil.example` must be refused. With a way to be served, a
// served answer proves it is not checked; without one, only a refusal that differs from the
// anonymous answer (401) decides.
import { type Check, refusedAtEdge, servedResult } from '../check.js';
import { ACCEPT, initialize, JSON_TYPE } from '../mcp.js';

export const FOREIGN_HOST = 'evil.example';

export const host: Check = {
  name: 'host',
  facts: ['http.allowed_hosts_configured'],
  async run(ctx) {
    const { target, findings, state } = ctx;
    const purpose = `the same request with Host: ${FOREIGN_HOST}, as a page that rebinds ${FOREIGN_HOST} to this address sends it`;
    if (state.session) {
      const { exchange, rpcId } = await ctx.benign('host.foreign', purpose, { host: FOREIGN_HOST });
      if (servedResult(exchange, rpcId)) {
        findings.decide('http.allowed_hosts_configured', false, {
          probe: exchange.id,
          why: `Host ${FOREIGN_HOST} was served (${exchange.status})`,
        });
      } else if (refusedAtEdge(exchange)) {
        findings.decide('http.allowed_hosts_configured', true, {
          probe: exchange.id,
          why: `Host ${FOREIGN_HOST} was refused (${exchange.status ?? exchange.error})`,
        });
      } else {
        findings.leave('http.allowed_hosts_configured', `Host ${FOREIGN_HOST} got ${exchange.status ?? exchange.error}`);
      }
      return;
    }
    const rpcId = ctx.id();
    const exchange = await ctx.send({
      id: 'host.foreign-no-credential',
      purpose,
      method: 'POST',
      path: target.path,
      host: FOREIGN_HOST,
      headers: [JSON_TYPE, ACCEPT],
      body: initialize('2025-11-25', rpcId),
    });
    const anonymous = state.anonymous;
    if (anonymous?.status === 401 && refusedAtEdge(exchange)) {
      findings.decide(
        'http.allowed_hosts_configured',
        true,
        { probe: exchange.id, why: `Host ${FOREIGN_HOST} was refused (${exchange.status ?? exchange.error})` },
        { probe: anonymous.id, why: 'the same request with the right Host got 401' },
      );
    } else {
      findings.leave(
        'http.allowed_hosts_configured',
        `without a way to be served, Host ${FOREIGN_HOST} got ${exchange.status ?? exchange.error}, which does not say whether the host is checked; ${state.credentialWithheld ?? 'a credential would'}`,
      );
    }
  },
};
