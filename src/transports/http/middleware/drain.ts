// After SIGTERM, every answer asks the client to close its connection, so keep-alive
// clients move to another replica while this one drains.
import type { MiddlewareHandler } from 'hono';

export function closeWhileDraining(isDraining: () => boolean): MiddlewareHandler {
  return async function closeWhileDrainingHandler(c, next) {
    await next();
    if (isDraining()) c.res.headers.set('Connection', 'close');
  };
}
