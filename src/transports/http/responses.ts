// The JSON-RPC refusals the HTTP edge answers itself, before the router sees a message.
// Same shape and member order as the MCP SDK's edge ({"jsonrpc","error","id"}).
import { type RequestId, refusalBody } from '../../protocol/jsonrpc.js';

export { PARSE_ERROR, SERVER_ERROR } from '../../protocol/jsonrpc.js';

export function jsonResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function refusal(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
): Response {
  return jsonResponse(status, refusalBody(id, code, message, data), headers);
}
