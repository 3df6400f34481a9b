import { describe, expect, it } from 'vitest';
import { clientIp, normaliseIp, parseTrustedProxies } from '../../../src/transports/http/client-ip.js';

describe('client IP', () => {
  const trusted = parseTrustedProxies(['10.0.0.0/8', 'fd00::/8', '192.168.1.5']);

  it('uses the socket peer when no proxy is trusted, whatever the headers say', () => {
    const none = parseTrustedProxies([]);
    expect(clientIp('203.0.113.1', '1.1.1.1', none, false)).toBe('203.0.113.1');
    expect(clientIp('10.1.1.1', '1.1.1.1', trusted, true)).toBe('1.1.1.1');
    expect(clientIp('203.0.113.1', '1.1.1.1', trusted, true)).toBe('203.0.113.1');
  });

  it('walks X-Forwarded-For right to left, past trusted hops only', () => {
    expect(clientIp('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3', trusted, true)).toBe('198.51.100.7');
    expect(clientIp('10.0.0.2', '10.0.0.4, 10.0.0.3', trusted, true)).toBe('10.0.0.4');
    expect(clientIp('10.0.0.2', 'not-an-ip, 10.0.0.3', trusted, true)).toBe('10.0.0.3');
    expect(clientIp('192.168.1.5', '198.51.100.9', trusted, true)).toBe('198.51.100.9');
    expect(clientIp('192.168.1.6', '198.51.100.9', trusted, true)).toBe('192.168.1.6');
  });

  it('handles IPv6 and IPv4-mapped IPv6 peers and hops', () => {
    expect(normaliseIp('::FFFF:10.0.0.2')).toBe('10.0.0.2');
    expect(clientIp('::ffff:10.0.0.2', '2001:db8::5', trusted, true)).toBe('2001:db8::5');
    expect(clientIp('fd00::1', '::ffff:198.51.100.1', trusted, true)).toBe('198.51.100.1');
    expect(clientIp('::ffff:203.0.113.9', undefined, trusted, true)).toBe('203.0.113.9');
  });

  it('rejects malformed SIGNET_TRUSTED_PROXIES entries clearly', () => {
    expect(() => parseTrustedProxies(['10.0.0.0/33'])).toThrow(/SIGNET_TRUSTED_PROXIES: "10.0.0.0\/33" is not an IP address or CIDR/);
    expect(() => parseTrustedProxies(['proxy.internal'])).toThrow(/not an IP address or CIDR/);
    expect(() => parseTrustedProxies(['10.0.0.0/x'])).toThrow(/not an IP address or CIDR/);
  });
});
