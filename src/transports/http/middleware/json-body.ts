// Reads the body (refusing it while reading once it passes the limit) and parses it once;
// the rate limiter and the router both read the parsed value.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { readBody } from '../node-request.js';
import { PARSE_ERROR, refusal, SERVER_ERROR } from '../responses.js';

export function jsonBody(options: { maxBytes: number }): MiddlewareHandler<HttpEnv> {
  return async function jsonBodyHandler(c, next) {
    const body = await readBody(c, options.maxBytes);
    if (!body.ok) {
      const message = `Payload Too Large: the request body must not exceed ${options.maxBytes} bytes`;
      return refusal(413, null, SERVER_ERROR, message, edgeHeaders(c, { Connection: 'close' }));
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.text);
    } catch {
      return refusal(400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON', edgeHeaders(c));
    }
    c.set('payload', payload);
    const method = Array.isArray(payload) ? 'batch' : (payload as { method?: unknown } | null)?.method;
    c.set('rpcMethod', typeof method === 'string' ? method.slice(0, 64) : null);
    return next();
  };
}
