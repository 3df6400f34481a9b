// The differential corpus: requests of both protocol eras, valid and not, that the router
// and the official SDKs must answer alike (test/integration/protocol-differential.test.ts).
import { readFileSync } from 'node:fs';
import { FACTS } from '../helpers/paths.js';

export interface Case {
  name: string;
  payload: unknown;
  /** Sent besides Content-Type: application/json and Accept: application/json, text/event-stream (which these may replace). */
  headers: Record<string, string>;
  /** legacy: 2025-era traffic (both SDKs answer it); modern: 2026-07-28 (v2 only). */
  era: 'legacy' | 'modern';
  /** The body as sent, when it is not JSON.stringify(payload) (malformed JSON, an empty body). */
  raw?: string;
  /** HTTP method (default POST). */
  httpMethod?: string;
}

const MODERN = '2026-07-28';
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'corpus', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const ids: unknown[] = [1, 'req-1', 0, -7, 9007199254740991, ''];
const badIds: [string, unknown][] = [
  ['null', null],
  ['float', 1.5],
  ['object', { a: 1 }],
  ['array', [1]],
  ['boolean', true],
];

const toolCalls: [string, Record<string, unknown> | undefined][] = [
  ['doctrine_info', {}],
  ['doctrine_info', undefined],
  ['doctrine_search', { query: 'bearer key', limit: 3 }],
  ['doctrine_search', { query: '' }],
  ['doctrine_search', { query: 'tls', limit: 0 }],
  ['doctrine_get', { id: 'AUTH-001' }],
  ['doctrine_get', { id: 'transport-and-exposure' }],
  ['doctrine_get', { id: 'NOPE-404' }],
  ['doctrine_get', { id: '../../etc/passwd' }],
  ['doctrine_get', {}],
  ['doctrine_get', { id: 5 }],
  ['doctrine_get', { id: 'AUTH-001', extra: true }],
  ['doctrine_evaluate', { facts: JSON.parse(readFileSync(FACTS('exposed'), 'utf8')) }],
  ['doctrine_evaluate', { facts: JSON.parse(readFileSync(FACTS('hardened'), 'utf8')), detail: 'full' }],
  ['doctrine_evaluate', { facts: {} }],
  ['doctrine_evaluate', { facts: { transport: { kind: 'smoke-signals' } } }],
  ['doctrine_evaluate', { facts: 'none' }],
  ['verify_output', { output: { hello: 'world' } }],
  ['verify_output', { output: 'not json' }],
  ['nonexistent_tool', {}],
];

const uris = [
  'doctrine://manifest',
  'doctrine://facts-schema',
  'doctrine://documents/transport-and-exposure',
  'doctrine://rules/AUTH-001',
  'doctrine://nope',
  'file:///etc/passwd',
];

