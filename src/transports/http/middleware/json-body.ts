// Reads the body, refusing it while reading once it passes the size limit or the shape
// bounds (depth, node count: shared/json-shape.ts), and parses it once; the rate limiter and
// the router both read the parsed value. Once the body is read, the request waits for its
// principal's turn (fair-turns.ts) before anything runs, and holds it until it is answered.
// A body refused here is charged to its principal all the same (pen test M2 of issue 26:
// 2,380 refused messages left a key 59 of its 60 calls).
import type { Context, MiddlewareHandler } from 'hono';
import { JsonShapeGuard, type JsonShapeLimits } from '../../../shared/json-shape.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import type { FairTurns } from '../fair-turns.js';
import { discardBody, readBody } from '../node-request.js';
import { principalOf } from '../principal.js';
import { PARSE_ERROR, refusal, SERVER_ERROR } from '../responses.js';

export interface JsonBodyOptions {
  /** Largest body accepted, in bytes (SIGNET_MAX_BODY_BYTES); 413 beyond. */
  maxBytes: number;
  /** SIGNET_MAX_JSON_DEPTH and SIGNET_MAX_JSON_NODES. */
  shape: JsonShapeLimits;
  /** Each principal's turns on the event loop; null: none (tests of this middleware alone). */
  turns: FairTurns | null;
  ipv6Prefix: number;
  /** Charges a body refused here (rate-limit/middleware.ts); the 429 or 503 to send instead, or null. */
  chargeRefused: (c: Context<HttpEnv>) => Promise<Response | null>;
}

/** The JSON-RPC method a body names, for logs: a single message's (64 characters at most), "batch", or null. */
export function methodOf(payload: unknown): string | null {
  if (Array.isArray(payload)) return 'batch';
  const method = (payload as { method?: unknown } | null)?.method;
  return typeof method === 'string' ? method.slice(0, 64) : null;
}

function turnOf(c: Context<HttpEnv>, ipv6Prefix: number): string {
  const who = principalOf(c, ipv6Prefix);
  return `${who.kind}:${who.id}`;
}

export function jsonBody(options: JsonBodyOptions): MiddlewareHandler<HttpEnv> {
  const tooLarge = `Payload Too Large: the request body must not exceed ${options.maxBytes} bytes`;
  return async function jsonBodyHandler(c, next) {
    const guard = new JsonShapeGuard(options.shape);
    const body = await readBody(c, options.maxBytes, (chunk) => guard.push(chunk));
    if (!body.ok && body.reason === 'too_large') {
      // Lingering close, as nginx does: up to four times the limit is read and dropped, so a
      // client still writing gets the 413 rather than a reset; beyond that the connection goes.
      await discardBody(c, 4 * options.maxBytes);
      const limited = await options.chargeRefused(c);
      if (limited) limited.headers.set('Connection', 'close');
      return limited ?? refusal(413, null, SERVER_ERROR, tooLarge, edgeHeaders(c, { Connection: 'close' }));
    }
    const endTurn = options.turns === null ? null : await options.turns.take(turnOf(c, options.ipv6Prefix));
    try {
      if (!body.ok)
        return (await options.chargeRefused(c)) ?? refusal(400, null, PARSE_ERROR, `Parse error: ${body.message}`, edgeHeaders(c));
      let payload: unknown;
      try {
        payload = JSON.parse(body.text);
      } catch {
        return (
          (await options.chargeRefused(c)) ?? refusal(400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON', edgeHeaders(c))
        );
      }
      c.set('payload', payload);
      c.set('rpcMethod', methodOf(payload));
      await next();
    } finally {
      endTurn?.();
    }
  };
}
