// The end of the edge: hands the parsed body and the standard MCP headers to the shared
// router and sends what it answers, with the edge's own headers.
import type { MiddlewareHandler } from 'hono';
import type { Router } from '../../../protocol/router.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { header } from '../node-request.js';
import { jsonResponse } from '../responses.js';

export interface McpRouteOptions {
  router: Router;
}

export function mcpRoute(options: McpRouteOptions): MiddlewareHandler<HttpEnv> {
  const router = options.router;
  return function mcpRouteHandler(c) {
    const outcome = router.route(c.get('payload'), {
      transport: 'http',
      headers: { protocolVersion: header(c, 'mcp-protocol-version'), method: header(c, 'mcp-method'), name: header(c, 'mcp-name') },
    });
    c.set('route', outcome);
    // Headers are set where the Response is built: adding them afterwards would force a
    // WHATWG Headers object onto the hot path.
    const headers = edgeHeaders(c, c.get('rateHeaders'));
    return Promise.resolve(
      outcome.body === null ? new Response(null, { status: outcome.status, headers }) : jsonResponse(outcome.status, outcome.body, headers),
    );
  };
}
