// JSON-RPC shapes the HTTP edge answers with itself (before the MCP SDK sees a request).

export type RequestId = string | number | null;

export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** Implementation-defined server errors (HTTP-level refusals). */
export const SERVER_ERROR = -32000;

export function errorBody(id: RequestId, code: number, message: string, data?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: data ? { code, message, data } : { code, message } });
}

export function jsonResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function errorResponse(status: number, id: RequestId, code: number, message: string, headers: Record<string, string> = {}, data?: Record<string, unknown>): Response {
  return jsonResponse(status, errorBody(id, code, message, data), headers);
}

function validId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/** The id to echo in an error: the request's own id for a single request, else null. */
export function idOf(payload: unknown): RequestId {
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    const id = (payload as JsonRpcMessage).id;
    return validId(id) ? id : null;
  }
  return null;
}

/** Number of tools/call requests in a message or batch: what the calls limiter charges. */
export function countToolCalls(payload: unknown): number {
  const list = Array.isArray(payload) ? payload : [payload];
  let n = 0;
  for (const m of list) if (m && typeof m === 'object' && (m as JsonRpcMessage).method === 'tools/call') n++;
  return n;
}

export interface FastCall {
  id: string | number;
  name: string;
  args: unknown;
}

/**
 * A single, plain tools/call (no batch, no _meta, no task): the only shape the cached
 * fast path answers. Anything else goes through the MCP SDK.
 */
export function plainToolCall(payload: unknown): FastCall | null {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const m = payload as JsonRpcMessage;
  if (m.jsonrpc !== '2.0' || m.method !== 'tools/call' || !validId(m.id)) return null;
  const keys = Object.keys(m);
  if (keys.length !== 4) return null;
  const p = m.params;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return null;
  const pk = Object.keys(p);
  const params = p as { name?: unknown; arguments?: unknown };
  if (typeof params.name !== 'string' || pk.some((k) => k !== 'name' && k !== 'arguments')) return null;
  if (params.arguments !== undefined && (params.arguments === null || typeof params.arguments !== 'object' || Array.isArray(params.arguments))) return null;
  return { id: m.id, name: params.name, args: params.arguments };
}
