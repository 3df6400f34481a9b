import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/** One limiter and the name its policy carries in the RateLimit headers. */
export interface Policy {
  name: 'calls' | 'requests' | 'key-calls' | 'key-requests' | 'ip-guard';
  perMinute: number;
  limiter: RateLimiterAbstract;
}

export type Decision =
  | { kind: 'allowed'; headers: Record<string, string> }
  | { kind: 'limited'; headers: Record<string, string>; retryAfter: number; policy: Policy['name'] }
  | { kind: 'store_error'; policy: Policy['name']; error: unknown };

/**
 * RateLimit / RateLimit-Policy per draft-ietf-httpapi-ratelimit-headers (structured-field
 * lists): one item per policy that applied, q = quota, w = window seconds, r = remaining,
 * t = seconds until reset.
 */
function entries(policy: Policy, res: RateLimiterRes): { policy: string; limit: string } {
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  return {
    policy: `"${policy.name}";q=${policy.perMinute};w=60`,
    limit: `"${policy.name}";r=${Math.max(0, res.remainingPoints)};t=${reset}`,
  };
}

function headers(list: { policy: string; limit: string }[]): Record<string, string> {
  return list.length === 0
    ? {}
    : { 'RateLimit-Policy': list.map((e) => e.policy).join(', '), RateLimit: list.map((e) => e.limit).join(', ') };
}

/**
 * Charges `points` to `key` under each policy in order; the first refusal wins. A
 * limiter that fails (store down, no insurance) is reported as a store error, never as
 * a limit hit. Every policy that applied is reported in the RateLimit headers.
 */
export async function charge(checks: { policy: Policy; key: string; points: number }[]): Promise<Decision> {
  const applied: { policy: string; limit: string }[] = [];
  for (const { policy, key, points } of checks) {
    try {
      applied.push(entries(policy, await policy.limiter.consume(key, points)));
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        // Retry-After: whole seconds until the limiter frees a point, not the whole window.
        const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        applied.push(entries(policy, err));
        return { kind: 'limited', policy: policy.name, retryAfter, headers: { ...headers(applied), 'Retry-After': String(retryAfter) } };
      }
      return { kind: 'store_error', policy: policy.name, error: err };
    }
  }
  return { kind: 'allowed', headers: headers(applied) };
}
