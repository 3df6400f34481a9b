// Whose budget a request spends: the API key the authenticated proxy names, or, without one,
// the client address (IPv6 cut to its prefix). One principal's flood spends its own budgets
// and in-flight slots, never another's; the address stays a coarse outer guard.
import type { Context } from 'hono';
import { limitBucket } from './client-ip.js';
import type { HttpEnv } from './env.js';

export interface Principal {
  kind: 'key' | 'address';
  /** The limiter key: the key id, or the address bucket. */
  id: string;
  /** The client address bucket, whatever the kind: what the outer guard counts. */
  address: string;
}

export function principalOf(c: Context<HttpEnv>, ipv6Prefix: number): Principal {
  const address = limitBucket(c.get('clientIp'), ipv6Prefix);
  const keyId = c.get('keyId');
  return keyId ? { kind: 'key', id: keyId, address } : { kind: 'address', id: address, address };
}

/** How a refusal names the principal to the caller. */
export function principalLabel(p: Principal): string {
  return p.kind === 'key' ? 'API key' : 'client IP';
}
