import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../../context.js';
import { clientIp, isTrusted } from './client-ip.js';
import { countToolCalls, errorResponse, idOf, INVALID_REQUEST, PARSE_ERROR, SERVER_ERROR } from './jsonrpc.js';
import { handleMcpPost } from './mcp-handler.js';
import { header, readBody } from './node-request.js';
import { checkOrigin, type OriginPolicy } from './origin.js';
import { charge, type Policy } from './rate-limit.js';

export interface HttpAppOptions {
  originPolicy: () => OriginPolicy;
  trustedProxies: BlockList;
  anyTrustedProxy: boolean;
  /** tools/call per client IP. */
  calls: Policy | null;
  /** Every other MCP request per client IP (initialize, tools/list, ping...). */
  requests: Policy | null;
  /** tools/call per authenticated key id (from the proxy's X-Signet-Key-Id). */
  keyCalls: Policy | null;
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

export interface RequestEvent {
  requestId: string;
  clientIp: string;
  keyId: string | null;
  /** JSON-RPC method of a single message, "batch" for a batch, null when unparsed. */
  rpcMethod: string | null;
  tool: string | null;
  status: number;
  outcome: 'ok' | 'rate_limited' | 'limiter_error' | 'rejected' | 'error';
  /** The policy that refused the request with 429. */
  limitedBy: string | null;
  cached: boolean;
  durationMs: number;
}

type Env = {
  Variables: {
    requestId: string;
    clientIp: string;
    keyId: string | null;
    rpcMethod: string | null;
    tool: string | null;
    cached: boolean;
    limitedBy: string | null;
  };
};

function outcomeOf(status: number): RequestEvent['outcome'] {
  if (status < 400) return 'ok';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'limiter_error';
  return status < 500 ? 'rejected' : 'error';
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KEY_ID = /^[0-9A-Za-z]{1,64}$/;
const ALLOW = { Allow: 'POST' };

/** Accepts `application/json` (or anything JSON-ish) even without `text/event-stream`. */
function acceptsJson(accept: string | null): boolean {
  if (!accept) return true;
  return /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept);
}

function isJsonContentType(ct: string | null): boolean {
  return !!ct && /^application\/json\s*(;|$)/i.test(ct.trim());
}

/**
 * The request as the SDK transport sees it. The body was already read and parsed; the
 * SDK insists on Accept listing text/event-stream even in JSON response mode, and this
 * server only ever answers JSON, so any client that accepts JSON is served.
 */
function sdkRequest(raw: Request): Request {
  const headers = new Headers(raw.headers);
  headers.set('accept', 'application/json, text/event-stream');
  return new Request(raw.url, { method: 'POST', headers });
}

export function createHttpApp(ctx: AppContext, options: HttpAppOptions): Hono<Env> {
  const app = new Hono<Env>();
  const peer = options.peerAddress ?? ((c: Context) => getConnInfo(c).remote.address ?? '0.0.0.0');

  if (options.isDraining) {
    const draining = options.isDraining;
    app.use('*', async (c, next) => {
      await next();
      if (draining()) c.res.headers.set('Connection', 'close');
    });
  }

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    options.isReady()
      ? c.json({ status: 'ready', doctrine_hash: ctx.footer.doctrine_hash, public_key: ctx.signer.publicKeySpki })
      : c.json({ status: 'not_ready' }, 503),
  );

  // Who is calling: request id, client IP (X-Forwarded-For only from trusted proxies), key id.
  app.use('/mcp', async (c, next) => {
    const start = performance.now();
    const peerAddr = peer(c);
    const fromProxy = options.anyTrustedProxy && isTrusted(options.trustedProxies, peerAddr);
    const rid = header(c, 'x-request-id');
    c.set('requestId', fromProxy && rid && REQUEST_ID.test(rid) ? rid : randomUUID());
    c.set('clientIp', clientIp(peerAddr, header(c, 'x-forwarded-for'), options.trustedProxies, options.anyTrustedProxy));
    const kid = header(c, 'x-signet-key-id');
    c.set('keyId', fromProxy && kid && KEY_ID.test(kid) ? kid : null);
    c.set('rpcMethod', null);
    c.set('tool', null);
    c.set('cached', false);
    c.set('limitedBy', null);
    await next();
    options.onRequest?.({
      requestId: c.get('requestId'),
      clientIp: c.get('clientIp'),
      keyId: c.get('keyId'),
      rpcMethod: c.get('rpcMethod'),
      tool: c.get('tool'),
      status: c.res.status,
      outcome: outcomeOf(c.res.status),
      cached: c.get('cached'),
      limitedBy: c.get('limitedBy'),
      durationMs: performance.now() - start,
    });
  });

