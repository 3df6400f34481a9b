// The token validator's reading of the claims providers actually send (docs/oauth.md): the
// client and scopes under their several names, extra audiences, a decision kept per token, and a
// token under a key the issuer just published, refused only until the keys may be fetched again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverIssuer } from '../../../src/oauth/discovery.js';
import { TokenValidator } from '../../../src/oauth/token-validator.js';
import { type JwtIssuer, signingKey, startJwtIssuer } from '../../helpers/jwt-issuer.js';

const RESOURCE = 'https://mcp.example.org/mcp';

describe('TokenValidator', () => {
  let issuer: JwtIssuer;
  let validator: TokenValidator;
  beforeAll(async () => {
    issuer = await startJwtIssuer(RESOURCE);
    const meta = await discoverIssuer(issuer.issuer);
    validator = new TokenValidator({
      issuer: issuer.issuer,
      jwksUri: meta.jwksUri,
      audiences: [RESOURCE, 'api://0b5e7c1a-signet'],
      algorithms: ['ES256'],
      leewaySeconds: 30,
      jwksCooldownSeconds: 30,
    });
  });
  afterAll(async () => {
    await issuer?.close();
  });

  it('reads the client and the scopes under every name the common providers use', async () => {
    const cases: [Record<string, unknown>, string, string[]][] = [
      [{ client_id: 'a', scope: 'signet:read signet:evaluate' }, 'a', ['signet:read', 'signet:evaluate']],
      [
        { client_id: undefined, azp: 'entra-app', scope: undefined, scp: 'signet.read signet.evaluate' },
        'entra-app',
        ['signet.read', 'signet.evaluate'],
      ],
      [{ client_id: undefined, cid: 'okta-app', scope: undefined, scp: ['signet:read'] }, 'okta-app', ['signet:read']],
      [{ client_id: undefined, appid: 'entra-v1', scope: undefined }, 'entra-v1', []],
    ];
    for (const [claims, client, scopes] of cases) {
      const d = await validator.validate(await issuer.token(claims));
      expect(d).toMatchObject({ ok: true, client, scopes, sub: 'alice', iss: issuer.issuer });
    }
  });

  it('accepts a configured extra audience (an application id) and nothing else', async () => {
    expect((await validator.validate(await issuer.token({ aud: 'api://0b5e7c1a-signet' }))).ok).toBe(true);
    expect(await validator.validate(await issuer.token({ aud: 'api://another-app' }))).toEqual({
      ok: false,
      error: 'invalid_token',
      description: 'the token is for another resource (aud)',
    });
  });

  it('keeps an acceptance for that token alone: a token altered in its signature is checked and refused', async () => {
    const token = await issuer.token({});
    expect(validator.known(token)).toBeUndefined();
    const accepted = await validator.validate(token);
    expect(accepted).toMatchObject({ ok: true, sub: 'alice' });
    // The same decision object for the same token, with no check.
    expect(validator.known(token)).toBe(accepted);
    // Flip a bit of the decoded signature: changing the last base64url
    // character alone may touch only its padding bits (same bytes, still valid).
    const [head, body, sig] = token.split('.');
    const bytes = Buffer.from(sig ?? '', 'base64url');
    bytes[10] = (bytes[10] ?? 0) ^ 0x01;
    const altered = `${head}.${body}.${bytes.toString('base64url')}`;
    expect(validator.known(altered)).toBeUndefined();
    expect(await validator.validate(altered)).toMatchObject({ ok: false, error: 'invalid_token' });
    // Its refusal is remembered (by digest); the real token still passes.
    expect(validator.known(altered)).toMatchObject({ ok: false });
    expect(validator.known(token)).toBe(accepted);
  });

  it('refuses a token once it expires, even one whose earlier decision is kept', async () => {
    const strict = new TokenValidator({
      issuer: issuer.issuer,
      jwksUri: (await discoverIssuer(issuer.issuer)).jwksUri,
      audiences: [RESOURCE],
      algorithms: ['ES256'],
      leewaySeconds: 0,
      jwksCooldownSeconds: 30,
    });
    const t = await issuer.token({ exp: Math.floor(Date.now() / 1000) + 2 });
    expect((await strict.validate(t)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 2100));
    expect(await strict.validate(t)).toEqual({ ok: false, error: 'invalid_token', description: 'the token has expired' });
  });

  it('refuses a token under a newly published kid within the cooldown, and accepts the same token once a fetch may be made', async () => {
    const rotating = await startJwtIssuer(RESOURCE);
    try {
      const cooldownSeconds = 1;
      const v = new TokenValidator({
        issuer: rotating.issuer,
        jwksUri: (await discoverIssuer(rotating.issuer)).jwksUri,
        audiences: [RESOURCE],
        algorithms: ['ES256'],
        leewaySeconds: 30,
        jwksCooldownSeconds: cooldownSeconds,
      });
      await v.warm();
      const fetched = Date.now();
      // The issuer rotates right after the fetch: the first token under k2 meets the cooldown.
      const k2 = await signingKey('k2');
      rotating.keys = [k2, ...rotating.keys];
      const t = await rotating.token({ sub: 'rotated' }, {}, k2);
      const early = await v.validate(t);
      expect(early).toEqual({ ok: false, error: 'invalid_token', description: 'no key of the issuer matches the token (kid)' });
      expect(rotating.jwksFetches()).toBe(1);
      // Remembered while no fetch may be made: the same token costs a lookup, not a fetch.
      expect(v.known(t)).toEqual(early);
      await new Promise((r) => setTimeout(r, Math.max(0, fetched + cooldownSeconds * 1000 + 50 - Date.now())));
      // The cooldown is over: the refusal is forgotten, the same token fetches the keys and passes.
      expect(v.known(t)).toBeUndefined();
      expect(await v.validate(t)).toMatchObject({ ok: true, sub: 'rotated' });
      expect(rotating.jwksFetches()).toBe(2);
    } finally {
      await rotating.close();
    }
  });
});
