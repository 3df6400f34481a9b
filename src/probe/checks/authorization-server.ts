// What the authorization server's own metadata says (RFC 8414), when that server is on the
// endpoint's origin (the discovery check fetched /.well-known/oauth-authorization-server): Client
// ID Metadata Documents, RFC 9207 `iss` and PKCE methods are advertised there, and its endpoints'
// URLs are listed. An authorization server on
// another origin is not fetched; a metadata document proves what is not supported, never that a
// flow behaves (the `iss` fact also needs one authorization response, which needs a person).
import type { Check } from '../check.js';
import { isRecord } from '../mcp.js';

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const authorizationServer: Check = {
  name: 'authorization-server',
  facts: [
    'authentication.oauth_client_id_metadata_documents',
    'authentication.oauth_iss_in_authorization_response',
    'authentication.oauth_endpoints_https',
    'authentication.oauth_pkce_s256_required',
  ],
  async run(ctx) {
    const { findings, state, target } = ctx;
    const facts = authorizationServer.facts;
    const byId = (id: string) => state.exchanges.find((e) => e.id === id);
    const meta = byId('discovery.authorization-server');
    const doc = meta?.status === 200 ? parse(meta.body) : undefined;
    // The authorization servers the protected resource metadata on this origin names, if any.
    const named = ['discovery.challenge-metadata', 'discovery.resource-path', 'discovery.resource-root']
      .map((id) => byId(id))
      .map((e) => (e?.status === 200 ? parse(e.body) : undefined))
      .flatMap((d) => (isRecord(d) && Array.isArray(d['authorization_servers']) ? (d['authorization_servers'] as unknown[]) : []))
      .filter((s): s is string => typeof s === 'string');
    if (!meta || !isRecord(doc)) {
      const elsewhere = named.length > 0 ? `; the resource names ${named.join(', ')}, which the probe does not fetch` : '';
      for (const f of facts) findings.leave(f, `no authorization server metadata on this origin${elsewhere}`);
      return;
    }
    const issuer = typeof doc['issuer'] === 'string' ? doc['issuer'].replace(/\/$/, '') : undefined;
    // RFC 8414 §3.3: the issuer must be the URL the metadata came from; and it must be the resource's server.
    if (issuer !== target.url.origin || (named.length > 0 && !named.some((s) => s.replace(/\/$/, '') === issuer))) {
      for (const f of facts) {
        findings.leave(f, `the metadata on this origin names issuer ${String(doc['issuer'])}, not this origin's server the resource names`);
      }
      return;
    }
    const cimd = doc['client_id_metadata_document_supported'] === true;
    findings.decide('authentication.oauth_client_id_metadata_documents', cimd, {
      probe: meta.id,
      why: cimd ? 'client_id_metadata_document_supported: true' : 'the metadata does not advertise client_id_metadata_document_supported',
    });
    if (doc['authorization_response_iss_parameter_supported'] === true) {
      findings.leave(
        'authentication.oauth_iss_in_authorization_response',
        'advertised in the metadata; whether every authorization response carries iss needs a sign-in, which the probe never does',
      );
    } else {
      findings.decide('authentication.oauth_iss_in_authorization_response', false, {
        probe: meta.id,
        why: 'the metadata does not advertise authorization_response_iss_parameter_supported (RFC 9207)',
      });
    }
    // Doctrine 1.3: every endpoint over HTTPS, and PKCE S256 listed.
    const plain = Object.entries(doc)
      .filter(([k, v]) => (k === 'issuer' || k === 'jwks_uri' || k.endsWith('_endpoint')) && typeof v === 'string' && /^http:/i.test(v))
      .map(([k]) => k)
      .sort();
    if (plain.length > 0) {
      findings.decide('authentication.oauth_endpoints_https', false, {
        probe: meta.id,
        why: `http:// URLs in the metadata: ${plain.join(', ')}`,
      });
    } else {
      findings.leave(
        'authentication.oauth_endpoints_https',
        'the metadata lists only https URLs; whether each refuses plain http needs requests the probe does not send',
      );
    }
    const methods = doc['code_challenge_methods_supported'];
    if (!(Array.isArray(methods) && methods.includes('S256'))) {
      findings.decide('authentication.oauth_pkce_s256_required', false, {
        probe: meta.id,
        why: Array.isArray(methods)
          ? `code_challenge_methods_supported lists ${methods.join(', ') || 'nothing'}, not S256`
          : 'the metadata has no code_challenge_methods_supported',
      });
    } else {
      findings.leave(
        'authentication.oauth_pkce_s256_required',
        'S256 is listed; whether requests without it are refused needs a sign-in, which the probe never does',
      );
    }
  },
};