function req(method: string, params: unknown, id: unknown = 1): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function corpus(): Case[] {
  const out: Case[] = [];
  const legacy = (name: string, payload: unknown, headers: Record<string, string> = {}) =>
    out.push({ name: `legacy: ${name}`, payload, headers, era: 'legacy' });
  const modern = (name: string, payload: unknown, headers: Record<string, string> = {}) =>
    out.push({ name: `modern: ${name}`, payload, headers, era: 'modern' });

  // ---- 2025 era -----------------------------------------------------------------------------
  for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01', '2026-07-28']) {
    legacy(`initialize ${v}`, req('initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
  }
  legacy('initialize without params', req('initialize', undefined));
  legacy(
    'initialize with a numeric version',
    req('initialize', { protocolVersion: 20250618, capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
  );
  for (const id of ids) legacy(`ping id ${JSON.stringify(id)}`, req('ping', undefined, id));
  legacy('ping with params', req('ping', { x: 1 }));
  for (const m of ['tools/list', 'resources/list', 'resources/templates/list']) {
    legacy(m, req(m, undefined));
    legacy(`${m} with a cursor`, req(m, { cursor: 'abc' }));
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26'])
      legacy(`${m} MCP-Protocol-Version ${v}`, req(m, undefined), { 'mcp-protocol-version': v });
  }
  for (const [i, [name, args]] of toolCalls.entries()) {
    legacy(
      `tools/call #${i} ${name} ${JSON.stringify(args)?.slice(0, 40)}`,
      req('tools/call', args === undefined ? { name } : { name, arguments: args }),
    );
  }
  for (const id of ids)
    legacy(
      `tools/call doctrine_get, id ${JSON.stringify(id)}`,
      req('tools/call', { name: 'doctrine_get', arguments: { id: 'TLS-001' } }, id),
    );
  legacy('tools/call with string id', req('tools/call', { name: 'doctrine_get', arguments: { id: 'AUTH-001' } }, 'call-7'));
  legacy(
    'tools/call with _meta progress token',
    req('tools/call', { name: 'doctrine_info', arguments: {}, _meta: { progressToken: 'p1' } }),
  );
  legacy('tools/call without params', req('tools/call', undefined));
  legacy('tools/call name not a string', req('tools/call', { name: 42 }));
  legacy('tools/call arguments an array', req('tools/call', { name: 'doctrine_info', arguments: [1, 2] }));
  for (const uri of uris) legacy(`resources/read ${uri}`, req('resources/read', { uri }));
  legacy('resources/read without uri', req('resources/read', {}));
  legacy('unknown method', req('tools/destroy', {}));
  legacy('logging/setLevel', req('logging/setLevel', { level: 'info' }));
  legacy('prompts/list', req('prompts/list', undefined));
  legacy('server/discover without envelope', req('server/discover', {}));
  for (const n of ['notifications/initialized', 'notifications/cancelled', 'notifications/whatever'])
    legacy(n, { jsonrpc: '2.0', method: n });
  legacy('a posted response', { jsonrpc: '2.0', id: 5, result: {} });
  legacy('a posted error response', { jsonrpc: '2.0', id: 5, error: { code: -1, message: 'x' } });
  legacy('batch of two requests and a notification', [
    req('ping', undefined, 1),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    req('tools/list', undefined, 2),
  ]);
  legacy('batch with a tools/call', [
    req('tools/call', { name: 'doctrine_get', arguments: { id: 'AUTH-001' } }, 'a'),
    req('tools/call', { name: 'doctrine_info', arguments: {} }, 'b'),
  ]);
  legacy('batch of notifications only', [{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  legacy('batch with an unknown method', [req('ping', undefined, 1), req('nope', undefined, 2)]);
  legacy('batch with an invalid element', [req('ping', undefined, 1), 5]);
  legacy('empty batch', []);
  legacy('batch under MCP-Protocol-Version 2025-06-18', [req('ping', undefined, 1)], { 'mcp-protocol-version': '2025-06-18' });
  for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    legacy(`tools/call MCP-Protocol-Version ${v}`, req('tools/call', { name: 'doctrine_info', arguments: {} }), {
      'mcp-protocol-version': v,
    });
    legacy(
      `notification MCP-Protocol-Version ${v}`,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-protocol-version': v },
    );
  }
  legacy(
    'notification under an unsupported header',
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-protocol-version': '1999-01-01' },
  );
  legacy('tools/call with an agreeing Mcp-Method and Mcp-Name', req('tools/call', { name: 'doctrine_info', arguments: {} }), {
    'mcp-method': 'tools/call',
    'mcp-name': 'doctrine_info',
  });
  legacy('tools/call with a contradicting Mcp-Name', req('tools/call', { name: 'doctrine_evaluate', arguments: { facts: {} } }), {
    'mcp-method': 'tools/call',
    'mcp-name': 'doctrine_info',
  });
  legacy('tools/call disguised by Mcp-Method', req('tools/call', { name: 'doctrine_info', arguments: {} }), { 'mcp-method': 'tools/list' });
  legacy('batch carrying Mcp-Name', [req('tools/call', { name: 'doctrine_info', arguments: {} })], { 'mcp-name': 'doctrine_search' });
  legacy('unsupported MCP-Protocol-Version', req('tools/list', undefined), { 'mcp-protocol-version': '1999-01-01' });
  legacy(
    'initialize under an unsupported header',
    req('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    { 'mcp-protocol-version': '1999-01-01' },
  );
  for (const [label, id] of badIds) legacy(`id ${label}`, req('ping', undefined, id));
  legacy('jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' });
  legacy('no jsonrpc member', { id: 1, method: 'ping' });
  legacy('method not a string', { jsonrpc: '2.0', id: 1, method: 7 });
  legacy('params an array', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] });
  legacy('a JSON string', 'hello');
  legacy('a JSON number', 42);
  legacy('an object that is no message', { hello: 'world' });
  legacy('null', null);
  // The HTTP edge in front of the router.
  const edge = (name: string, era: 'legacy' | 'modern', extra: Partial<Case>) =>
    out.push({ name: `${era}: ${name}`, payload: null, headers: {}, era, ...extra });
  edge('malformed JSON', 'legacy', { raw: '{"jsonrpc": "2.0", "id": 1, "method": ' });
  edge('empty body', 'legacy', { raw: '' });
  edge('text/plain content type', 'legacy', { raw: JSON.stringify(req('ping', undefined)), headers: { 'content-type': 'text/plain' } });
  edge('content type with charset', 'legacy', {
    raw: JSON.stringify(req('ping', undefined)),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  edge('Accept application/json only', 'legacy', { raw: JSON.stringify(req('ping', undefined)), headers: { accept: 'application/json' } });
  edge('Accept text/event-stream only', 'legacy', {
    raw: JSON.stringify(req('ping', undefined)),
    headers: { accept: 'text/event-stream' },
  });
  edge('Accept */*', 'legacy', { raw: JSON.stringify(req('tools/list', undefined)), headers: { accept: '*/*' } });
  edge('DELETE /mcp', 'legacy', { httpMethod: 'DELETE' });
  edge('malformed JSON under 2026-07-28 headers', 'modern', {
    raw: '{"jsonrpc":',
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
  });

  // ---- 2026-07-28 ---------------------------------------------------------------------------
  const std = (method: string, name?: string) => ({
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  });
  const mreq = (method: string, params: Record<string, unknown> = {}, id: unknown = 1, meta: Record<string, unknown> = ENVELOPE) =>
    req(method, { ...params, _meta: meta }, id);
  for (const id of ids) modern(`server/discover id ${JSON.stringify(id)}`, mreq('server/discover', {}, id), std('server/discover'));
  for (const m of ['tools/list', 'resources/list', 'resources/templates/list']) {
    modern(m, mreq(m), std(m));
    modern(`${m} with a cursor`, mreq(m, { cursor: 'abc' }), std(m));
  }
  for (const [i, [name, args]] of toolCalls.entries()) {
    modern(
      `tools/call #${i} ${name} ${JSON.stringify(args)?.slice(0, 40)}`,
      mreq('tools/call', args === undefined ? { name } : { name, arguments: args }),
      std('tools/call', name),
    );
  }
  for (const id of ids)
    modern(
      `tools/call doctrine_get, id ${JSON.stringify(id)}`,
      mreq('tools/call', { name: 'doctrine_get', arguments: { id: 'TLS-001' } }, id),
      std('tools/call', 'doctrine_get'),
    );
  for (const v of ['2025-06-18', '2025-11-25'])
    modern(`tools/call with a ${v} header`, mreq('tools/call', { name: 'doctrine_info', arguments: {} }), {
      ...std('tools/call', 'doctrine_info'),
      'mcp-protocol-version': v,
    });
  modern(
    'tools/call, Mcp-Name in base64',
    mreq('tools/call', { name: 'doctrine_info', arguments: {} }),
    std('tools/call', `=?base64?${Buffer.from('doctrine_info').toString('base64')}?=`),
  );
  modern(
    'tools/call, Mcp-Name with bad base64',
    mreq('tools/call', { name: 'doctrine_info', arguments: {} }),
    std('tools/call', '=?base64?!!!?='),
  );
  modern(
    'tools/call, Mcp-Name contradicting the body',
    mreq('tools/call', { name: 'doctrine_info', arguments: {} }),
    std('tools/call', 'doctrine_get'),
  );
  modern('tools/call, Mcp-Name missing', mreq('tools/call', { name: 'doctrine_info', arguments: {} }), std('tools/call'));
  modern(
    'tools/call, Mcp-Name with surrounding spaces',
    mreq('tools/call', { name: 'doctrine_info', arguments: {} }),
    std('tools/call', '  doctrine_info '),
  );
  modern('tools/call without a name', mreq('tools/call', {}), std('tools/call'));
  modern('tools/call name not a string', mreq('tools/call', { name: 7 }), std('tools/call'));
  modern(
    'tools/call with a progress token',
    mreq('tools/call', { name: 'doctrine_info', arguments: {} }, 1, { ...ENVELOPE, progressToken: 3 }),
    std('tools/call', 'doctrine_info'),
  );
  for (const uri of uris) modern(`resources/read ${uri}`, mreq('resources/read', { uri }), std('resources/read', uri));
  modern('resources/read, Mcp-Name missing', mreq('resources/read', { uri: uris[0] }), std('resources/read'));
  modern('resources/read without uri', mreq('resources/read', {}), std('resources/read'));
  for (const m of ['ping', 'initialize', 'logging/setLevel', 'completion/complete', 'prompts/list', 'tools/destroy'])
    modern(`${m} (not in this era)`, mreq(m), std(m));
  modern('Mcp-Method missing', mreq('tools/list'), { 'mcp-protocol-version': MODERN });
  modern('Mcp-Method contradicting the body', mreq('tools/list'), std('tools/call'));
  modern('MCP-Protocol-Version missing', mreq('tools/list'), { 'mcp-method': 'tools/list' });
  modern('MCP-Protocol-Version contradicting the envelope', mreq('tools/list'), {
    ...std('tools/list'),
    'mcp-protocol-version': '2025-06-18',
  });
  modern('modern header, no envelope', req('tools/list', undefined), std('tools/list'));
  modern(
    'modern header, envelope without the version',
    req('tools/list', { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } } }),
    std('tools/list'),
  );
  modern(
    'modern header, initialize without envelope',
    req('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    std('initialize'),
  );
  modern(
    'envelope naming 2099-01-01',
    mreq('tools/list', {}, 1, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
    { ...std('tools/list'), 'mcp-protocol-version': '2099-01-01' },
  );
  modern(
    'envelope naming 2025-06-18',
    mreq('tools/list', {}, 1, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' }),
    { ...std('tools/list'), 'mcp-protocol-version': '2025-06-18' },
  );
  const env = (over: Record<string, unknown>) => ({ ...ENVELOPE, ...over });
  modern(
    'envelope without clientInfo',
    mreq('tools/list', {}, 1, { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} }),
    std('tools/list'),
  );
  modern(
    'envelope without capabilities',
    mreq('tools/list', {}, 1, {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    }),
    std('tools/list'),
  );
  modern(
    'envelope with only the version',
    mreq('tools/list', {}, 1, { 'io.modelcontextprotocol/protocolVersion': MODERN }),
    std('tools/list'),
  );
  modern('envelope clientInfo a number', mreq('tools/list', {}, 1, env({ 'io.modelcontextprotocol/clientInfo': 5 })), std('tools/list'));
  modern(
    'envelope clientInfo without version',
    mreq('tools/list', {}, 1, env({ 'io.modelcontextprotocol/clientInfo': { name: 'c' } })),
    std('tools/list'),
  );
  modern(
    'envelope capabilities an array',
    mreq('tools/list', {}, 1, env({ 'io.modelcontextprotocol/clientCapabilities': [] })),
    std('tools/list'),
  );
  modern(
    'envelope version a number',
    mreq('tools/list', {}, 1, env({ 'io.modelcontextprotocol/protocolVersion': 20260728 })),
    std('tools/list'),
  );
  modern('envelope log level', mreq('tools/list', {}, 1, env({ 'io.modelcontextprotocol/logLevel': 'debug' })), std('tools/list'));
  modern('envelope bad log level', mreq('tools/list', {}, 1, env({ 'io.modelcontextprotocol/logLevel': 'loud' })), std('tools/list'));
  for (const [label, id] of badIds) modern(`id ${label}`, mreq('tools/list', {}, id), std('tools/list'));
  modern('jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }, std('tools/list'));
  modern(
    'notification with envelope',
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } },
    std('notifications/cancelled'),
  );
  modern(
    'notification, Mcp-Method contradicting',
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } },
    std('notifications/initialized'),
  );
  modern(
    'notification, envelope version a number',
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: env({ 'io.modelcontextprotocol/protocolVersion': 1 }) } },
    std('notifications/cancelled'),
  );
  modern(
    'notification, modern header without envelope',
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    std('notifications/initialized'),
  );
  for (const id of ids)
    modern(
      `resources/read manifest, id ${JSON.stringify(id)}`,
      mreq('resources/read', { uri: uris[0] }, id),
      std('resources/read', uris[0]),
    );
  modern('batch with a modern request', [mreq('tools/list')], {});
  modern('batch mixing eras', [req('ping', undefined, 1), mreq('tools/list', {}, 2)], {});
  return out;
}
