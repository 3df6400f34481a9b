// The HTTP edge: POST /mcp through named middleware (identity, Host and Origin checks,
// content negotiation, body, rate limit) to the shared router; health probes beside it.
import type { BlockList } from 'node:net';
import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context.js';
import type { Router } from '../../protocol/router.js';
import { edgeHeaders, type HttpEnv, type RequestEvent } from './env.js';
import { contentNegotiation } from './middleware/content-negotiation.js';
import { closeWhileDraining } from './middleware/drain.js';
import { hostValidation } from './middleware/host-validation.js';
import { jsonBody } from './middleware/json-body.js';
import { originValidation, type OriginPolicy } from './middleware/origin-validation.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestIdentity } from './middleware/request-identity.js';
import { header } from './node-request.js';
import type { Policy } from './rate-limit.js';
import { jsonResponse, refusal, SERVER_ERROR } from './responses.js';
import { mountVerifyPage } from './verify-page.js';

export type { RequestEvent } from './env.js';

export interface HttpAppOptions {
  router: Router;
  allowedHosts: () => ReadonlySet<string>;
  originPolicy: OriginPolicy;
  trustedProxies: BlockList;
  anyTrustedProxy: boolean;
  calls: Policy | null;
  requests: Policy | null;
  keyCalls: Policy | null;
  ipv6Prefix: number;
  maxBodyBytes: number;
  /** False while starting or draining: /readyz says 503. */
  isReady: () => boolean;
  /** True after SIGTERM: every response asks the client to close its connection. */
  isDraining?: () => boolean;
  /** Test seam: where the socket peer address comes from. */
  peerAddress?: (c: Context) => string;
  /** Called once per /mcp request, after the response is built (logs, metrics). */
  onRequest?: (event: RequestEvent) => void;
}

export function createHttpApp(ctx: AppContext, options: HttpAppOptions): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  if (options.isDraining) app.use('*', closeWhileDraining(options.isDraining));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    options.isReady()
      ? c.json({ status: 'ready', doctrine_hash: ctx.footer.doctrine_hash, public_key: ctx.signer.publicKeySpki })
      : c.json({ status: 'not_ready' }, 503),
  );

  mountVerifyPage(app);

  app.use('/mcp', requestIdentity(options));
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', (c) =>
    refusal(405, null, SERVER_ERROR, 'Method not allowed: this server is stateless and answers POST /mcp only (no SSE stream, no sessions).', edgeHeaders(c, { Allow: 'POST' })),
  );
  const router = options.router;
  app.post(
    '/mcp',
    hostValidation(options.allowedHosts),
    originValidation(options.originPolicy),
    contentNegotiation(),
    jsonBody({ maxBytes: options.maxBodyBytes }),
    rateLimit({ calls: options.calls, requests: options.requests, keyCalls: options.keyCalls, ipv6Prefix: options.ipv6Prefix, maxBatch: ctx.config.maxBatchMessages, log: ctx.log }),
    function mcpRouteHandler(c) {
      const outcome = router.route(c.get('payload'), {
        transport: 'http',
        headers: { protocolVersion: header(c, 'mcp-protocol-version'), method: header(c, 'mcp-method'), name: header(c, 'mcp-name') },
      });
      c.set('route', outcome);
      // Headers are set where the Response is built: adding them afterwards would force a
      // WHATWG Headers object onto the hot path.
      const headers = edgeHeaders(c, c.get('rateHeaders'));
      if (outcome.body === null) return new Response(null, { status: outcome.status, headers });
      return jsonResponse(outcome.status, outcome.body, headers);
    },
  );

  app.notFound((c) => c.json({ error: 'not_found', message: 'Signet serves POST /mcp, GET /verify, GET /healthz and GET /readyz' }, 404));
  app.onError((err, c) => {
    const rid = c.get('requestId') as string | undefined;
    ctx.log.error({ req_id: rid, err: { name: err.name, message: err.message } }, 'request failed');
    return refusal(500, null, -32603, 'Internal error', rid ? { 'X-Request-Id': rid } : {});
  });
  return app;
}
