// Bounds the request bodies read, parsed and held at once: per principal (an API key, or a
// client address without one), so one principal's flood waits on itself, and in total, so
// the process's memory stays bounded whoever floods. A principal over its share gets 429; a
// server over its total gets 503 with Retry-After, like a limiter store that cannot answer.
// A slot is held until the response is built: a parsed body lives that long.
import type { MiddlewareHandler } from 'hono';
import { edgeHeaders, type HttpEnv } from '../env.js';
import { discardBody } from '../node-request.js';
import { principalLabel, principalOf } from '../principal.js';
import { refusal, SERVER_ERROR } from '../responses.js';

export interface BodyGateOptions {
  /** SIGNET_MAX_CONCURRENT_BODIES. */
  total: number;
  /** SIGNET_MAX_CONCURRENT_BODIES_PER_PRINCIPAL. */
  perPrincipal: number;
  ipv6Prefix: number;
  /** SIGNET_MAX_BODY_BYTES: a refused body is read and discarded up to this size. */
  maxBodyBytes: number;
}

export function bodyGate(options: BodyGateOptions): MiddlewareHandler<HttpEnv> {
  let inFlight = 0;
  const byPrincipal = new Map<string, number>();
  return async function bodyGateHandler(c, next) {
    const who = principalOf(c, options.ipv6Prefix);
    const slot = `${who.kind}:${who.id}`;
    const mine = byPrincipal.get(slot) ?? 0;
    if (mine >= options.perPrincipal) {
      c.set('limitedBy', 'in-flight');
      const message = `Too Many Requests: ${options.perPrincipal} requests already in flight for this ${principalLabel(who)}; retry after 1 s`;
      const close: Record<string, string> = (await discardBody(c, options.maxBodyBytes)) ? {} : { Connection: 'close' };
      return refusal(429, null, SERVER_ERROR, message, edgeHeaders(c, { 'Retry-After': '1', ...close }), { retry_after: 1 });
    }
    if (inFlight >= options.total) {
      c.set('limitedBy', 'in-flight');
      const close: Record<string, string> = (await discardBody(c, options.maxBodyBytes)) ? {} : { Connection: 'close' };
      const message = 'Service Unavailable: too many requests in flight; retry shortly';
      return refusal(503, null, SERVER_ERROR, message, edgeHeaders(c, { 'Retry-After': '1', ...close }));
    }
    inFlight++;
    byPrincipal.set(slot, mine + 1);
    try {
      await next();
    } finally {
      inFlight--;
      const left = (byPrincipal.get(slot) ?? 1) - 1;
      if (left === 0) byPrincipal.delete(slot);
      else byPrincipal.set(slot, left);
    }
  };
}
