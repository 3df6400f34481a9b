import { describe, expect, it } from 'vitest';
import { addressClass } from '../shared/ip-address.js';
import { parseTarget } from './target.js';

describe('parseTarget', () => {
  it('keeps path and query, drops the fragment, and sends SNI only for a name', () => {
    const t = parseTarget('https://MCP.example.org/api/mcp?tenant=a#frag');
    expect(t).toMatchObject({ https: true, hostname: 'mcp.example.org', port: 443, host: 'mcp.example.org', path: '/api/mcp?tenant=a' });
    expect(t.servername).toBe('mcp.example.org');
    expect(t.url.href).toBe('https://mcp.example.org/api/mcp?tenant=a');
    const v6 = parseTarget('http://[::1]:8080/mcp');
    expect(v6).toMatchObject({ hostname: '::1', port: 8080, host: '[::1]:8080', servername: undefined });
  });

  it('refuses other schemes and credentials in the URL, without quoting them', () => {
    expect(() => parseTarget('ftp://host/mcp')).toThrow(/http:\/\/ or https:\/\//);
    expect(() => parseTarget('not a url')).toThrow(/absolute/);
    let message = '';
    try {
      parseTarget('https://admin:hunter2@host/mcp');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/user name or password/);
    expect(message).not.toContain('hunter2');
  });
});

describe('addressClass', () => {
  it('sorts the peer address as exposure.endpoint_address_class does', () => {
    expect(['127.0.0.1', '::1', '::ffff:127.0.0.5'].map(addressClass)).toEqual(['loopback', 'loopback', 'loopback']);
    expect(['10.1.2.3', '172.20.0.1', '192.168.1.1', '100.64.0.1', 'fd00::1', 'fe80::1'].map(addressClass)).toEqual(
      Array(6).fill('private'),
    );
    expect(['8.8.8.8', '2001:4860::8888', '172.32.0.1'].map(addressClass)).toEqual(['public', 'public', 'public']);
  });
});
