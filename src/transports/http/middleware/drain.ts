// After SIGTERM, every answer asks the client to close its connection, so keep-alive
// clients move to another replica while this one drains.
import type { MiddlewareHandler } from 'hono';

export interface CloseWhileDrainingOptions {
  /** True from SIGTERM on. */
  isDraining: () => boolean;
}

export function closeWhileDraining(options: CloseWhileDrainingOptions): MiddlewareHandler {
  return async function closeWhileDrainingHandler(c, next) {
    await next();
    if (options.isDraining()) c.res.headers.set('Connection', 'close');
  };
}
