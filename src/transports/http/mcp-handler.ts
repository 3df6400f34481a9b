import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppContext } from '../../context.js';
import { createServer } from '../../server.js';
import { plainToolCall } from './jsonrpc.js';

/**
 * Answers one parsed MCP POST.
 *
 * Every request that needs the protocol machinery gets a fresh Server and a fresh
 * stateless transport, closed when the response is ready: nothing per-request is ever
 * shared between clients (GHSA-345p-7cg4-v4c7).
 *
 * The one exception is a plain tools/call whose signed result is already in the
 * dispatcher's cache: that result is a pure function of (tool, canonical arguments,
 * doctrine, key), identical for every client, and was produced by this same SDK path
 * the first time. It is served as the SDK would serialise it, without building a
 * server. No client state is involved, so there is nothing to leak.
 */
export async function handleMcpPost(
  ctx: AppContext,
  request: () => Request,
  payload: unknown,
  headers: Record<string, string>,
): Promise<{ response: Response; tool: string | null; cached: boolean }> {
  const fast = plainToolCall(payload);
  if (fast && ctx.tools.has(fast.name)) {
    const json = ctx.tools.peekJson(fast.name, fast.args);
    if (json !== null) {
      // Byte-for-byte what Protocol + the transport emit: JSON.stringify({ result, jsonrpc, id }).
      const body = `{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(fast.id)}}`;
      return { response: new Response(body, { status: 200, headers: { 'content-type': 'application/json', ...headers } }), tool: fast.name, cached: true };
    }
  }

  const server = createServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request(), { parsedBody: payload });
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return { response, tool: fast?.name ?? null, cached: false };
  } finally {
    await transport.close();
    await server.close();
  }
}
