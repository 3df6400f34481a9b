// CORS towards a foreign origin: the preflight a browser page on https://evil.example would
// send before a POST with Authorization, and the answers to the POSTs the origin check sent
// from that origin. Allowing any origin means `Access-Control-Allow-Origin: *` or the foreign
// origin echoed back.
import type { Check } from '../check.js';
import type { Exchange } from '../exchange.js';
import { FOREIGN_ORIGIN } from './origin.js';

function allows(e: Exchange): boolean {
  const allowed = e.headers['access-control-allow-origin']?.trim();
  return allowed === '*' || allowed === FOREIGN_ORIGIN;
}

export const cors: Check = {
  name: 'cors',
  facts: ['http.cors_allow_any_origin'],
  async run(ctx) {
    const { target, findings, state } = ctx;
    const preflight = await ctx.send({
      id: 'cors.preflight',
      purpose: `a CORS preflight from Origin ${FOREIGN_ORIGIN} for a POST with Authorization`,
      method: 'OPTIONS',
      path: target.path,
      headers: [
        ['origin', FOREIGN_ORIGIN],
        ['access-control-request-method', 'POST'],
        ['access-control-request-headers', 'authorization, content-type, mcp-protocol-version'],
      ],
    });
    const fromForeign = [preflight, ...state.exchanges.filter((e) => e.id.startsWith('origin.'))];
    const allowing = fromForeign.filter(allows);
    if (allowing.length > 0) {
      findings.decide(
        'http.cors_allow_any_origin',
        true,
        ...allowing.map((e) => ({ probe: e.id, why: `Access-Control-Allow-Origin: ${e.headers['access-control-allow-origin']}` })),
      );
      return;
    }
    const unanswered = fromForeign.find((e) => e.status === null);
    if (unanswered) {
      findings.leave('http.cors_allow_any_origin', `${unanswered.id} got no answer (${unanswered.error})`);
      return;
    }
    findings.decide(
      'http.cors_allow_any_origin',
      false,
      ...fromForeign.map((e) => ({ probe: e.id, why: `${e.status} without Access-Control-Allow-Origin for ${FOREIGN_ORIGIN}` })),
    );
  },
};
