// One log line and the metrics for every /mcp request.
import type { AppContext } from '../../context.js';
import type { RequestEvent } from './env.js';

export function requestReporter(ctx: AppContext): (e: RequestEvent) => void {
  const m = ctx.metrics;
  // The same destination, level and format as every other line, without the redaction
  // pass: it walks every redacted path on every line and measured at about 6 µs a request,
  // a tenth of a cached call. It finds nothing here: each field is a value Signet derived
  // (a checked id, a parsed address, a status), and redaction works by key, not by value.
  const log = ctx.log.child({}, { redact: { paths: [] } });
  return (e) => {
    if (m) {
      m.httpRequests.inc({ outcome: e.outcome });
      m.httpDuration.observe({ method: e.rpcMethod ?? 'unparsed' }, e.durationMs / 1000);
      if (e.limitedBy) m.rateLimited.inc({ policy: e.limitedBy });
      if (e.outcome === 'limiter_error') m.limiterStoreErrors.inc({ handled_by: 'refused' });
    }
    log.info(
      {
        req_id: e.requestId,
        client_ip: e.clientIp,
        key_id: e.keyId ?? undefined,
        rpc_method: e.rpcMethod ?? undefined,
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
