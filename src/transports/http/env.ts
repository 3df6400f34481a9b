// What the HTTP edge's middleware hand to each other, per request (Hono context variables).
import type { Context } from 'hono';
import type { RouteOutcome } from '../../protocol/router.js';
import type { OAuthSubject } from './oauth/principal-header.js';

export interface RequestEvent {
  requestId: string;
  clientIp: string;
  keyId: string | null;
  /** The OAuth subject the proxy named (issuer, subject, client), when a token authenticated the call. */
  subject: Pick<OAuthSubject, 'iss' | 'sub' | 'client'> | null;
  /** JSON-RPC method of a single message, "batch" for a batch, null when unparsed. */
  rpcMethod: string | null;
  tool: string | null;
  status: number;
  outcome: 'ok' | 'rate_limited' | 'limiter_error' | 'overloaded' | 'insufficient_scope' | 'rejected' | 'error';
  /** The policy that refused the request with 429. */
  limitedBy: string | null;
  cached: boolean;
  era: RouteOutcome['era'];
  durationMs: number;
}

export type HttpEnv = {
  Variables: {
    requestId: string;
    clientIp: string;
    keyId: string | null;
    /** The OAuth subject and scopes the authenticated proxy named (X-Signet-Principal, X-Signet-Scopes). */
    subject: OAuthSubject | null;
    /** The parsed body (json-body middleware). */
    payload: unknown;
    rpcMethod: string | null;
    /** RateLimit headers every answer carries (rate-limit middleware). */
    rateHeaders: Record<string, string>;
    /** True once the rate limit was charged from the headers (Mcp-Method), before the body was read. */
    charged: boolean;
    limitedBy: string | null;
    route: RouteOutcome | null;
  };
};

/** X-Request-Id plus anything else, for a Response built at the edge. */
export function edgeHeaders(c: Context<HttpEnv>, extra: Record<string, string> = {}): Record<string, string> {
  return { 'X-Request-Id': c.get('requestId'), ...extra };
}
