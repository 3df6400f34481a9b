// What routing one message yields, and the shapes every answer is built from.
import type { Era } from './answers.js';
import { methodErrorBody, type RequestId, refusalBody, resultBody } from './jsonrpc.js';
import type { HeaderMismatch, StandardHeaders } from './standard-headers.js';

export interface RouteOutcome {
  /** HTTP status; stdio ignores it. */
  status: number;
  /** The JSON to send, or null when there is nothing to answer (notifications, posted responses). */
  body: string | null;
  era: Era | null;
  /** The single tool called, for logs and metrics. */
  tool: string | null;
  /** The tool result came from the signed-result cache. */
  cached: boolean;
}

/** Where a message came from: HTTP carries the standard headers, stdio has none. */
export interface RouteSource {
  transport: 'http' | 'stdio';
  headers?: StandardHeaders;
}

/** Refused before dispatch (malformed message, version, headers). */
export function refused(status: number, id: RequestId | null, code: number, message: string, data?: unknown): RouteOutcome {
  return { status, body: refusalBody(id, code, message, data), era: null, tool: null, cached: false };
}

export function fromMismatch(m: HeaderMismatch, id: RequestId | null): RouteOutcome {
  return refused(400, id, m.code, m.message, m.data);
}

/** Notifications and posted responses: 202, nothing to send. */
export const ACCEPTED: RouteOutcome = { status: 202, body: null, era: null, tool: null, cached: false };

/** A method's result (`resultJson` is already JSON). */
export function answered(id: RequestId, era: Era, resultJson: string, tool: string | null = null, cached = false): RouteOutcome {
  return { status: 200, body: resultBody(id, resultJson), era, tool, cached };
}

/** A method's error (after dispatch): HTTP 200, except what the era says otherwise (404 for an unknown method in 2026-07-28). */
export function failed(
  id: RequestId,
  era: Era,
  code: number,
  message: string,
  options: { data?: unknown; status?: number; tool?: string } = {},
): RouteOutcome {
  return {
    status: options.status ?? 200,
    body: methodErrorBody(id, code, message, options.data),
    era,
    tool: options.tool ?? null,
    cached: false,
  };
}
