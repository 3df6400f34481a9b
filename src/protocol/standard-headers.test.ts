import { describe, expect, it } from 'vitest';
import type { Request } from './jsonrpc.js';
import { checkMirroredHeaders, checkStandardHeaders, decodeHeaderValue, stripOws } from './standard-headers.js';

const call: Request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doctrine_get' } };

describe('standard headers (SEP-2243)', () => {
  it('decodes the base64 sentinel and refuses a malformed one', () => {
    expect(decodeHeaderValue('plain')).toBe('plain');
    expect(decodeHeaderValue(`=?base64?${btoa('doctrine_get')}?=`)).toBe('doctrine_get');
    expect(decodeHeaderValue('=?base64?ZG9j?=')).toBe('doc');
    expect(decodeHeaderValue('=?base64?ZG9?=')).toBeUndefined(); // no padding
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined(); // not UTF-8
    // Non-zero padding bits (pen test L2): "…dGV=" decodes like "…dGU=" (doctrine_evaluate) in lenient decoders.
    const canonical = btoa('doctrine_evaluate');
    expect(canonical.endsWith('dGU=')).toBe(true);
    expect(decodeHeaderValue(`=?base64?${canonical}?=`)).toBe('doctrine_evaluate');
    expect(decodeHeaderValue(`=?base64?${canonical.replace(/dGU=$/, 'dGV=')}?=`)).toBeUndefined();
    expect(decodeHeaderValue('=?base64?ZG9jdA==?=')).toBe('doct');
    expect(decodeHeaderValue('=?base64?ZG9jdB==?=')).toBeUndefined();
    expect(stripOws(' \tx y\t ')).toBe('x y');
  });

  it('requires the version and method headers on a modern request, and Mcp-Name where the body has a name', () => {
    const full = { protocolVersion: '2026-07-28', method: 'tools/call', name: 'doctrine_get' };
    expect(checkStandardHeaders(full, call, '2026-07-28')).toBeNull();
    expect(checkStandardHeaders({ ...full, protocolVersion: undefined }, call, '2026-07-28')?.data.mismatch.header).toBe('(missing)');
    expect(checkStandardHeaders({ ...full, method: undefined }, call, '2026-07-28')?.message).toMatch(/Mcp-Method header is absent/);
    expect(checkStandardHeaders({ ...full, name: undefined }, call, '2026-07-28')?.message).toMatch(/Mcp-Name header is absent/);
    expect(checkStandardHeaders({ ...full, name: 'doctrine_info' }, call, '2026-07-28')).toMatchObject({
      code: -32020,
      data: { mismatch: { header: 'doctrine_info' } },
    });
  });

  it('lets a 2025-era request omit the headers but never contradict its body', () => {
    expect(checkMirroredHeaders({}, call)).toBeNull();
    expect(checkMirroredHeaders({ method: 'tools/call', name: 'doctrine_get' }, call)).toBeNull();
    expect(checkMirroredHeaders({ method: 'tools/list' }, call)?.code).toBe(-32020);
    expect(checkMirroredHeaders({ name: 'doctrine_info' }, call)?.code).toBe(-32020);
    expect(checkMirroredHeaders({ name: 'anything' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeNull();
  });
});
