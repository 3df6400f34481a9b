// oauth2-mock-server as it runs standalone, plus the two things its command line cannot set:
// every access token is for this stack's resource (aud: SIGNET_OAUTH_RESOURCE) and names a
// subject (the client, for the client-credentials grant). Its issuer is http://localhost:<PORT>
// (9400 unless PORT says otherwise).
import { OAuth2Server } from 'oauth2-mock-server';

const resource = process.env.SIGNET_OAUTH_RESOURCE;
if (!resource) throw new Error('SIGNET_OAUTH_RESOURCE: the resource the tokens are for');
const server = new OAuth2Server();
await server.issuer.keys.generate('ES256');
server.service.on('beforeTokenSigning', (token, req) => {
  const client = typeof req.body?.client_id === 'string' ? req.body.client_id : 'laptop-client';
  token.header.typ = 'at+jwt';
  token.payload.aud = resource;
  token.payload.sub ??= client;
  token.payload.client_id ??= client;
});
await server.start(Number(process.env.PORT ?? 9400), '0.0.0.0');
console.log(`identity provider ${server.issuer.url} issuing access tokens for ${resource}`);