  // Every /mcp response carries X-Request-Id, set where the Response is built: headers
  // added afterwards would force a WHATWG Headers object onto the hot path.
  const rid = (c: Context<Env>, extra: Record<string, string> = {}) => ({ 'X-Request-Id': c.get('requestId'), ...extra });

  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', (c) =>
    errorResponse(405, null, SERVER_ERROR, 'Method not allowed: this server is stateless and answers POST /mcp only (no SSE stream, no sessions).', rid(c, ALLOW)),
  );

  app.post(
    '/mcp',
    async (c, next) => {
      const refusal = checkOrigin(options.originPolicy(), header(c, 'host') ?? null, header(c, 'origin') ?? null);
      if (refusal) return errorResponse(403, null, SERVER_ERROR, `Forbidden: ${refusal}`, rid(c));
      if (!isJsonContentType(header(c, 'content-type') ?? null)) {
        return errorResponse(415, null, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json', rid(c));
      }
      if (!acceptsJson(header(c, 'accept') ?? null)) {
        return errorResponse(406, null, SERVER_ERROR, 'Not Acceptable: this server answers with application/json', rid(c));
      }
      const version = header(c, 'mcp-protocol-version');
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return errorResponse(400, null, SERVER_ERROR, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`, rid(c));
      }
      return next();
    },
    async (c) => {
      const body = await readBody(c, options.maxBodyBytes);
      if (!body.ok) {
        return errorResponse(413, null, SERVER_ERROR, `Payload Too Large: the request body must not exceed ${options.maxBodyBytes} bytes`, rid(c, { Connection: 'close' }));
      }
      let payload: unknown;
      try {
        payload = JSON.parse(body.text);
      } catch {
        return errorResponse(400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON', rid(c));
      }
      if (payload === null || typeof payload !== 'object' || (Array.isArray(payload) && payload.length === 0)) {
        return errorResponse(400, null, INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC message or a non-empty batch', rid(c));
      }
      const id = idOf(payload);
      c.set('rpcMethod', Array.isArray(payload) ? 'batch' : typeof (payload as { method?: unknown }).method === 'string' ? ((payload as { method: string }).method.slice(0, 64)) : null);
      const toolCalls = countToolCalls(payload);
      const ip = c.get('clientIp');
      const keyId = c.get('keyId');
      const checks: { policy: Policy; key: string; points: number }[] = [];
      if (toolCalls > 0) {
        if (options.calls) checks.push({ policy: options.calls, key: ip, points: toolCalls });
        if (options.keyCalls && keyId) checks.push({ policy: options.keyCalls, key: keyId, points: toolCalls });
      } else if (options.requests) {
        checks.push({ policy: options.requests, key: ip, points: 1 });
      }
      const decision = await charge(checks);
      if (decision.kind === 'store_error') {
        ctx.log.error({ req_id: c.get('requestId'), policy: decision.policy, err: String(decision.error) }, 'rate limiter store failed');
        return errorResponse(503, id, SERVER_ERROR, 'Service Unavailable: the rate limiter cannot reach its store; retry shortly', rid(c, { 'Retry-After': '1' }));
      }
      if (decision.kind === 'limited') {
        c.set('limitedBy', decision.policy);
        const who = decision.policy === 'key-calls' ? 'API key' : 'client IP';
        return errorResponse(429, id, SERVER_ERROR, `Rate limit exceeded: too many ${decision.policy === 'requests' ? 'requests' : 'tool calls'} per minute for this ${who}; retry after ${decision.retryAfter} s`, rid(c, decision.headers), {
          retry_after: decision.retryAfter,
        });
      }

      const { response, tool, cached } = await handleMcpPost(ctx, () => sdkRequest(c.req.raw), payload, rid(c, decision.headers));
      c.set('tool', tool);
      c.set('cached', cached);
      return response;
    },
  );

  app.notFound((c) => c.json({ error: 'not_found', message: 'Signet serves POST /mcp, GET /healthz and GET /readyz' }, 404));
  app.onError((err, c) => {
    ctx.log.error({ req_id: c.get('requestId'), err: { name: err.name, message: err.message } }, 'request failed');
    return errorResponse(500, null, -32603, 'Internal error', c.get('requestId') ? rid(c) : {});
  });
  return app;
}
