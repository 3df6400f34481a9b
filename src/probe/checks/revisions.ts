// Which MCP revisions the endpoint accepts: an initialize pinned to each 2025-era revision (the
// server accepts it when it answers with the same protocolVersion, rather than another it
// prefers) and a 2026-07-28 `server/discover` (accepted when supportedVersions lists it). The
// answers also say whether the server issues session ids, and give the probe a way to be
// served for the checks after this one: 2026-07-28 when accepted (stateless), else the newest
// 2025 revision with its session.
import type { Check } from '../check.js';
import type { Exchange } from '../exchange.js';
import {
  ACCEPT,
  answerTo,
  hasAnswer,
  initialize,
  JSON_TYPE,
  type JsonRpcAnswer,
  legacyHeaders,
  MODERN_REVISION,
  notification,
  PROTOCOL_REVISIONS,
  type ProtocolRevision,
  request,
} from '../mcp.js';

type Verdict = { accepted: boolean; why: string } | { accepted: undefined; why: string };

function verdictOf(e: Exchange, answer: JsonRpcAnswer | undefined, accepts: (result: Record<string, unknown>) => string | true): Verdict {
  if (answer?.result) {
    const ok = accepts(answer.result);
    return ok === true ? { accepted: true, why: 'accepted' } : { accepted: false, why: ok };
  }
  if (answer?.error) return { accepted: false, why: `refused with JSON-RPC error ${String(answer.error.code)}` };
  if (e.status === null) return { accepted: undefined, why: `no answer (${e.error})` };
  return { accepted: undefined, why: `${e.status} without a JSON-RPC answer` };
}

export const revisions: Check = {
  name: 'revisions',
  facts: ['transport.kind', 'transport.protocol_revisions', 'http.issues_session_ids'],
  async run(ctx) {
    const { target, findings, state } = ctx;
    // Without a usable credential the requests go without one: they are served only if none is needed.
    state.sendCredential = ctx.prober.hasCredential && state.credentialUsable;
    const results: { revision: ProtocolRevision; exchange: Exchange; verdict: Verdict; result: boolean; sessionId?: string }[] = [];
    for (const revision of PROTOCOL_REVISIONS) {
      const rpcId = ctx.id();
      if (revision === MODERN_REVISION) {
        const message = request({ revision }, rpcId, 'server/discover');
        const exchange = await ctx.send({
          id: `revision.${revision}`,
          purpose: `server/discover in the ${revision} envelope: does the server list ${revision}?`,
          method: 'POST',
          path: target.path,
          headers: [JSON_TYPE, ACCEPT, ...message.headers],
          body: message.body,
          withCredential: state.sendCredential,
          stopWhen: hasAnswer(rpcId),
        });
        const answer = answerTo(exchange.body, exchange.headers['content-type'], rpcId);
        const verdict = verdictOf(exchange, answer, (r) => {
          const listed = r['supportedVersions'];
          return Array.isArray(listed) && listed.includes(revision) ? true : `supportedVersions does not list ${revision}`;
        });
        results.push({ revision, exchange, verdict, result: answer?.result !== undefined });
        if (answer?.result) state.served.push(exchange);
        continue;
      }
      const exchange = await ctx.send({
        id: `revision.${revision}`,
        purpose: `initialize asking for ${revision}: does the server answer with the same revision?`,
        method: 'POST',
        path: target.path,
        headers: [JSON_TYPE, ACCEPT],
        body: initialize(revision, rpcId),
        withCredential: state.sendCredential,
        stopWhen: hasAnswer(rpcId),
      });
      const answer = answerTo(exchange.body, exchange.headers['content-type'], rpcId);
      const verdict = verdictOf(exchange, answer, (r) =>
        r['protocolVersion'] === revision ? true : `answered with ${String(r['protocolVersion'])} instead`,
      );
      if (answer?.result) state.served.push(exchange);
      results.push({ revision, exchange, verdict, result: answer?.result !== undefined, sessionId: exchange.headers['mcp-session-id'] });
    }

    // A JSON-RPC result proves the MCP layer processed the request (an error body may be an edge's refusal).
    const served = results.filter((r) => r.result);
    const accepted = results.filter((r) => r.verdict.accepted === true);
    if (served.length > 0 && !state.sendCredential && !findings.has('authentication.required')) {
      const s = served[0]!;
      findings.decide('authentication.required', false, {
        probe: s.exchange.id,
        why: 'the MCP layer answered a request without a credential',
      });
      findings.decide('authentication.method', 'none', { probe: s.exchange.id, why: 'any client is served without a credential' });
    }
    const open = results.find((r) => r.verdict.accepted === undefined);
    if (accepted.length > 0) {
      findings.decide('transport.kind', 'http', { probe: accepted[0]!.exchange.id, why: 'MCP answered over HTTP' });
    } else {
      findings.leave('transport.kind', 'no request was answered by an MCP server');
    }
    if (open) {
      const why =
        state.credentialWithheld ??
        (ctx.prober.hasCredential ? open.verdict.why : `${open.verdict.why}; a credential (--key or --token) would let the probe in`);
      findings.leave('transport.protocol_revisions', `${open.revision}: ${why}`);
    } else if (accepted.length === 0) {
      findings.leave('transport.protocol_revisions', 'the server accepted none of the revisions the facts can name');
    } else {
      findings.decide(
        'transport.protocol_revisions',
        accepted.map((r) => r.revision),
        ...results.map((r) => ({ probe: r.exchange.id, why: `${r.revision}: ${r.verdict.why}` })),
      );
    }

    // Sessions: the 2025 initializes that were accepted say whether the server issues them.
    const legacy = accepted.filter((r) => r.revision !== MODERN_REVISION);
    const withSession = legacy.find((r) => r.sessionId);
    if (withSession) {
      findings.decide('http.issues_session_ids', true, {
        probe: withSession.exchange.id,
        why: 'the initialize answer carries Mcp-Session-Id',
      });
    } else if (legacy.length > 0) {
      findings.decide(
        'http.issues_session_ids',
        false,
        ...legacy.map((r) => ({ probe: r.exchange.id, why: 'no Mcp-Session-Id on the initialize answer' })),
      );
    } else if (accepted.length > 0) {
      findings.decide('http.issues_session_ids', false, {
        probe: accepted[0]!.exchange.id,
        why: `only ${MODERN_REVISION} is accepted, which has no sessions`,
      });
    } else {
      findings.leave('http.issues_session_ids', 'no initialize was accepted');
    }

    const sessioned = [...legacy].reverse().find((r) => r.sessionId);
    if (sessioned) state.legacySession = { revision: sessioned.revision, sessionId: sessioned.sessionId };

    // How the later checks are served.
    const modern = accepted.find((r) => r.revision === MODERN_REVISION);
    const newest = legacy[legacy.length - 1];
    if (modern) {
      state.session = { revision: MODERN_REVISION };
    } else if (newest) {
      state.session = { revision: newest.revision, sessionId: newest.sessionId };
      // The 2025 handshake ends with notifications/initialized before other requests.
      await ctx.send({
        id: 'revision.initialized',
        purpose: `notifications/initialized for the ${newest.revision} session the later checks use`,
        method: 'POST',
        path: target.path,
        headers: [JSON_TYPE, ACCEPT, ...legacyHeaders(state.session)],
        body: notification('notifications/initialized'),
        withCredential: state.sendCredential,
      });
    }
  },
};
