import { describe, expect, it } from 'vitest';
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
