import { describe, expect, it } from 'vitest';
import { leakIn } from './leaks.js';

describe('leakIn', () => {
  it('recognises the internals the common runtimes write', () => {
    const js = JSON.stringify({ error: new SyntaxError('x').stack });
    expect(leakIn(js)).toBe('a JavaScript stack trace');
    expect(leakIn('Traceback (most recent call last):\n  File "/srv/app/main.py", line 3, in <module>')).toBe('a Python traceback');
    expect(leakIn('\tat com.example.Handler.handle(Handler.java:42)')).toBe('a Java stack trace');
    expect(leakIn('goroutine 1 [running]:\nmain.main()')).toBe('a Go stack trace');
    expect(leakIn('{"message":"cannot open /home/deploy/app/config.yml"}')).toBe('a file path');
    expect(leakIn('{"message":"Unexpected token } in JSON at position 5"}')).toBe('raw JSON parser text');
    expect(leakIn(`{"message":"Unexpected token 'x', \\"xyz\\" is not valid JSON"}`)).toBe('raw JSON parser text');
    expect(leakIn('{"message":"TypeError: Cannot read properties of undefined"}')).toBe('raw exception text');
    expect(leakIn('SQLSTATE[42000]: Syntax error')).toBe('SQL error text');
  });

  it('leaves a server’s own wording alone (Signet’s and the MCP SDK’s answers)', () => {
    for (const text of [
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the body is not valid JSON"},"id":null}',
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"},"id":null}',
      '{"jsonrpc":"2.0","id":16,"error":{"code":-32602,"message":"Unknown tool: signet-probe-no-such-tool. tools/list names the available tools."}}',
      '{"error":"unauthorized","message":"a valid API key is required: Authorization: Bearer sgnk_…"}',
    ]) {
      expect(leakIn(text), text).toBeUndefined();
    }
  });
});
