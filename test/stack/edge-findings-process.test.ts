// The pen test's edge findings on the process stack: Debian's nginx rendered by proxy/render.sh in
// keys+oauth mode, the built auth check, the built server, and a JWT issuer on loopback.
import { type JwtIssuer, signingKey, startJwtIssuer } from '../helpers/jwt-issuer.js';
import { freePort } from '../helpers/proxy-process.js';
import { defineEdgeFindingsSuite, type EdgeIssuer } from './edge-findings-suite.js';
import { runKeys, startProcessStack } from './process-stack.js';

/** The issuer helper as the suite drives it. */
async function edgeIssuer(issuer: JwtIssuer): Promise<EdgeIssuer> {
  const attacker = await signingKey(issuer.keys[0]!.kid);
  return {
    token: async (claims = {}, header = {}, how = {}) => {
      if (how.forge) return issuer.token(claims, header, attacker);
      if (how.unknownKid) return issuer.token(claims, header, { ...(await signingKey(how.unknownKid)) });
      return issuer.token(claims, header);
    },
    jwksFetches: async () => issuer.jwksFetches(),
    setJwks: async (mode) => {
      issuer.jwksMode = mode;
    },
  };
}

const ADDRESSES: Record<string, string> = {
  l1: '127.0.0.41',
  l3: '127.0.0.43',
  m6: '127.0.0.46',
  l4: '127.0.0.44',
  m1: '127.0.0.51',
  m5: '127.0.0.55',
};

defineEdgeFindingsSuite('process stack', async () => {
  const proxyPort = await freePort();
  const resource = `http://127.0.0.1:${proxyPort}/mcp`;
  const issuer = await startJwtIssuer(resource);
  const oauthEnv = { SIGNET_AUTH_MODE: 'keys+oauth', SIGNET_OAUTH_ISSUER: issuer.issuer, SIGNET_OAUTH_RESOURCE: resource };
  const cooldown = 2;
  const stack = await startProcessStack(oauthEnv, {}, 'store', proxyPort, {
    SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS: String(cooldown),
    // A refresh due during the outage below: the last good keys must survive it.
    SIGNET_OAUTH_JWKS_REFRESH_SECONDS: '3',
  });
  const check = stack.authCheck!;
  const created = await runKeys(stack.store, ['create', '--name', 'edge-findings']);
  return {
    baseUrl: `http://127.0.0.1:${proxyPort}`,
    key: created.out.trim(),
    issuer: await edgeIssuer(issuer),
    jwksCooldownSeconds: cooldown,
    addressFor: (test) => ADDRESSES[test],
    authCheckUrl: `http://127.0.0.1:${check.port}`,
    authCheckLogs: async () => check.logs(),
    stop: async () => {
      await stack.stop();
      await issuer.close();
    },
  };
});
