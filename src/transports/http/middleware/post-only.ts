// Everything but POST on /mcp: 405 with Allow. Signet is stateless, so there is no SSE
// stream to GET and no session to DELETE.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { refusal, SERVER_ERROR } from '../responses.js';

const MESSAGE = 'Method not allowed: this server is stateless and answers POST /mcp only (no SSE stream, no sessions).';

export function postOnly(): MiddlewareHandler<HttpEnv> {
  return function postOnlyHandler(c) {
    return Promise.resolve(refusal(405, null, SERVER_ERROR, MESSAGE, edgeHeaders(c, { Allow: 'POST' })));
  };
}
