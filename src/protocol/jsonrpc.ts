// JSON-RPC 2.0 shapes and the exact bytes Signet answers with. Member order follows what the
// MCP SDKs emit ({"result":…,"jsonrpc":"2.0","id":…} for results, {"jsonrpc","id","error"}
// for errors a method returns, {"jsonrpc","error","id"} for refusals before dispatch), so
// the differential test against the SDKs can compare bytes.

export type RequestId = string | number;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error (HTTP-level refusals). */
export const SERVER_ERROR = -32000;
/** 2025 revisions: resource not found. */
export const RESOURCE_NOT_FOUND = -32002;
/** 2026-07-28: MCP-Protocol-Version / Mcp-Method / Mcp-Name disagree with the body. */
export const HEADER_MISMATCH = -32020;
/** 2026-07-28: the requested protocol revision is not served. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

import { isObject, type Json } from '../shared/json.js';

export { isObject, type Json };

export function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

export interface Request {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: unknown;
}
export interface Notification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

/** The SDKs' shapes: params, when present, must be an object. */
function paramsOk(m: Json): boolean {
  return !('params' in m) || isObject(m['params']);
}
export function isRequest(m: unknown): m is Request {
  return isObject(m) && m['jsonrpc'] === '2.0' && typeof m['method'] === 'string' && isRequestId(m['id']) && paramsOk(m);
}
export function isNotification(m: unknown): m is Notification {
  return isObject(m) && m['jsonrpc'] === '2.0' && typeof m['method'] === 'string' && !('id' in m) && paramsOk(m);
}
export function isResponse(m: unknown): boolean {
  if (!isObject(m) || m['jsonrpc'] !== '2.0' || !isRequestId(m['id']) || 'method' in m) return false;
  return ('result' in m && isObject(m['result'])) || ('error' in m && isObject(m['error']));
}

/** The id a refusal may echo: a request's own id, else null. */
export function echoableId(m: unknown): RequestId | null {
  if (!isObject(m) || typeof m['method'] !== 'string') return null;
  const id = m['id'];
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export const idJson = (id: RequestId | null): string => JSON.stringify(id);

const MAX_ECHO = 100;
/** Client-supplied text quoted in an answer: cut at 100 characters, so a huge value is never sent back whole. */
export function quote(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text;
}

/** A result: `resultJson` is already JSON. */
export function resultBody(id: RequestId, resultJson: string): string {
  return `{"result":${resultJson},"jsonrpc":"2.0","id":${idJson(id)}}`;
}

/** An error a method answered with (after dispatch). */
export function methodErrorBody(id: RequestId, code: number, message: string, data?: unknown): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(data === undefined ? { code, message } : { code, message, data })}}`;
}

/** A refusal before dispatch (malformed message, version, headers, limits). */
export function refusalBody(id: RequestId | null, code: number, message: string, data?: unknown): string {
  return `{"jsonrpc":"2.0","error":${JSON.stringify(data === undefined ? { code, message } : { code, message, data })},"id":${idJson(id)}}`;
}
