import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { clientIp, isTrusted, normaliseIp } from '../../../src/transports/http/client-ip.js';
import { limitBucket } from '../../../src/transports/http/rate-limit/bucket.js';

const SECRET = { SIGNET_PROXY_SECRET_FILE: '/run/proxy-auth/secret' };
const parseTrustedProxies = (cidrs: string[]) => loadConfig({ ...SECRET, SIGNET_TRUSTED_PROXIES: cidrs.join(',') }).http.trustedProxies!;

describe('client IP', () => {
  it('is the socket peer unless the authenticated proxy names one (the caller passes X-Forwarded-For only then)', () => {
    expect(clientIp('203.0.113.1', undefined)).toBe('203.0.113.1');
    expect(clientIp('10.1.1.1', '198.51.100.7')).toBe('198.51.100.7');
  });

  it("takes the proxy's own (last) X-Forwarded-For entry; anything left of it, or garbage, is never used", () => {
    expect(clientIp('10.0.0.2', '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7');
    expect(clientIp('10.0.0.2', '198.51.100.7, not-an-ip')).toBe('10.0.0.2');
    expect(clientIp('10.0.0.2', '')).toBe('10.0.0.2');
  });

  it('handles IPv6 and IPv4-mapped IPv6 peers and hops', () => {
    expect(normaliseIp('::FFFF:10.0.0.2')).toBe('10.0.0.2');
    expect(clientIp('::ffff:10.0.0.2', '2001:db8::5')).toBe('2001:db8::5');
    expect(clientIp('fd00::1', '::ffff:198.51.100.1')).toBe('198.51.100.1');
    expect(clientIp('::ffff:203.0.113.9', undefined)).toBe('203.0.113.9');
  });

  it('checks the optional proxy range (SIGNET_TRUSTED_PROXIES) and rejects malformed entries clearly', () => {
    const trusted = parseTrustedProxies(['10.0.0.0/8', 'fd00::/8', '192.168.1.5']);
    expect(isTrusted(trusted, '10.9.9.9')).toBe(true);
    expect(isTrusted(trusted, '::ffff:10.9.9.9')).toBe(true);
    expect(isTrusted(trusted, 'fd12::1')).toBe(true);
    expect(isTrusted(trusted, '192.168.1.6')).toBe(false);
    expect(isTrusted(trusted, 'garbage')).toBe(false);
    expect(() => parseTrustedProxies(['10.0.0.0/33'])).toThrow(
      /SIGNET_TRUSTED_PROXIES must list IP addresses or CIDRs \(e\.g\. 10\.0\.0\.0\/8, fd00::\/8\) \(got "10\.0\.0\.0\/33"\)/,
    );
    expect(() => parseTrustedProxies(['proxy.internal'])).toThrow(/SIGNET_TRUSTED_PROXIES must list IP addresses or CIDRs/);
    expect(() => parseTrustedProxies(['10.0.0.0/x'])).toThrow(/SIGNET_TRUSTED_PROXIES must list IP addresses or CIDRs/);
  });
});

describe('rate-limit bucket', () => {
  it('buckets IPv6 clients by prefix (default /64), IPv4 by address', () => {
    expect(limitBucket('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(limitBucket('2001:db8:1:2:aaaa::1', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(limitBucket('2001:db8:1:2:ffff:ffff:ffff:fffe', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(limitBucket('2001:db8:1:3::1', 64)).toBe('2001:db8:1:3:0:0:0:0/64');
    expect(limitBucket('2001:db8:1:2:aaaa::1', 56)).toBe('2001:db8:1:0:0:0:0:0/56');
    expect(limitBucket('2001:db8:1:2ff::1', 56)).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(limitBucket('2001:db8::1', 128)).toBe('2001:db8::1');
    expect(limitBucket('::1', 64)).toBe('0:0:0:0:0:0:0:0/64');
    expect(limitBucket('64:ff9b::192.0.2.33', 96)).toBe('64:ff9b:0:0:0:0:0:0/96');
  });
});
