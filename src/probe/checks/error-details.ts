// Error details on malformed input (doctrine HTTP-008): malformed JSON, a message that is not
// JSON-RPC and a call of a tool that does not exist, each sent so that it reaches the MCP
// layer; then every answer the probe read is searched for stack traces, file paths and raw
// exception text.
import type { Check } from '../check.js';
import type { Exchange } from '../exchange.js';
import { leakIn } from '../leaks.js';
import { isRecord, NO_SUCH_TOOL } from '../mcp.js';

export const errorDetails: Check = {
  name: 'error-details',
  facts: ['http.error_details_exposed'],
  async run(ctx) {
    const { findings, state } = ctx;
    const provoked: Exchange[] = [];
    const malformed = await ctx.mcp('errors.malformed-json', 'a body that is not valid JSON', 'ping', {}, undefined, {
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    provoked.push(malformed.exchange);
    const notRpc = await ctx.mcp('errors.not-json-rpc', 'valid JSON that is not a JSON-RPC message', 'ping', {}, undefined, {
      body: '{"jsonrpc": "2.0", "id": 1, "params": {"probe": [1, 2, 3]}}',
    });
    provoked.push(notRpc.exchange);
    const unknown = await ctx.mcp(
      'errors.unknown-tool',
      `tools/call of ${NO_SUCH_TOOL}, a tool no server has`,
      'tools/call',
      { name: NO_SUCH_TOOL, arguments: {} },
      NO_SUCH_TOOL,
    );
    provoked.push(unknown.exchange);

    // Only error answers: a tool's description may quote a path on purpose.
    for (const e of state.exchanges.filter(isErrorAnswer)) {
      const leak = leakIn(e.body);
      if (leak) {
        findings.decide('http.error_details_exposed', true, { probe: e.id, why: `the answer holds ${leak}` });
        return;
      }
    }
    const unanswered = provoked.find((e) => e.status === null);
    if (unanswered) {
      findings.leave('http.error_details_exposed', `${unanswered.id} got no answer (${unanswered.error})`);
      return;
    }
    findings.decide(
      'http.error_details_exposed',
      false,
      ...provoked.map((e) => ({ probe: e.id, why: `answered ${e.status} with no stack trace, path or raw exception text` })),
    );
  },
};

/** A 4xx or 5xx, or a JSON-RPC error (or a tool result marked isError) in a JSON or SSE body. */
function isErrorAnswer(e: Exchange): boolean {
  if (e.status !== null && e.status >= 400) return true;
  const texts = (e.headers['content-type'] ?? '').includes('text/event-stream')
    ? e.body
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
    : [e.body];
  return texts.some((t) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch {
      return false;
    }
    return (Array.isArray(parsed) ? parsed : [parsed]).some(
      (m) => isRecord(m) && ('error' in m || (isRecord(m['result']) && m['result']['isError'] === true)),
    );
  });
}
