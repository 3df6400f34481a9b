// Is a credential required? The same initialize, once without any credential and once with one
// that cannot be valid. Two 401s prove it is required here; an answer from the MCP layer proves
// it is not. A 401 says nothing about which kind of credential would be accepted.
import type { Check } from '../check.js';
import { ACCEPT, answerTo, initialize, JSON_TYPE } from '../mcp.js';

/** Never valid anywhere: a fixed value keeps two probes' evidence alike. */
export const INVALID_CREDENTIAL = 'signet-probe-invalid-credential';

export const authentication: Check = {
  name: 'authentication',
  facts: ['authentication.required', 'authentication.method'],
  async run(ctx) {
    const { target, findings, state } = ctx;
    const post = (id: string, purpose: string, credential?: string) => {
      const rpcId = ctx.id();
      return ctx
        .send({
          id,
          purpose,
          method: 'POST',
          path: target.path,
          headers: [JSON_TYPE, ACCEPT, ...(credential ? ([['authorization', `Bearer ${credential}`]] as [string, string][]) : [])],
          body: initialize('2025-11-25', rpcId),
        })
        .then((exchange) => ({ exchange, rpcId }));
    };
    const none = await post('auth.no-credential', 'an MCP initialize with no credential: refused with 401, or served?');
    state.anonymous = none.exchange;
    const wrong = await post(
      'auth.invalid-credential',
      'the same initialize with a bearer credential no server issued',
      INVALID_CREDENTIAL,
    );

    const answered = answerTo(none.exchange.body, none.exchange.headers['content-type'], none.rpcId);
    if (none.exchange.status === 401 && wrong.exchange.status === 401) {
      findings.decide(
        'authentication.required',
        true,
        { probe: none.exchange.id, why: 'a request without a credential got 401' },
        { probe: wrong.exchange.id, why: 'a request with an invalid credential got 401' },
      );
      findings.leave('authentication.method', 'a 401 proves a credential is required here, not which kind the endpoint accepts');
    } else if (answered?.result) {
      state.served.push(none.exchange);
      findings.decide('authentication.required', false, {
        probe: none.exchange.id,
        why: `an initialize without a credential was served (${none.exchange.status})`,
      });
      findings.decide('authentication.method', 'none', { probe: none.exchange.id, why: 'any client is served without a credential' });
    } else if (none.exchange.status === 401) {
      findings.leave(
        'authentication.required',
        `a request without a credential got 401 but one with an invalid credential got ${wrong.exchange.status ?? wrong.exchange.error}`,
      );
    } else {
      findings.leave(
        'authentication.required',
        `a request without a credential got ${none.exchange.status ?? none.exchange.error}: neither a 401 nor an MCP answer`,
      );
    }
  },
};
