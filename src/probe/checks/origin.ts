// Origin validation (MCP transports: "Servers MUST validate the Origin header"): a POST from a
// foreign Origin must be refused with 403 before authentication matters. First without a
// credential; when authentication answers first (401), again with the credential.
import { type Check, servedResult } from '../check.js';
import { ACCEPT, initialize, JSON_TYPE } from '../mcp.js';

export const FOREIGN_ORIGIN = 'https://evil.example';

export const origin: Check = {
  name: 'origin',
  facts: ['http.origin_validation'],
  async run(ctx) {
    const { target, findings, state } = ctx;
    const rpcId = ctx.id();
    const anonymous = await ctx.send({
      id: 'origin.foreign-no-credential',
      purpose: `an initialize from Origin ${FOREIGN_ORIGIN}, no credential: refused with 403 before authentication?`,
      method: 'POST',
      path: target.path,
      headers: [JSON_TYPE, ACCEPT, ['origin', FOREIGN_ORIGIN]],
      body: initialize('2025-11-25', rpcId),
    });
    if (anonymous.status === 403) {
      findings.decide('http.origin_validation', true, { probe: anonymous.id, why: `a POST from ${FOREIGN_ORIGIN} got 403` });
      return;
    }
    if (servedResult(anonymous, rpcId)) {
      findings.decide('http.origin_validation', false, {
        probe: anonymous.id,
        why: `a POST from ${FOREIGN_ORIGIN} was served (${anonymous.status})`,
      });
      return;
    }
    if (!(state.session && state.sendCredential)) {
      findings.leave(
        'http.origin_validation',
        `a POST from ${FOREIGN_ORIGIN} without a credential got ${anonymous.status ?? anonymous.error}; ${state.credentialWithheld ?? 'with a credential the probe could tell'}`,
      );
      return;
    }
    const { exchange, rpcId: id } = await ctx.benign('origin.foreign', `a request from Origin ${FOREIGN_ORIGIN} with the credential`, {
      headers: [['origin', FOREIGN_ORIGIN]],
    });
    if (exchange.status === 403) {
      findings.decide('http.origin_validation', true, {
        probe: exchange.id,
        why: `a POST from ${FOREIGN_ORIGIN} with a valid credential got 403`,
      });
    } else if (servedResult(exchange, id)) {
      findings.decide('http.origin_validation', false, {
        probe: exchange.id,
        why: `a POST from ${FOREIGN_ORIGIN} with a valid credential was served (${exchange.status})`,
      });
    } else {
      findings.leave(
        'http.origin_validation',
        `a POST from ${FOREIGN_ORIGIN} got ${exchange.status ?? exchange.error}: neither 403 nor served`,
      );
    }
  },
};
