// Reads the body, refusing it while reading once it passes the size limit or the shape
// bounds (depth, node count: json-shape.ts), and parses it once; the rate limiter and the
// router both read the parsed value.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { JsonShapeGuard, type JsonShapeLimits } from '../json-shape.js';
import { discardBody, readBody } from '../node-request.js';
import { PARSE_ERROR, refusal, SERVER_ERROR } from '../responses.js';

export interface JsonBodyOptions {
  /** Largest body accepted, in bytes (SIGNET_MAX_BODY_BYTES); 413 beyond. */
  maxBytes: number;
  /** SIGNET_MAX_JSON_DEPTH and SIGNET_MAX_JSON_NODES. */
  shape: JsonShapeLimits;
}

/** The JSON-RPC method a body names, for logs: a single message's (64 characters at most), "batch", or null. */
export function methodOf(payload: unknown): string | null {
  if (Array.isArray(payload)) return 'batch';
  const method = (payload as { method?: unknown } | null)?.method;
  return typeof method === 'string' ? method.slice(0, 64) : null;
}

export function jsonBody(options: JsonBodyOptions): MiddlewareHandler<HttpEnv> {
  const tooLarge = `Payload Too Large: the request body must not exceed ${options.maxBytes} bytes`;
  return async function jsonBodyHandler(c, next) {
    const guard = new JsonShapeGuard(options.shape);
    const body = await readBody(c, options.maxBytes, (chunk) => guard.push(chunk));
    if (!body.ok) {
      if (body.reason === 'too_large') {
        // Lingering close, as nginx does: up to four times the limit is read and dropped, so a
        // client still writing gets the 413 rather than a reset; beyond that the connection goes.
        await discardBody(c, 4 * options.maxBytes);
        return refusal(413, null, SERVER_ERROR, tooLarge, edgeHeaders(c, { Connection: 'close' }));
      }
      return refusal(400, null, PARSE_ERROR, `Parse error: ${body.message}`, edgeHeaders(c));
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.text);
    } catch {
      return refusal(400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON', edgeHeaders(c));
    }
    c.set('payload', payload);
    c.set('rpcMethod', methodOf(payload));
    return next();
  };
}
