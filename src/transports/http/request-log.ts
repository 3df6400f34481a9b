// One log line and the metrics for every /mcp request.
import type { AppContext } from '../../context.js';
import { createRequestLogger } from '../../log.js';
import { methodLabel } from '../../protocol/versions.js';
import type { RequestEvent } from './env.js';

export function requestReporter(ctx: AppContext): (e: RequestEvent) => void {
  const m = ctx.metrics;
  const log = createRequestLogger(ctx.log);
  return (e) => {
    if (m) {
      m.httpRequests.inc({ outcome: e.outcome });
      // Label values come from a fixed set: a client inventing method names cannot grow the registry.
      m.httpDuration.observe({ method: methodLabel(e.rpcMethod) }, e.durationMs / 1000);
      if (e.limitedBy) m.rateLimited.inc({ policy: e.limitedBy });
      if (e.outcome === 'limiter_error') m.limiterStoreErrors.inc({ handled_by: 'refused' });
    }
    log.info(
      {
        req_id: e.requestId,
        client_ip: e.clientIp,
        key_id: e.keyId ?? undefined,
        // The OAuth principal by name (never the token, which never reaches this server).
        oauth_sub: e.subject?.sub,
        oauth_iss: e.subject?.iss,
        oauth_client: e.subject?.client || undefined,
        // A known method, "batch" or "other": never the client's own string (it could hold anything).
        rpc_method: e.rpcMethod === null ? undefined : methodLabel(e.rpcMethod),
        era: e.era ?? undefined,
        tool: e.tool ?? undefined,
        status: e.status,
        outcome: e.outcome,
        cached: e.cached || undefined,
        duration_ms: Math.round(e.durationMs * 1000) / 1000,
      },
      'mcp request',
    );
  };
}
