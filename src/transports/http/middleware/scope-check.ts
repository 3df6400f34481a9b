// A call by an OAuth principal runs only with the scopes its operation needs (scope-policy.ts),
// checked on the parsed body, for both protocol eras, before it is charged or run. A refusal
// is 403 with X-Signet-Insufficient-Scope naming every missing scope: the reference proxy
// turns it into the client's challenge, `WWW-Authenticate: Bearer error="insufficient_scope",
// scope="…", resource_metadata="…"` (RFC 6750 §3.1; MCP authorization, scope challenge
// handling), and hides the header itself.
import type { MiddlewareHandler } from 'hono';
import { echoableId } from '../../../protocol/jsonrpc.js';
import { EDGE_HEADERS } from '../../../shared/edge-contract.js';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { missingScopes, type ScopePolicy } from '../oauth/scope-policy.js';
import { refusal, SERVER_ERROR } from '../responses.js';

export const INSUFFICIENT_SCOPE_HEADER = EDGE_HEADERS.insufficientScope;

export function scopeCheck(policy: ScopePolicy): MiddlewareHandler<HttpEnv> {
  return function scopeCheckHandler(c, next) {
    const subject = c.get('subject');
    if (subject === null) return next();
    const payload = c.get('payload');
    const missing = missingScopes(policy, payload, subject.scopes);
    if (missing.length === 0) return next();
    const scope = missing.join(' ');
    return Promise.resolve(
      refusal(
        403,
        echoableId(payload),
        SERVER_ERROR,
        `Forbidden: insufficient scope: this request needs ${scope}`,
        edgeHeaders(c, { [INSUFFICIENT_SCOPE_HEADER]: scope }),
        { required_scopes: missing },
      ),
    );
  };
}
