// A credential in the URL (doctrine AUTH-002): the valid credential sent only as a query
// parameter, under the names servers use (`api_key`, `access_token` of RFC 6750 §2.3,
// `token`). Served means accepted; refused under every name means not, whatever the status:
// a refusal of the whole request (Signet's proxy answers any query string with 400) accepts
// nothing, as the doctrine's description of the fact says.
import { type Check, servedResult } from '../check.js';
import type { Exchange } from '../exchange.js';

const NAMES = ['api_key', 'access_token', 'token'] as const;

export const queryCredential: Check = {
  name: 'query-credential',
  facts: ['authentication.keys_in_query_string'],
  async run(ctx) {
    const { findings, state, prober, target } = ctx;
    const credential = prober.settings.credential;
    if (!credential || !state.sendCredential) {
      findings.leave('authentication.keys_in_query_string', state.credentialWithheld ?? 'needs a valid credential to send in the query');
      return;
    }
    if (findings.value('authentication.required') !== true) {
      findings.leave(
        'authentication.keys_in_query_string',
        'authentication is not shown to be required, so a served request proves nothing',
      );
      return;
    }
    const refused: Exchange[] = [];
    for (const name of NAMES) {
      const separator = target.path.includes('?') ? '&' : '?';
      const path = `${target.path}${separator}${name}=${encodeURIComponent(credential.value)}`;
      const { exchange, rpcId } = await ctx.benign(`query.${name}`, `the valid credential only as ?${name}=, no Authorization header`, {
        path,
        withCredential: false,
      });
      if (servedResult(exchange, rpcId)) {
        findings.decide('authentication.keys_in_query_string', true, {
          probe: exchange.id,
          why: `the credential in ?${name}= was accepted (${exchange.status})`,
        });
        return;
      }
      if (exchange.status === null) {
        findings.leave('authentication.keys_in_query_string', `${exchange.id} got no answer (${exchange.error})`);
        return;
      }
      refused.push(exchange);
    }
    findings.decide(
      'authentication.keys_in_query_string',
      false,
      ...refused.map((e) => ({ probe: e.id, why: `refused with ${e.status}` })),
    );
  },
};
