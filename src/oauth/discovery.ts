// Where the issuer's keys are: RFC 8414 authorization server metadata, or OpenID Connect
// Discovery, found from the issuer URL alone. RFC 8414 §3: the well-known segment goes
// between the host and the issuer's path; OpenID Connect Discovery §4 appends it to the
// path. The document's `issuer` must equal the configured one exactly (RFC 8414 §3.3),
// or an attacker's metadata could redirect the keys.
import { getJson } from './http-json.js';

export interface IssuerMetadata {
  issuer: string;
  jwksUri: URL;
  /** Where it was found: shown in the verifier's start-up line. */
  source: string;
}

function candidates(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const origin = u.origin;
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ].filter((x, i, all) => all.indexOf(x) === i);
}

/** Fetches the issuer's metadata; throws with every place tried when none serves it. */
export async function discoverIssuer(issuer: string, timeoutMs = 5000, ca?: string): Promise<IssuerMetadata> {
  const tried: string[] = [];
  for (const url of candidates(issuer)) {
    try {
      const doc = ((await getJson(new URL(url), { timeoutMs, ca })) ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
      if (doc.issuer !== issuer) {
        tried.push(`${url}: names issuer ${JSON.stringify(doc.issuer)}, not ${JSON.stringify(issuer)}`);
        continue;
      }
      if (typeof doc.jwks_uri !== 'string') {
        tried.push(`${url}: no jwks_uri`);
        continue;
      }
      const jwksUri = new URL(doc.jwks_uri);
      const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(jwksUri.hostname);
      if (jwksUri.protocol !== 'https:' && !(jwksUri.protocol === 'http:' && loopback)) {
        tried.push(`${url}: jwks_uri ${doc.jwks_uri} is not https`);
        continue;
      }
      return { issuer, jwksUri, source: url };
    } catch (e) {
      tried.push(`${url}: ${(e as Error).message}`);
    }
  }
  throw new Error(`no authorization server metadata for ${issuer} (${tried.join('; ')})`);
}
