// MCP 2026-07-28 standard headers (SEP-2243): a POST whose Mcp-Method or Mcp-Name disagrees
// with its body, or lacks Mcp-Method, must be refused with 400 and -32020 (HeaderMismatch), or
// a gateway deciding by the headers can be walked past. The call names a tool no server has,
// so a server that does not check runs nothing.
import { type Check, servedResult } from '../check.js';
import type { Exchange } from '../exchange.js';
import { answerTo, MODERN_REVISION, NO_SUCH_TOOL } from '../mcp.js';

const HEADER_MISMATCH = -32020;

export const headerMismatch: Check = {
  name: 'header-mismatch',
  facts: ['http.mcp_headers_validated'],
  async run(ctx) {
    const { findings, state } = ctx;
    if (state.session?.revision !== MODERN_REVISION) {
      findings.leave('http.mcp_headers_validated', `the server does not accept ${MODERN_REVISION}`);
      return;
    }
    const replace = (headers: [string, string][], name: string, value: string | undefined) => {
      const rest = headers.filter(([n]) => n !== name);
      return value === undefined ? rest : [...rest, [name, value] as [string, string]];
    };
    const cases: {
      id: string;
      purpose: string;
      method: string;
      params: Record<string, unknown>;
      name?: string;
      edit: (h: [string, string][]) => [string, string][];
    }[] = [
      {
        id: 'mismatch.method',
        purpose: 'tools/list with Mcp-Method: resources/list',
        method: 'tools/list',
        params: {},
        edit: (h) => replace(h, 'mcp-method', 'resources/list'),
      },
      {
        id: 'mismatch.name',
        purpose: `tools/call of ${NO_SUCH_TOOL} with Mcp-Name naming another tool`,
        method: 'tools/call',
        params: { name: NO_SUCH_TOOL, arguments: {} },
        name: NO_SUCH_TOOL,
        edit: (h) => replace(h, 'mcp-name', 'signet-probe-other-tool'),
      },
      {
        id: 'mismatch.missing-method',
        purpose: 'tools/list without the Mcp-Method header',
        method: 'tools/list',
        params: {},
        edit: (h) => replace(h, 'mcp-method', undefined),
      },
    ];
    const refused: Exchange[] = [];
    for (const c of cases) {
      const { exchange, rpcId } = await ctx.mcp(c.id, c.purpose, c.method, c.params, c.name, { editHeaders: c.edit });
      const answer = answerTo(exchange.body, exchange.headers['content-type'], rpcId);
      if (exchange.status === 400 && answer?.error?.code === HEADER_MISMATCH) {
        refused.push(exchange);
        continue;
      }
      if (
        servedResult(exchange, rpcId) ||
        (answer?.error !== undefined && answer.error.code !== HEADER_MISMATCH && exchange.status === 200)
      ) {
        findings.decide('http.mcp_headers_validated', false, {
          probe: exchange.id,
          why: `${c.purpose} was processed (${exchange.status}${answer?.error ? `, error ${String(answer.error.code)}` : ''}) instead of refused with -32020`,
        });
        return;
      }
      findings.leave(
        'http.mcp_headers_validated',
        `${c.purpose} got ${exchange.status ?? exchange.error}${answer?.error ? ` with error ${String(answer.error.code)}` : ''}, not 400 with -32020`,
      );
      return;
    }
    findings.decide('http.mcp_headers_validated', true, ...refused.map((e) => ({ probe: e.id, why: '400 with -32020 (HeaderMismatch)' })));
  },
};
