// A session id standing in for a credential: the session the probe opened with its credential,
// replayed without one. Served means the id alone lets a caller in. Refused proves it for
// session ids only: the 2026-07-28 way of keeping state (handles passed as tool arguments)
// needs a tool call, which the probe never makes.
import { type Check, servedResult } from '../check.js';
import { ACCEPT, hasAnswer, JSON_TYPE, request } from '../mcp.js';

export const sessions: Check = {
  name: 'sessions',
  facts: ['http.session_ids_used_for_auth'],
  async run(ctx) {
    const { findings, state } = ctx;
    const session = state.legacySession;
    if (!session?.sessionId || !state.sendCredential) {
      findings.leave(
        'http.session_ids_used_for_auth',
        session?.sessionId
          ? (state.credentialWithheld ?? 'the server needs no credential, so a replayed session id proves nothing')
          : 'no session id to replay; state handles (2026-07-28) need a tool call, which the probe never makes',
      );
      return;
    }
    const rpcId = ctx.id();
    const message = request(session, rpcId, 'tools/list');
    const exchange = await ctx.send({
      id: 'session.replay-no-credential',
      purpose: `tools/list with the ${session.revision} session id the probe opened with its credential, and no credential`,
      method: 'POST',
      path: ctx.target.path,
      headers: [JSON_TYPE, ACCEPT, ...message.headers],
      body: message.body,
      stopWhen: hasAnswer(rpcId),
    });
    if (servedResult(exchange, rpcId)) {
      findings.decide('http.session_ids_used_for_auth', true, {
        probe: exchange.id,
        why: `a request carrying only a session id was served (${exchange.status})`,
      });
    } else {
      findings.leave(
        'http.session_ids_used_for_auth',
        `a session id without a credential got ${exchange.status ?? exchange.error}; state handles passed as tool arguments need a tool call, which the probe never makes`,
      );
    }
  },
};
