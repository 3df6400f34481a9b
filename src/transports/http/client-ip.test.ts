import { describe, expect, it } from 'vitest';
import { clientIp, limitBucket, normaliseIp, parseTrustedProxies } from './client-ip.js';

describe('client address and rate-limit bucket', () => {
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

  it('never believes X-Forwarded-For from an untrusted peer, and reads it right to left from a trusted one', () => {
    const trusted = parseTrustedProxies(['10.0.0.0/8']);
    expect(clientIp('198.51.100.1', '1.2.3.4', trusted, true)).toBe('198.51.100.1');
    expect(clientIp('10.0.0.5', '1.2.3.4, 203.0.113.9', trusted, true)).toBe('203.0.113.9');
    expect(clientIp('10.0.0.5', '203.0.113.9, 10.0.0.7', trusted, true)).toBe('203.0.113.9');
    expect(clientIp('10.0.0.5', 'garbage, 10.0.0.7', trusted, true)).toBe('10.0.0.7');
    expect(normaliseIp('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(() => parseTrustedProxies(['10.0.0.0/33'])).toThrow(/not an IP address or CIDR/);
  });
});
