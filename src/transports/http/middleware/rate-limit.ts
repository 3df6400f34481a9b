// Charges each request to the right budget before anything runs: tools/call per client IP
// (and per API key when the proxy names one), every other MCP request per client IP. A
// limit hit is 429 with Retry-After; a limiter store that fails is 503, never 429.
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../../log.js';
import { echoableId } from '../../../protocol/jsonrpc.js';
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
  log: Logger;
}

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<HttpEnv> {
  return async function rateLimitHandler(c, next) {
    const payload = c.get('payload');
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
