// The OAuth principal the authenticated proxy names: X-Signet-Principal carries the token's
// issuer, subject and client (client_id, or azp), each percent-encoded (encodeURIComponent)
// and separated by one space; X-Signet-Scopes carries the token's scopes as in the `scope`
// claim. The proxy overwrites both on every request (clients cannot set them), and this
// server believes them only from a proxy that presents its secret (request-identity.ts).
import { hash } from 'node:crypto';
import { EDGE_HEADERS, SCOPE_TOKEN as SCOPE_GRAMMAR } from '../../../shared/edge-contract.js';

export const PRINCIPAL_HEADER = EDGE_HEADERS.principal.toLowerCase();
export const SCOPES_HEADER = EDGE_HEADERS.scopes.toLowerCase();

export interface OAuthSubject {
  iss: string;
  sub: string;
  /** client_id (RFC 9068) or azp; '' when the token names none. */
  client: string;
  /** Stable, bounded limiter key: issuer and subject, hashed (one person, one budget, whatever the client). */
  id: string;
  scopes: ReadonlySet<string>;
}

const MAX_FIELD = 512;
// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
const SCOPE_TOKEN = new RegExp(SCOPE_GRAMMAR.js);

function field(encoded: string | undefined): string | null {
  if (encoded === undefined || encoded.length > MAX_FIELD * 3) return null;
  try {
    const value = decodeURIComponent(encoded);
    // No control characters: the subject reaches the request log.
    return value.length <= MAX_FIELD && !/[\x00-\x1f\x7f]/.test(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The subject the proxy named, or null when the header is malformed (the proxy is trusted,
 * so a malformed value is a fault, refused, never guessed at). Scopes that are not RFC 6749
 * scope tokens are dropped.
 */
export function parseSubject(principal: string, scopes: string | undefined): OAuthSubject | null {
  const parts = principal.split(' ');
  if (parts.length !== 3) return null;
  const [iss, sub, client] = parts.map(field);
  if (!iss || !sub || client === null || client === undefined) return null;
  const id = oauthSubjectId(iss, sub);
  const granted = new Set((scopes ?? '').split(' ').filter((s) => SCOPE_TOKEN.test(s)));
  return { iss, sub, client, id, scopes: granted };
}

/** One person, one id: issuer and subject, hashed (bounded, and never the subject itself in a limiter key). */
export function oauthSubjectId(iss: string, sub: string): string {
  return `oauth:${hash('sha256', `${iss}\n${sub}`, 'base64url').slice(0, 22)}`;
}

/** The header value the proxy's verifier writes for a subject (the inverse of parseSubject). */
export function formatPrincipal(iss: string, sub: string, client: string): string {
  return [iss, sub, client].map(encodeURIComponent).join(' ');
}
