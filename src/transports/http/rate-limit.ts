import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** One limiter and the name its policy carries in the RateLimit headers. */
export interface Policy {
  name: 'calls' | 'requests' | 'key-calls';
  perMinute: number;
  limiter: RateLimiterAbstract;
}

export type Decision =
  | { kind: 'allowed'; headers: Record<string, string> }
  | { kind: 'limited'; headers: Record<string, string>; retryAfter: number; policy: Policy['name'] }
  | { kind: 'store_error'; policy: Policy['name']; error: unknown };

/**
 * RateLimit / RateLimit-Policy per draft-ietf-httpapi-ratelimit-headers (structured
 * fields): q = quota, w = window seconds, r = remaining, t = seconds until reset.
 */
function headers(policy: Policy, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.perMinute};w=60`,
    RateLimit: `"${policy.name}";r=${Math.max(0, res.remainingPoints)};t=${reset}`,
  };
}

/**
 * Charges `points` to `key` under each policy in order; the first refusal wins. A
 * limiter that fails (store down, no insurance) is reported as a store error, never as
 * a limit hit.
 */
export async function charge(checks: { policy: Policy; key: string; points: number }[]): Promise<Decision> {
  let out: Record<string, string> = {};
  for (const { policy, key, points } of checks) {
    try {
      const res = await policy.limiter.consume(key, points);
      out = headers(policy, res); // the most specific policy's numbers are the ones reported
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        // Retry-After: whole seconds until the limiter frees a point, not the whole window.
        const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        return {
          kind: 'limited',
          policy: policy.name,
          retryAfter,
          headers: { ...headers(policy, err), 'Retry-After': String(retryAfter) },
        };
      }
      return { kind: 'store_error', policy: policy.name, error: err };
    }
  }
  return { kind: 'allowed', headers: out };
}
