// The HTTP edge in process: the proxy's secret, one principal's budgets and in-flight slots
// against another's, the body bounds and the cheap 429 (issue 17: H1, H2, M4).
import { describe, expect, it } from 'vitest';
import type { RequestEvent } from '../../../src/transports/http/app.js';
import { httpApp as app, memoryPolicy as policy } from '../../helpers/http-app.js';

const SECRET = 'f'.repeat(64);
const JSON_HEADERS = { host: '127.0.0.1:3000', 'content-type': 'application/json', accept: 'application/json' };
const call = (id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'doctrine_info', arguments: {} } });
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1:3000/mcp', {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
const viaProxy = (key: string | null, address = '198.51.100.50') => ({
  'x-signet-proxy-auth': SECRET,
  'x-forwarded-for': address,
  ...(key ? { 'x-signet-key-id': key } : {}),
});

/** A body that sends `head` and then waits until released: a request holding its in-flight slot. */
function heldBody(head: string): { body: ReadableStream<Uint8Array>; release: () => void } {
  let release = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      release = () => controller.close();
    },
  });
  return { body, release: () => release() };
}

describe('HTTP edge bounds (in process)', () => {
  it('keeps the body shape bounded: a deeply nested body is 400 / -32700 and the server goes on serving', async () => {
    const events: RequestEvent[] = [];
    const a = app({ jsonShape: { maxDepth: 64, maxNodes: 100_000 } }, events);
    const deep = await a.request(post('['.repeat(100_000) + ']'.repeat(100_000)));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({
      id: null,
      error: { code: -32700, message: 'Parse error: the body nests deeper than 64 levels' },
    });
    const wide = await a.request(post(`[${'0,'.repeat(100_000)}0]`));
    expect(((await wide.json()) as { error: { message: string } }).error.message).toBe(
      'Parse error: the body holds more than 100000 JSON values',
    );
    expect((await a.request(post(call()))).status).toBe(200);
    expect(events.map((e) => e.status)).toEqual([400, 400, 200]);
  });

  it('answers a request over budget whose Mcp-Method names it with 429 before reading its body (the body here is not even JSON)', async () => {
    const a = app({ calls: policy('calls', 1) });
    const modern = { 'mcp-method': 'tools/call', 'mcp-name': 'doctrine_info', 'mcp-protocol-version': '2026-07-28' };
    expect((await a.request(post(call(), { 'mcp-method': 'tools/call' }))).status).toBe(200);
    const limited = await a.request(post('this is not JSON and is never read', modern));
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({
      id: null,
      error: { code: -32000, message: expect.stringMatching(/too many tool calls/) },
    });
    // Without the header the body decides, after a bounded parse; a broken body is charged as a
    // call all the same (pen test M2 of issue 26), so over budget it is a 429 too.
    expect((await a.request(post('this is not JSON'))).status).toBe(429);
    const fresh = app({ calls: policy('calls', 1) });
    expect((await fresh.request(post('this is not JSON'))).status).toBe(400);
    expect((await fresh.request(post(call()))).status).toBe(429);
  });

  it('charges a call whose Mcp-Method was charged from the headers once, not twice', async () => {
    const a = app({ calls: policy('calls', 2) });
    const first = await a.request(post(call(), { 'mcp-method': 'tools/call' }));
    expect(first.headers.get('ratelimit')).toMatch(/^"calls";r=1;/);
    const second = await a.request(post(call()));
    expect(second.headers.get('ratelimit')).toMatch(/^"calls";r=0;/);
  });

  it('gives each API key from one address its own budgets (M4), with the address as a coarse guard above them', async () => {
    const a = app({
      proxySecret: SECRET,
      calls: policy('calls', 3),
      keyCalls: policy('key-calls', 3),
      keyRequests: policy('key-requests', 100),
      ipGuard: policy('ip-guard', 7),
    });
    for (const key of ['keyA', 'keyB']) {
      for (let i = 0; i < 3; i++) expect((await a.request(post(call(i), viaProxy(key)))).status, `${key} ${i}`).toBe(200);
      const limited = await a.request(post(call(), viaProxy(key)));
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(/for this API key/);
    }
    // No key from the same address: the address's own budget, untouched by the keys' calls.
    for (let i = 0; i < 3; i++) expect((await a.request(post(call(i), viaProxy(null)))).status).toBe(200);
    // The guard: 6 keyed calls spent; a third key gets one more, then the address is over its guard.
    expect((await a.request(post(call(), viaProxy('keyC')))).status).toBe(200);
    const guarded = await a.request(post(call(), viaProxy('keyD')));
    expect(guarded.status).toBe(429);
    expect(((await guarded.json()) as { error: { message: string } }).error.message).toMatch(/from this client IP over all its principals/);
  });

  it('bounds bodies in flight per principal (429) and in total (503), and frees the slots when the requests end', async () => {
    const events: RequestEvent[] = [];
    const a = app({ proxySecret: SECRET, concurrentBodies: { total: 3, perPrincipal: 2 } }, events);
    const held = [heldBody('{"jsonrpc":"2.0","id":1,'), heldBody('{"jsonrpc":"2.0","id":2,')];
    const pending = held.map((h) => a.request(post(h.body, viaProxy('keyA'))));
    await new Promise((r) => setTimeout(r, 20));
    const third = await a.request(post(call(), viaProxy('keyA')));
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { message: string } }).error.message).toMatch(/2 requests already in flight for this API key/);
    // Another key still gets in: one slot left in total.
    const otherHeld = heldBody('{"jsonrpc":"2.0","id":3,');
    const other = a.request(post(otherHeld.body, viaProxy('keyB')));
    await new Promise((r) => setTimeout(r, 20));
    const full = await a.request(post(call(), viaProxy('keyC')));
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');
    for (const h of [...held, otherHeld]) h.release();
    await Promise.all([...pending, other]);
    expect((await a.request(post(call(), viaProxy('keyA')))).status).toBe(200);
    expect(events.find((e) => e.status === 503)).toMatchObject({ outcome: 'overloaded', limitedBy: 'in-flight' });
  });

  it('refuses loopback origins when SIGNET_ALLOW_LOOPBACK_ORIGINS is false, and allows them by default', async () => {
    const origin = { origin: 'http://localhost:5173' };
    expect((await app().request(post(call(), origin))).status).toBe(200);
    const lan = app({ allowLoopbackOrigins: false, allowedOrigins: ['https://mcp.lan.example'] });
    expect((await lan.request(post(call(), origin))).status).toBe(403);
    expect((await lan.request(post(call(), { origin: 'https://mcp.lan.example' }))).status).toBe(200);
  });
});
