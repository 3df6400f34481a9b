// HSTS (doctrine TLS-004): every HTTPS answer, errors included, must carry
// Strict-Transport-Security with max-age of at least 180 days. Run last, over every answer the
// probe read: nginx drops a server-level add_header in any location that adds its own, so one
// path's answers prove nothing about another's.
import type { Check } from '../check.js';

export const MIN_MAX_AGE = 15_552_000;

export function maxAgeOf(value: string | undefined): number | undefined {
  const m = value ? /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?/i.exec(value) : null;
  return m ? Number(m[1]) : undefined;
}

export const hsts: Check = {
  name: 'hsts',
  facts: ['tls.hsts'],
  async run(ctx) {
    const { findings, state, target } = ctx;
    if (!target.https) {
      findings.leave('tls.hsts', 'the endpoint is plain http');
      return;
    }
    const answered = state.exchanges.filter((e) => e.status !== null);
    if (answered.length === 0) {
      findings.leave('tls.hsts', 'no HTTPS answer was read');
      return;
    }
    const weak = answered.find((e) => (maxAgeOf(e.headers['strict-transport-security']) ?? 0) < MIN_MAX_AGE);
    if (weak) {
      const value = weak.headers['strict-transport-security'];
      findings.decide('tls.hsts', false, {
        probe: weak.id,
        why: value
          ? `Strict-Transport-Security: ${value} is under ${MIN_MAX_AGE} seconds`
          : `the ${weak.status} answer has no Strict-Transport-Security`,
      });
      return;
    }
    findings.decide('tls.hsts', true, {
      probe: answered[0]!.id,
      why: `all ${answered.length} answers (${[...new Set(answered.map((e) => e.status))].join(', ')}) carry Strict-Transport-Security with max-age ≥ ${MIN_MAX_AGE}`,
    });
  },
};
