// Charges each request to the right budget before anything runs: tools/call per client IP
// (and per API key when the proxy names one), every other MCP request per client IP. A
// limit hit is 429 with Retry-After; a limiter store that fails is 503, never 429.
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../../log.js';
import { echoableId } from '../../../protocol/jsonrpc.js';
import { limitBucket } from '../client-ip.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { charge, type Policy } from '../rate-limit.js';
import { countToolCalls, refusal, SERVER_ERROR } from '../responses.js';

export interface RateLimitOptions {
  /** tools/call per client IP. */
  calls: Policy | null;
  /** Every other MCP request per client IP (initialize, tools/list, ping...). */
  requests: Policy | null;
  /** tools/call per authenticated key id (from the proxy's X-Signet-Key-Id). */
  keyCalls: Policy | null;
  /** IPv6 clients share a bucket per prefix of this length (SIGNET_RATE_LIMIT_IPV6_PREFIX). */
  ipv6Prefix: number;
  /** Larger batches are left uncharged: the router refuses them before anything runs. */
  maxBatch: number;
  log: Logger;
}

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<HttpEnv> {
  return async function rateLimitHandler(c, next) {
    const payload = c.get('payload');
    if (Array.isArray(payload) && payload.length > options.maxBatch) return next();
    // Every message counts against its own budget: tools/call against the calls limits, every
    // other message (in a batch too) against the requests limit.
    const messages = Array.isArray(payload) ? Math.max(1, payload.length) : 1;
    const toolCalls = countToolCalls(payload);
    const others = messages - toolCalls;
    const bucket = limitBucket(c.get('clientIp'), options.ipv6Prefix);
    const keyId = c.get('keyId');
    const checks: { policy: Policy; key: string; points: number }[] = [];
    if (toolCalls > 0) {
      if (options.calls) checks.push({ policy: options.calls, key: bucket, points: toolCalls });
      if (options.keyCalls && keyId) checks.push({ policy: options.keyCalls, key: keyId, points: toolCalls });
    }
    if (others > 0 && options.requests) checks.push({ policy: options.requests, key: bucket, points: others });
    const decision = await charge(checks);
    const id = echoableId(payload);
    if (decision.kind === 'store_error') {
      options.log.error({ req_id: c.get('requestId'), policy: decision.policy, err: String(decision.error) }, 'rate limiter store failed');
      return refusal(
        503,
        id,
        SERVER_ERROR,
        'Service Unavailable: the rate limiter cannot reach its store; retry shortly',
        edgeHeaders(c, { 'Retry-After': '1' }),
      );
    }
    if (decision.kind === 'limited') {
      c.set('limitedBy', decision.policy);
      const who = decision.policy === 'key-calls' ? 'API key' : 'client IP';
      const what = decision.policy === 'requests' ? 'requests' : 'tool calls';
      const message = `Rate limit exceeded: too many ${what} per minute for this ${who}; retry after ${decision.retryAfter} s`;
      return refusal(429, id, SERVER_ERROR, message, edgeHeaders(c, decision.headers), { retry_after: decision.retryAfter });
    }
    c.set('rateHeaders', decision.headers);
    return next();
  };
}
