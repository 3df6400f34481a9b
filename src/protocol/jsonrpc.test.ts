import { describe, expect, it } from 'vitest';
import { echoableId, isNotification, isRequest, isResponse, methodErrorBody, refusalBody, resultBody } from './jsonrpc.js';

describe('JSON-RPC shapes and bytes', () => {
  it('tells requests, notifications and responses apart, as the MCP SDKs do', () => {
    expect(isRequest({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(true);
    expect(isRequest({ jsonrpc: '2.0', id: 'a', method: 'ping', params: {} })).toBe(true);
    for (const bad of [
      { jsonrpc: '2.0', id: 1.5, method: 'p' },
      { jsonrpc: '2.0', id: null, method: 'p' },
      { jsonrpc: '1.0', id: 1, method: 'p' },
      { jsonrpc: '2.0', id: 1, method: 'p', params: [] },
      { id: 1, method: 'p' },
    ]) {
      expect(isRequest(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(isNotification({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(true);
    expect(isNotification({ jsonrpc: '2.0', id: 1, method: 'x' })).toBe(false);
    expect(isResponse({ jsonrpc: '2.0', id: 1, result: {} })).toBe(true);
    expect(isResponse({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } })).toBe(true);
    expect(isResponse({ jsonrpc: '2.0', id: 1, result: 5 })).toBe(false);
  });

  it('echoes a request id only when the message names a method', () => {
    expect(echoableId({ id: 'x', method: 'm' })).toBe('x');
    expect(echoableId({ id: 1.5, method: 'm' })).toBe(1.5);
    expect(echoableId({ id: {}, method: 'm' })).toBeNull();
    expect(echoableId({ id: 1 })).toBeNull();
    expect(echoableId([1])).toBeNull();
  });

  it('writes the members in the order the SDKs do', () => {
    expect(resultBody(1, '{}')).toBe('{"result":{},"jsonrpc":"2.0","id":1}');
    expect(methodErrorBody('a', -32601, 'Method not found')).toBe(
      '{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found"}}',
    );
    expect(refusalBody(null, -32600, 'x')).toBe('{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"},"id":null}');
    expect(refusalBody(2, -32020, 'y', { d: 1 })).toBe('{"jsonrpc":"2.0","error":{"code":-32020,"message":"y","data":{"d":1}},"id":2}');
  });
});
