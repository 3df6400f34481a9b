// The MCP the probe speaks: the 2025 handshake and the stateless 2026-07-28 envelope, only
// methods that change nothing on the server (initialize, ping, lists, discovery) and one call
// of a tool that cannot exist. Answers come as JSON or as an SSE stream (a 2025 server may
// stream any POST); both are read the same way.
import { VERSION } from '../version.js';
import type { ProbeHeader } from './types.js';

/** The revisions `transport.protocol_revisions` can name, oldest first (the facts schema's enum). */
export const PROTOCOL_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type ProtocolRevision = (typeof PROTOCOL_REVISIONS)[number];
export const MODERN_REVISION = '2026-07-28';

/** A tool name no server declares: calling it can run nothing. */
export const NO_SUCH_TOOL = 'signet-probe-no-such-tool';

export const ACCEPT: ProbeHeader = ['accept', 'application/json, text/event-stream'];
export const JSON_TYPE: ProbeHeader = ['content-type', 'application/json'];

const CLIENT_INFO = { name: 'signet-probe', version: VERSION };

/** How the probe talks to the server after the revision check: the era and what it must send back. */
export interface McpSession {
  revision: ProtocolRevision;
  /** Mcp-Session-Id the server issued at initialize (2025 revisions), if any. */
  sessionId?: string | undefined;
}

export function initialize(revision: string, id: number | string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: revision, capabilities: {}, clientInfo: CLIENT_INFO },
  });
}

/** A request in the session's era: the 2026-07-28 envelope and headers, or the 2025 headers. */
export function request(
  session: McpSession,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  name?: string,
): { body: string; headers: ProbeHeader[] } {
  if (session.revision === MODERN_REVISION) {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    };
    const headers: ProbeHeader[] = [
      ['mcp-protocol-version', MODERN_REVISION],
      ['mcp-method', method],
    ];
    if (name !== undefined) headers.push(['mcp-name', name]);
    return { body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }), headers };
  }
  return {
    body: JSON.stringify(Object.keys(params).length === 0 ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }),
    headers: legacyHeaders(session),
  };
}

/** What a 2025-era request after initialize sends: the negotiated revision and the session. */
export function legacyHeaders(session: McpSession): ProbeHeader[] {
  const headers: ProbeHeader[] = [];
  // 2025-06-18 and later require the header on every request after initialize; 2025-03-26 predates it.
  if (session.revision >= '2025-06-18') headers.push(['mcp-protocol-version', session.revision]);
  if (session.sessionId) headers.push(['mcp-session-id', session.sessionId]);
  return headers;
}

export function notification(method: string): string {
  return JSON.stringify({ jsonrpc: '2.0', method });
}

export interface JsonRpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: unknown; message: unknown; data?: unknown };
}

/**
 * The JSON-RPC answer to request `id` in a body: a JSON object (or a batch holding it), or the
 * first SSE `data:` line carrying it. Undefined when the body holds none.
 */
export function answerTo(body: string, contentType: string | undefined, id: number | string): JsonRpcAnswer | undefined {
  const candidates: unknown[] = [];
  if ((contentType ?? '').includes('text/event-stream')) {
    for (const line of body.split(/\r?\n/)) {
      if (line.startsWith('data:')) candidates.push(parse(line.slice(5).trim()));
    }
  } else {
    const parsed = parse(body);
    candidates.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  }
  for (const c of candidates) {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) continue;
    const m = c as Record<string, unknown>;
    if (m['jsonrpc'] !== '2.0') continue;
    if (m['id'] === id && isRecord(m['result'])) return { result: m['result'] };
    // An error may carry id null or none: the server could not read the request's id.
    if ((m['id'] === id || m['id'] === null || m['id'] === undefined) && isRecord(m['error'])) {
      return { error: m['error'] as NonNullable<JsonRpcAnswer['error']> };
    }
  }
  return undefined;
}

/** A stream reader's stop condition: the answer to `id` has arrived. */
export function hasAnswer(id: number | string): (body: string) => boolean {
  return (body) => answerTo(body, 'text/event-stream', id) !== undefined || answerTo(body, 'application/json', id) !== undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
