// Rate limits. What every answer shows costs nothing: the RateLimit and RateLimit-Policy fields
// (draft-ietf-httpapi-ratelimit-headers) on the answers the MCP layer served. What needs the
// limit to trip runs only when asked (`--rate-limit`): up to 100 requests with a credential no
// server issued, one after another, until a 429: are refused credentials limited, and does
// the 429 say when to come back?
import type { Check, CheckContext } from '../check.js';
import type { Exchange } from '../exchange.js';
import { ACCEPT, initialize, JSON_TYPE } from '../mcp.js';
import { INVALID_CREDENTIAL } from './authentication.js';

const FLOOD = 100;

function headersShown(ctx: CheckContext): void {
  const { findings, state } = ctx;
  const served = state.served;
  if (served.length === 0) {
    findings.leave('rate_limit.ratelimit_headers', 'no answer was served');
    return;
  }
  const lacking = served.find((e) => !(e.headers['ratelimit'] && e.headers['ratelimit-policy']));
  if (lacking) {
    findings.decide('rate_limit.ratelimit_headers', false, {
      probe: lacking.id,
      why: 'a served answer carries no RateLimit and RateLimit-Policy',
    });
  } else {
    findings.decide('rate_limit.ratelimit_headers', true, {
      probe: served[0]!.id,
      why: `all ${served.length} served answers carry RateLimit and RateLimit-Policy (${served[0]!.headers['ratelimit-policy']})`,
    });
    findings.decide('rate_limit.enabled', true, {
      probe: served[0]!.id,
      why: `RateLimit-Policy: ${served[0]!.headers['ratelimit-policy']}`,
    });
  }
}

async function flood(ctx: CheckContext): Promise<void> {
  const { findings, prober, target } = ctx;
  const statuses: Record<string, number> = {};
  let first: Exchange | undefined;
  let limited: Exchange | undefined;
  let sent = 0;
  while (sent < FLOOD && !limited) {
    const e = await ctx.send({
      id: sent === 0 ? 'rate.invalid-credential' : 'rate.limited',
      purpose: `an initialize with a credential no server issued, sent until a 429 (at most ${FLOOD} times)`,
      method: 'POST',
      path: target.path,
      headers: [JSON_TYPE, ACCEPT, ['authorization', `Bearer ${INVALID_CREDENTIAL}`]],
      body: initialize('2025-11-25', ctx.id()),
      quiet: true,
    });
    sent += 1;
    const key = String(e.status ?? e.error);
    statuses[key] = (statuses[key] ?? 0) + 1;
    first ??= e;
    if (e.status === 429) limited = e;
    if (e.status === null) break;
  }
  // One record for the run (the first request, with the statuses of all), and the 429 itself.
  prober.record({ ...first!.evidence, repeated: { count: sent, statuses } });
  if (limited && limited !== first) prober.record(limited.evidence);
  if (limited) {
    const retry = limited.headers['retry-after'];
    findings.decide('rate_limit.unauthenticated_limited', true, {
      probe: limited.evidence.id,
      why: `429 after ${sent} requests with an invalid credential`,
    });
    findings.decide('rate_limit.enabled', true, { probe: limited.evidence.id, why: 'a 429 came back' });
    findings.decide('rate_limit.retry_after_header', retry !== undefined, {
      probe: limited.evidence.id,
      why: retry !== undefined ? `Retry-After: ${retry}` : 'the 429 has no Retry-After',
    });
  } else if (sent >= FLOOD) {
    findings.decide('rate_limit.unauthenticated_limited', false, {
      probe: first!.evidence.id,
      why: `${FLOOD} requests with an invalid credential, none answered 429`,
    });
    findings.leave('rate_limit.retry_after_header', 'no request was limited');
  } else {
    findings.leave('rate_limit.unauthenticated_limited', `the run stopped after ${sent} requests: one got no answer`);
  }
}

export const rateLimit: Check = {
  name: 'rate-limit',
  facts: ['rate_limit.ratelimit_headers', 'rate_limit.enabled', 'rate_limit.unauthenticated_limited', 'rate_limit.retry_after_header'],
  async run(ctx) {
    headersShown(ctx);
    if (!ctx.exerciseRateLimit) {
      for (const f of ['rate_limit.unauthenticated_limited', 'rate_limit.retry_after_header'] as const) {
        ctx.findings.leave(f, 'needs the limit to trip: run with --rate-limit');
      }
      ctx.findings.leave('rate_limit.enabled', 'no answer shows a limit; run with --rate-limit to trip one');
      return;
    }
    await flood(ctx);
  },
};
