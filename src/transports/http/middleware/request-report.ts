// Reports every /mcp request once, after its response is built: one event with who asked,
// what, the outcome and the time taken (the request log line and the metrics).
import type { MiddlewareHandler } from 'hono';
import type { HttpEnv, RequestEvent } from '../env.js';
import type { OAuthSubject } from '../oauth/principal-header.js';
import { INSUFFICIENT_SCOPE_HEADER } from './scope-check.js';

const subjectOf = (s: OAuthSubject | null) => (s === null ? null : { iss: s.iss, sub: s.sub, client: s.client });

export interface RequestReportOptions {
  onRequest: (event: RequestEvent) => void;
}

export function outcomeOf(status: number): RequestEvent['outcome'] {
  if (status < 400) return 'ok';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'limiter_error';
  return status < 500 ? 'rejected' : 'error';
}

export function requestReport(options: RequestReportOptions): MiddlewareHandler<HttpEnv> {
  return async function requestReportHandler(c, next) {
    const start = performance.now();
    // What later middleware fill in; set first so a refusal anywhere still reports.
    c.set('requestId', '');
    c.set('clientIp', '');
    c.set('keyId', null);
    c.set('subject', null);
    c.set('rpcMethod', null);
    c.set('limitedBy', null);
    c.set('route', null);
    c.set('rateHeaders', {});
    c.set('charged', false);
    await next();
    const route = c.get('route');
    const status = c.res.status;
    options.onRequest({
      requestId: c.get('requestId'),
      clientIp: c.get('clientIp'),
      keyId: c.get('keyId'),
      subject: subjectOf(c.get('subject')),
      rpcMethod: c.get('rpcMethod'),
      tool: route?.tool ?? null,
      status,
      // 503 from the in-flight bound is load, not a limiter store failure.
      outcome:
        status === 503 && c.get('limitedBy') === 'in-flight'
          ? 'overloaded'
          : status === 403 && c.res.headers.has(INSUFFICIENT_SCOPE_HEADER)
            ? 'insufficient_scope'
            : outcomeOf(status),
      cached: route?.cached ?? false,
      limitedBy: c.get('limitedBy'),
      era: route?.era ?? null,
      durationMs: performance.now() - start,
    });
  };
}
