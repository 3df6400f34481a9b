// One small Hono app for a middleware test: the middleware under test on POST /mcp, a request
// id as the edge's first middleware sets one, and a handler that counts the requests that got
// through (or answers as the test says).
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { HttpEnv } from '../../src/transports/http/env.js';

export interface MiddlewareAppOptions {
  requestId?: string;
  /** What the handler behind the middleware answers (default: "ok"). */
  handler?: (c: Context<HttpEnv>) => Response | Promise<Response>;
}

export function middlewareApp(middleware: MiddlewareHandler<HttpEnv> | MiddlewareHandler<HttpEnv>[], options: MiddlewareAppOptions = {}) {
  const app = new Hono<HttpEnv>();
  let reached = 0;
  app.use('*', async (c, next) => {
    c.set('requestId', options.requestId ?? 'rid-test');
    await next();
  });
  for (const m of [middleware].flat()) app.use('/mcp', m);
  app.post('/mcp', (c) => {
    reached++;
    return options.handler ? options.handler(c) : c.text('ok');
  });
  return {
    app,
    /** POST http://x/mcp with these headers and body. */
    send: (headers: Record<string, string> = {}, body?: BodyInit) =>
      app.request('http://x/mcp', { method: 'POST', headers, ...(body === undefined ? {} : { body }) }),
    /** How many requests reached the handler. */
    reached: () => reached,
  };
}
