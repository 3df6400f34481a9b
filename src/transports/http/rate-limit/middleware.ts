// Charges each request to its principal's budgets before anything runs. With an API key
// named by the authenticated proxy: tools/call to the key's calls budget and every other
// message to the key's requests budget, plus tools/call to the client address's outer guard
// (set well above one key's budget, so keys behind one NAT do not starve each other).
// Without a key: both budgets per client address. A limit hit is 429 with Retry-After; a
// limiter store that fails is 503, never 429.
//
// Two stages. Where the headers say what the body is (Mcp-Method: required on 2026-07-28
// requests, checked against the body by the router, so a client cannot pick a cheaper
// budget by lying), the charge happens before the body is read, and a 429 costs no body
// read or parse. Otherwise it happens once the body is read: every message of a parsed body,
// a batch too large to run included, before the scope check (a 403 is charged); a body that
// could not be parsed (too large, malformed, not UTF-8, past the shape bounds) as one tool
// call, since reading and scanning it was the work (pen test M2 of issue 26).
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../../../log.js';
import { echoableId } from '../../../protocol/jsonrpc.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { discardBody, header } from '../node-request.js';
import { type Principal, principalLabel, principalOf } from '../principal.js';
import { refusal, SERVER_ERROR } from '../responses.js';
import { charge, type Policy } from './policy.js';

export interface RateLimitOptions {
  /** tools/call per client address, for requests without a key. */
  calls: Policy | null;
  /** Every other MCP request per client address, for requests without a key (initialize, tools/list, ping...). */
  requests: Policy | null;
  /** tools/call per API key (from the proxy's X-Signet-Key-Id). */
  keyCalls: Policy | null;
  /** Every other MCP request per API key. */
  keyRequests: Policy | null;
  /** tools/call per client address over every key: the coarse outer guard. */
  ipGuard: Policy | null;
  /** IPv6 clients share a bucket per prefix of this length (SIGNET_RATE_LIMIT_IPV6_PREFIX). */
  ipv6Prefix: number;
  /** SIGNET_MAX_BODY_BYTES: a body refused before it was read is discarded up to this size. */
  maxBodyBytes: number;
  log: Logger;
}

type Check = { policy: Policy; key: string; points: number };

function checksFor(options: RateLimitOptions, who: Principal, toolCalls: number, others: number): Check[] {
  const checks: Check[] = [];
  // An OAuth subject spends a principal's budgets like an API key.
  const keyed = who.kind !== 'address';
  if (toolCalls > 0) {
    if (keyed && options.keyCalls) {
      checks.push({ policy: options.keyCalls, key: who.id, points: toolCalls });
      // One guard per kind of principal at an address (pen test L4 of issue 28, principal.ts):
      // clients anyone may register never spend the key holders' or the people's guard.
      if (options.ipGuard) checks.push({ policy: options.ipGuard, key: who.guard, points: toolCalls });
    } else if (options.calls) checks.push({ policy: options.calls, key: who.address, points: toolCalls });
  }
  if (others > 0) {
    if (keyed && options.keyRequests) checks.push({ policy: options.keyRequests, key: who.id, points: others });
    else if (options.requests) checks.push({ policy: options.requests, key: who.address, points: others });
  }
  return checks;
}

const WHAT: Record<Policy['name'], (who: string) => string> = {
  calls: () => 'tool calls per minute for this client IP',
  requests: () => 'requests per minute for this client IP',
  'key-calls': (who) => `tool calls per minute for this ${who}`,
  'key-requests': (who) => `requests per minute for this ${who}`,
  'ip-guard': () => 'tool calls per minute from this client IP over all its principals',
};

async function decide(c: Context<HttpEnv>, options: RateLimitOptions, who: Principal, checks: Check[], id: ReturnType<typeof echoableId>) {
  const decision = await charge(checks);
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
    const message = `Rate limit exceeded: too many ${WHAT[decision.policy](principalLabel(who))}; retry after ${decision.retryAfter} s`;
    return refusal(429, id, SERVER_ERROR, message, edgeHeaders(c, decision.headers), { retry_after: decision.retryAfter });
  }
  c.set('rateHeaders', decision.headers);
  return null;
}

/** Stage 1, before the body: charges a request whose Mcp-Method header names what it is. */
export function rateLimitByHeaders(options: RateLimitOptions): MiddlewareHandler<HttpEnv> {
  return async function rateLimitByHeadersHandler(c, next) {
    c.set('charged', false);
    const method = header(c, 'mcp-method');
    if (method === undefined || method === '') return next();
    const toolCall = method.trim() === 'tools/call' ? 1 : 0;
    const who = principalOf(c, options.ipv6Prefix);
    const refused = await decide(c, options, who, checksFor(options, who, toolCall, 1 - toolCall), null);
    if (refused) {
      // Read and dropped, never parsed: the proxy sending it gets the 429, not a reset.
      if (!(await discardBody(c, options.maxBodyBytes))) refused.headers.set('Connection', 'close');
      return refused;
    }
    c.set('charged', true);
    return next();
  };
}

/** Stage 2, after the body is parsed: charges every message of a request stage 1 did not. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<HttpEnv> {
  return async function rateLimitHandler(c, next) {
    if (c.get('charged')) return next();
    const payload = c.get('payload');
    // Every message counts against its own budget: tools/call against the calls limits, every
    // other message (in a batch too) against the requests limit.
    const messages = Array.isArray(payload) ? Math.max(1, payload.length) : 1;
    const toolCalls = countToolCalls(payload);
    const who = principalOf(c, options.ipv6Prefix);
    const checks = checksFor(options, who, toolCalls, messages - toolCalls);
    const refused = await decide(c, options, who, checks, echoableId(payload));
    return refused ?? next();
  };
}

/**
 * Stage 2 for a body refused before it could be parsed: charged as one tool call to its
 * principal (unless stage 1 charged it). The refusal to send instead when that is over budget
 * (429) or the store cannot answer (503), or null.
 */
export function chargeRefused(options: RateLimitOptions): (c: Context<HttpEnv>) => Promise<Response | null> {
  return async (c) => {
    if (c.get('charged')) return null;
    const who = principalOf(c, options.ipv6Prefix);
    return decide(c, options, who, checksFor(options, who, 1, 0), null);
  };
}

/** tools/call messages in a body: what the calls limiter charges. */
export function countToolCalls(payload: unknown): number {
  const list = Array.isArray(payload) ? payload : [payload];
  let n = 0;
  for (const m of list) if (m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call') n++;
  return n;
}
