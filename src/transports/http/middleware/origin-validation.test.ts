import { describe, expect, it } from 'vitest';
import { checkOrigin, originPolicy } from './origin-validation.js';

describe('originValidation', () => {
  const policy = originPolicy(['https://app.example.com', 'http://localhost:6274']);
  it.each([
    [undefined, null],
    ['', null],
    ['https://app.example.com', null],
    ['http://localhost:6274', null],
    ['http://localhost:9999', null], // loopback: any port, as the SDK v2 does
    ['http://127.0.0.1', null],
    ['http://[::1]:3000', null],
    ['https://app.example.com:8443', /not allowed/], // configured origins match exactly
    ['http://app.example.com', /not allowed/],
    ['https://evil.example.com', /not allowed/],
    ['http://localhost.evil.example', /not allowed/],
    ['null', /Invalid Origin/],
    ['chrome-extension://abcdef', /not allowed/],
    ['file://localhost', /not allowed/],
  ])('Origin %j', (origin, expected) => {
    const reason = checkOrigin(policy, origin);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });
});
