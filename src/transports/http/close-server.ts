// Closing the listener gracefully: stop accepting, end idle keep-alive connections now and
// busy ones after their response, and cut whatever is left after the timeout.
import type { Server } from 'node:http';
import type { Logger } from '../../log.js';

export function closeServer(server: Server, timeoutMs: number, log: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      log.warn('shutdown timeout reached: closing remaining connections');
      server.closeAllConnections();
    }, timeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
