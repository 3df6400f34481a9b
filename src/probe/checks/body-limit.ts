// The largest body accepted (doctrine HTTP-003: above 0 and at most 10 MiB). A harmless message
// padded with JSON whitespace to one byte over each common limit, smallest first, until one is
// refused; then the limit itself must pass. Exact only when the limit is one of the common
// values; otherwise the answers bound it and the fact stays undecided. Served means accepted;
// 413 or a connection closed while sending means refused.
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
    const { findings, state } = ctx;
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
      } else {
        findings.leave(
          'http.max_body_bytes',
          `the limit lies between ${below ? below.size : 'the sizes of the earlier requests'} and ${limit} bytes (${at.exchange.id} refused), not at a common value`,
        );
      }
      return;
    }
    const top = COMMON_LIMITS[COMMON_LIMITS.length - 1]! + 1;
    findings.leave('http.max_body_bytes', `a ${top}-byte body was served: the limit is higher, or there is none`);
    state.inexpressible.push({
      what: `a ${top}-byte body was served: the limit is above 10 MiB or there is none, which the integer fact cannot say`,
      facts: ['http.max_body_bytes'],
      probe: below!.id,
    });
  },
};
