// The largest body accepted (doctrine HTTP-003: above 0 and at most 10 MiB). A harmless message
// padded with JSON whitespace to one byte over each common limit, smallest first, until one is
// refused; then the limit itself must pass. Exact when the limit is one of the common values;
// otherwise the refusals bound it, and doctrine 1.3.0 takes a known bound as the fact. A body
// over 10 MiB served is 0: whatever limit there is lies above what HTTP-003 accepts. Served
// means accepted; 413 or a connection closed while sending means refused.
import { type Check, servedResult } from '../check.js';
import type { Exchange } from '../exchange.js';

/** Limits servers and proxies ship with: body-parser 100kb, 1 MB, nginx 1m, 2 MiB, the MCP SDK's 4mb, 10 MiB. */
export const COMMON_LIMITS = [102_400, 1_000_000, 1_048_576, 2_097_152, 4_194_304, 10_485_760] as const;

type Verdict = 'accepted' | 'refused' | 'unclear';

function verdictOf(e: Exchange, rpcId: number): Verdict {
  if (servedResult(e, rpcId)) return 'accepted';
  if (e.status === 413 || (e.status === null && e.error === 'connection reset by the server')) return 'refused';
  return 'unclear';
}

export const bodyLimit: Check = {
  name: 'body-limit',
  facts: ['http.max_body_bytes'],
  async run(ctx) {
    const { findings } = ctx;
    const send = async (size: number) => {
      const { exchange, rpcId } = await ctx.benign(`body.${size}`, `a harmless request padded with whitespace to ${size} bytes`, {
        padTo: size,
      });
      return { exchange, verdict: verdictOf(exchange, rpcId) };
    };
    let below: { size: number; id: string } | undefined;
    for (const limit of COMMON_LIMITS) {
      const over = await send(limit + 1);
      if (over.verdict === 'accepted') {
        below = { size: limit + 1, id: over.exchange.id };
        continue;
      }
      if (over.verdict === 'unclear') {
        findings.leave(
          'http.max_body_bytes',
          `${limit + 1} bytes got ${over.exchange.status ?? over.exchange.error}: neither served nor 413`,
        );
        return;
      }
      const at = await send(limit);
      if (at.verdict === 'accepted') {
        findings.decide(
          'http.max_body_bytes',
          limit,
          { probe: at.exchange.id, why: `${limit} bytes were served` },
          { probe: over.exchange.id, why: `${limit + 1} bytes were refused (${over.exchange.status ?? over.exchange.error})` },
        );
      } else if (at.verdict === 'refused') {
        // Not at a common value: every body of `limit` bytes or more is refused, so `limit - 1` bounds it.
        findings.decide(
          'http.max_body_bytes',
          limit - 1,
          ...(below ? [{ probe: below.id, why: `${below.size} bytes were served` }] : []),
          { probe: at.exchange.id, why: `${limit} bytes were refused (${at.exchange.status ?? at.exchange.error}): the limit is below` },
          { probe: over.exchange.id, why: `${limit + 1} bytes were refused (${over.exchange.status ?? over.exchange.error})` },
        );
      } else {
        findings.leave(
          'http.max_body_bytes',
          `${limit + 1} bytes were refused, ${limit} bytes got ${at.exchange.status ?? at.exchange.error}: neither served nor 413`,
        );
      }
      return;
    }
    const top = COMMON_LIMITS[COMMON_LIMITS.length - 1]! + 1;
    findings.decide('http.max_body_bytes', 0, {
      probe: below!.id,
      why: `${top} bytes were served: no limit at or below the 10 MiB HTTP-003 accepts`,
    });
  },
};
