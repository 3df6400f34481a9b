import { describe, expect, it } from 'vitest';
import { middlewareApp } from '../../../../test/helpers/middleware-app.js';
import { acceptsJson, isJsonContentType } from './content-negotiation.js';

describe('contentNegotiation', () => {
  it.each([
    [undefined, true],
    ['application/json', true],
    ['application/json, text/event-stream', true],
    ['text/event-stream, application/json;q=0.9', true],
    ['*/*', true],
    ['application/*', true],
    ['text/event-stream', false],
    ['text/html', false],
    ['application/jsonx', false],
  ])('Accept %j → %s', (accept, ok) => expect(acceptsJson(accept)).toBe(ok));

  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['APPLICATION/JSON', true],
    [' application/json ', true],
    ['application/json-patch+json', false],
    ['text/plain', false],
    [undefined, false],
  ])('Content-Type %j → %s', (type, ok) => expect(isJsonContentType(type)).toBe(ok));
});

describe('contentNegotiation middleware', () => {
  it('refuses a wrong Content-Type with 415 and an Accept without JSON with 406, before the handler runs', async () => {
    const { contentNegotiation } = await import('./content-negotiation.js');
    const m = middlewareApp(contentNegotiation(), { requestId: 'r' });
    const send = (headers: Record<string, string>) => m.send(headers, '{}');
    const wrongType = await send({ 'content-type': 'text/plain' });
    expect([wrongType.status, ((await wrongType.json()) as { error: { code: number } }).error.code]).toEqual([415, -32000]);
    const noJson = await send({ 'content-type': 'application/json', accept: 'text/event-stream' });
    expect(noJson.status).toBe(406);
    expect((await send({ 'content-type': 'application/json', accept: 'application/json' })).status).toBe(200);
    expect(m.reached()).toBe(1);
  });
});
