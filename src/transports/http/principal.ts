// Whose budget a request spends: the API key or the OAuth subject (issuer + sub) the
// authenticated proxy names, or, without either, the client address (IPv6 cut to its prefix). One principal's flood spends its own budgets
// and in-flight slots, never another's; the address stays a coarse outer guard.
import type { Context } from 'hono';
import type { HttpEnv } from './env.js';
import { limitBucket } from './rate-limit/bucket.js';

export interface Principal {
  kind: 'key' | 'oauth' | 'address';
  /** The limiter key: the key id, the subject's hashed id, or the address bucket. */
  id: string;
  /** The client address bucket, whatever the kind: what the outer guard counts. */
  address: string;
  /**
   * The outer guard this principal spends at its address: one for API keys (the operator mints
   * them), one for OAuth clients acting as themselves (client credentials: sub is the client,
   * RFC 9068 §2.2; anyone the issuer lets register can mint them), one for people's tokens. So
   * self-registered clients behind a gateway address exhaust only their own guard, never the key
   * holders' or the people's (pen test L4 of issue 28).
   */
  guard: string;
}

export function principalOf(c: Context<HttpEnv>, ipv6Prefix: number): Principal {
  const address = limitBucket(c.get('clientIp'), ipv6Prefix);
  const keyId = c.get('keyId');
  if (keyId) return { kind: 'key', id: keyId, address, guard: `key:${address}` };
  const subject = c.get('subject');
  // Key ids are base62 and subject ids start with "oauth:": the two never share a bucket.
  if (!subject) return { kind: 'address', id: address, address, guard: `address:${address}` };
  const machine = subject.client !== '' && subject.sub === subject.client;
  return { kind: 'oauth', id: subject.id, address, guard: `${machine ? 'oauth-client' : 'oauth'}:${address}` };
}

/** How a refusal names the principal to the caller. */
export function principalLabel(p: Principal): string {
  return p.kind === 'key' ? 'API key' : p.kind === 'oauth' ? 'OAuth subject' : 'client IP';
}
