// SEP-2243 standard request headers (2026-07-28): MCP-Protocol-Version, Mcp-Method and
// Mcp-Name mirror the body so gateways can route and limit without reading it. A header
// that contradicts the body is refused (-32020): that is what makes a gateway's decision
// by header safe, since the server never acts on a different method or name.
import { HEADER_MISMATCH, isObject, quote, type Request } from './jsonrpc.js';

export interface StandardHeaders {
  protocolVersion?: string | undefined;
  method?: string | undefined;
  name?: string | undefined;
}

export interface HeaderMismatch {
  code: typeof HEADER_MISMATCH;
  message: string;
  data: { mismatch: { header: string; body: string } };
}

/** Which body field Mcp-Name mirrors, per method. */
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** RFC 9110 optional whitespace (SP, HTAB) around a field value. */
export function stripOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A header value, decoded from the `=?base64?…?=` sentinel when it carries one; undefined when malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    const binary = atob(b64);
    // RFC 4648 §3.5: the unused bits before padding must be zero. Otherwise "…dGV=" would name
    // the same tool as "…dGU=", and a gateway matching the header text would see another name.
    if (btoa(binary) !== b64) return undefined;
    return utf8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** A -32020 answer. Every client-supplied value in it is already cut by quote() (100 characters). */
export function mismatch(header: string, body: string): HeaderMismatch {
  return {
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${body}`,
    data: { mismatch: { header: quote(header), body } },
  };
}

/** Mcp-Name against the body, when the method has a name source; null when they agree or it has none. */
function nameMismatch(name: string, request: Request): HeaderMismatch | null {
  const field = Object.hasOwn(NAME_SOURCE, request.method) ? NAME_SOURCE[request.method]! : undefined;
  if (field === undefined) return null;
  const raw = isObject(request.params) ? request.params[field] : undefined;
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  const decoded = decodeHeaderValue(name);
  if (decoded === undefined) return mismatch(name, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (bodyValue !== undefined && decoded !== bodyValue) {
    return mismatch(name, `the body carries params.${field}="${quote(bodyValue)}" but the Mcp-Name header names "${quote(decoded)}"`);
  }
  return null;
}

/**
 * A 2025-era request does not have to send Mcp-Method or Mcp-Name, but one that does must
 * not contradict its body: a gateway that limits or routes by these headers (docs/proxy.md)
 * is then right about every request that reaches Signet, whichever era it speaks.
 */
export function checkMirroredHeaders(headers: StandardHeaders, request: Request): HeaderMismatch | null {
  if (headers.method !== undefined && headers.method !== request.method) {
    return mismatch(
      headers.method,
      `the body names method ${quote(request.method)} but the Mcp-Method header names ${quote(headers.method)}`,
    );
  }
  return headers.name === undefined ? null : nameMismatch(headers.name, request);
}

/** The presence and Mcp-Name half of the check, for a modern request (HTTP only). */
export function checkStandardHeaders(headers: StandardHeaders, request: Request, claimed: string | undefined): HeaderMismatch | null {
  if (headers.protocolVersion === undefined) {
    return mismatch(
      '(missing)',
      claimed === undefined
        ? 'the body carries a modern per-request envelope but the required MCP-Protocol-Version header is absent'
        : `the body envelope names protocol version ${quote(claimed)} but the required MCP-Protocol-Version header is absent`,
    );
  }
  if (headers.method === undefined)
    return mismatch('(missing)', `the body names method ${quote(request.method)} but the required Mcp-Method header is absent`);
  const field = Object.hasOwn(NAME_SOURCE, request.method) ? NAME_SOURCE[request.method]! : undefined;
  if (field === undefined) return null;
  const raw = isObject(request.params) ? request.params[field] : undefined;
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  if (headers.name === undefined) {
    if (bodyValue === undefined) return null;
    return mismatch('(missing)', `the body carries params.${field}="${quote(bodyValue)}" but the required Mcp-Name header is absent`);
  }
  return nameMismatch(headers.name, request);
}
