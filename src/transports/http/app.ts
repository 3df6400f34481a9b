// The HTTP edge: POST /mcp through named middleware (report, identity and the proxy's
// secret, Host and Origin checks, content negotiation, rate limit by headers, in-flight
// bound, bounded body and the principal's turn, rate limit by body, an OAuth principal's
// scopes) to the shared router; health probes beside.
import type { BlockList } from 'node:net';
import { type Context, Hono } from 'hono';
import type { AppContext } from '../../context.js';
import { INTERNAL_ERROR } from '../../protocol/jsonrpc.js';
import type { Router } from '../../protocol/router.js';
import type { JsonShapeLimits } from '../../shared/json-shape.js';
import type { HttpEnv, RequestEvent } from './env.js';
import { FairTurns } from './fair-turns.js';
import { bodyGate } from './middleware/body-gate.js';
import { contentNegotiation } from './middleware/content-negotiation.js';
import { closeWhileDraining } from './middleware/drain.js';
import { hostValidation } from './middleware/host-validation.js';
import { jsonBody } from './middleware/json-body.js';
import { mcpRoute } from './middleware/mcp-route.js';
import { originValidation } from './middleware/origin-validation.js';
import { postOnly } from './middleware/post-only.js';
import { requestIdentity } from './middleware/request-identity.js';
import { requestReport } from './middleware/request-report.js';
import { scopeCheck } from './middleware/scope-check.js';
import type { ScopePolicy } from './oauth/scope-policy.js';
import { chargeRefused, rateLimit, rateLimitByHeaders } from './rate-limit/middleware.js';
import type { Policy } from './rate-limit/policy.js';
import type { LimiterState } from './rate-limit/store.js';
import { refusal } from './responses.js';
import { mountVerifyPage } from './verify-page.js';

export type { RequestEvent } from './env.js';

export interface HttpAppOptions {
  router: Router;
  /** Hostnames the Host header may name (hostPolicy: the loopback names and SIGNET_ALLOWED_HOSTS). */
  allowedHostnames: ReadonlySet<string>;
  /** Exact origins allowed besides loopback ones (SIGNET_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  /** SIGNET_ALLOW_LOOPBACK_ORIGINS: loopback origins (any port) pass besides allowedOrigins. */
  allowLoopbackOrigins: boolean;
  /** The proxy secret (SIGNET_PROXY_SECRET_FILE's content); null = no proxy is believed. */
  proxySecret: string | null;
  /** SIGNET_TRUSTED_PROXIES: where the proxy must connect from, besides the secret; null = anywhere. */
  trustedProxies: BlockList | null;
  calls: Policy | null;
  requests: Policy | null;
  keyCalls: Policy | null;
  keyRequests: Policy | null;
  ipGuard: Policy | null;
  /** SIGNET_OAUTH_SCOPE_MAP and SIGNET_OAUTH_SCOPE_IMPLIES: the scopes a call by an OAuth principal needs. */
  scopePolicy: ScopePolicy;
  /** IPv6 clients share a rate-limit bucket per prefix of this length (SIGNET_RATE_LIMIT_IPV6_PREFIX). */
  ipv6Prefix: number;
  maxBodyBytes: number;
  /** SIGNET_MAX_JSON_DEPTH and SIGNET_MAX_JSON_NODES. */
  jsonShape: JsonShapeLimits;
  /** SIGNET_MAX_CONCURRENT_BODIES and SIGNET_MAX_CONCURRENT_BODIES_PER_PRINCIPAL. */
  concurrentBodies: { total: number; perPrincipal: number };
  /** False while starting or draining: /readyz says 503. */
  isReady: () => boolean;
  /** What answers the rate limits now, which /readyz reports (a Redis outage degrades, it does not unready). */
  limiterState?: () => LimiterState;
  /** True after SIGTERM: every response asks the client to close its connection. */
  isDraining?: () => boolean;
  /** Test seam: where the socket peer address comes from. */
  peerAddress?: (c: Context) => string;
  /** Called once per /mcp request, after the response is built (logs, metrics). */
  onRequest?: (event: RequestEvent) => void;
}

export function createHttpApp(ctx: AppContext, options: HttpAppOptions): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  if (options.isDraining) app.use('*', closeWhileDraining({ isDraining: options.isDraining }));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    options.isReady()
      ? c.json({
          status: 'ready',
          doctrine_hash: ctx.footer.doctrine_hash,
          public_key: ctx.signer.publicKeySpki,
          // Still ready while Redis cannot answer: the insurance limiter does, and a replica going
          // unready with Redis would turn a degraded limit into an outage of every replica at once.
          limiter_store: options.limiterState?.() ?? 'memory',
        })
      : c.json({ status: 'not_ready' }, 503),
  );

  mountVerifyPage(app);

  app.use('/mcp', requestReport({ onRequest: options.onRequest ?? (() => {}) }));
  app.use(
    '/mcp',
    requestIdentity({ proxySecret: options.proxySecret, trustedProxies: options.trustedProxies, peerAddress: options.peerAddress }),
  );
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', postOnly());
  const limits = {
    calls: options.calls,
    requests: options.requests,
    keyCalls: options.keyCalls,
    keyRequests: options.keyRequests,
    ipGuard: options.ipGuard,
    ipv6Prefix: options.ipv6Prefix,
    maxBodyBytes: options.maxBodyBytes,
    log: ctx.log,
  };
  app.post(
    '/mcp',
    hostValidation({ allowedHostnames: options.allowedHostnames }),
    originValidation({ allowedOrigins: options.allowedOrigins, allowedHostnames: options.allowLoopbackOrigins ? undefined : [] }),
    contentNegotiation(),
    // A principal over budget is refused before its body is read, where the headers allow it.
    rateLimitByHeaders(limits),
    bodyGate({ ...options.concurrentBodies, ipv6Prefix: options.ipv6Prefix, maxBodyBytes: options.maxBodyBytes }),
    jsonBody({
      maxBytes: options.maxBodyBytes,
      shape: options.jsonShape,
      turns: new FairTurns(),
      ipv6Prefix: options.ipv6Prefix,
      chargeRefused: chargeRefused(limits),
    }),
    // Charged before the scope check: a request refused for its scopes cost its read and parse.
    rateLimit(limits),
    scopeCheck(options.scopePolicy),
    mcpRoute({ router: options.router }),
  );

  app.notFound((c) => c.json({ error: 'not_found', message: 'Signet serves POST /mcp, GET /verify, GET /healthz and GET /readyz' }, 404));
  app.onError((err, c) => {
    const rid = c.get('requestId') as string | undefined;
    ctx.log.error({ req_id: rid, err: { name: err.name, message: err.message } }, 'request failed');
    return refusal(500, null, INTERNAL_ERROR, 'Internal error', rid ? { 'X-Request-Id': rid } : {});
  });
  return app;
}
