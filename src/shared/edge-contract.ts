// The contract between the reference proxy (nginx and its start-up steps) and Signet's own
// processes (the server and `signet auth-check`): header names, key and secret grammars, the
// origin and scope grammars, the OAuth URL rule, the IPv6 bucket. Defined here once; the build
// writes proxy/contract.sh from it for the shell steps (scripts/emit-proxy-contract.mjs), and a
// test keeps that file current. Patterns are written in the subset POSIX ERE (grep -E) and
// JavaScript read the same way, or given in both forms where they cannot be (tested equal).

/** Headers between the proxy, the auth check and the server. */
export const EDGE_HEADERS = {
  /** The proxy's credential, towards the server and the auth check (SIGNET_PROXY_SECRET_FILE). */
  proxyAuth: 'X-Signet-Proxy-Auth',
  /** The API key id the auth check vouched for (never the key). */
  keyId: 'X-Signet-Key-Id',
  /** The OAuth principal: issuer, subject and client, each percent-encoded, one space apart. */
  principal: 'X-Signet-Principal',
  /** The token's scopes, one space apart. */
  scopes: 'X-Signet-Scopes',
  /** A short, stable id of the principal (key:<key id> or oauth:<hash of issuer and subject>): the proxy's limit key. */
  principalId: 'X-Signet-Principal-Id',
  /** The server's 403: the scopes an operation lacked, for the proxy's step-up challenge. */
  insufficientScope: 'X-Signet-Insufficient-Scope',
  /** The auth check's verdict for the proxy's log and its refusal text (AUTH_STATES). */
  authState: 'X-Signet-Auth',
  /** The client address the proxy saw (after its trusted front proxies), for the refusal limit. */
  clientAddress: 'X-Real-IP',
} as const;

/**
 * What the auth check says about a credential (EDGE_HEADERS.authState). `ok` lets the request
 * through; `limited` is the refused-credential limit (429, nothing checked); `unavailable` is
 * the check's own fault (503: the key store cannot be read, the issuer's keys cannot be had).
 */
export const AUTH_STATES = [
  'ok',
  'missing',
  'malformed',
  'checksum',
  'unknown',
  'revoked',
  'expired',
  'invalid_token',
  'limited',
  'unavailable',
] as const;
export type AuthState = (typeof AUTH_STATES)[number];

/** API keys: sgnk_<id:8><secret:43><checksum:6>, base62 (api-keys/format.ts builds and checks them). */
export const API_KEY = {
  prefix: 'sgnk_',
  idLength: 8,
  secretLength: 43,
  checksumLength: 6,
  base62: '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  pattern: '^sgnk_[0-9A-Za-z]{57}$',
} as const;

/** A shared secret in a file (the proxy secret, the metrics token): written into nginx's configuration as a header value. */
export const SECRET = { pattern: '^[A-Za-z0-9._~+/=-]+$', minLength: 32, maxLength: 512 } as const;

/** An origin as browsers send it: scheme://host[:port], lower case, no path (SIGNET_ALLOWED_ORIGINS). */
export const ORIGIN_PATTERN =
  '^https?://([a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\\[[0-9a-f:]+\\])(:[0-9]{1,5})?$';

/** RFC 6749 §3.3 scope-token (%x21 / %x23-5B / %x5D-7E): the two syntaxes differ on brackets. */
export const SCOPE_TOKEN = { js: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,128}$', ere: '^[]!#-[^-~]{1,128}$' } as const;

/**
 * The OAuth URLs (SIGNET_OAUTH_ISSUER, SIGNET_OAUTH_RESOURCE) as characters: an absolute http(s)
 * URL with no query, fragment, credentials or quote, only characters nginx strings and JSON
 * take as they are. The issuer may end with one slash (its tokens' `iss` exactly, e.g. Auth0's).
 * Which schemes are allowed where is a second rule (https, or http on loopback).
 */
export const OAUTH_URL = {
  resource: '^https?://[A-Za-z0-9.:[-]+\\]?(:[0-9]{1,5})?(/[A-Za-z0-9._~%!&()*+,;=:@-]+)*$',
  issuer: '^https?://[A-Za-z0-9.:[-]+\\]?(:[0-9]{1,5})?(/[A-Za-z0-9._~%!&()*+,;=:@-]+)*/?$',
  /** Hosts on which plain http is allowed (local development). */
  loopbackHosts: ['127.0.0.1', 'localhost', '[::1]'],
} as const;

/** IPv6 clients share a rate-limit bucket per prefix of this many bits (SIGNET_RATE_LIMIT_IPV6_PREFIX). */
export const IPV6_PREFIX = { default: 64, min: 32, max: 128, proxyMultipleOf: 8 } as const;

function quoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** proxy/contract.sh: the contract as shell assignments, for the proxy's start-up steps to source. */
export function shellContract(): string {
  const lines: [string, string | number][] = [
    ['CONTRACT_KEY_PREFIX', API_KEY.prefix],
    ['CONTRACT_KEY_ERE', API_KEY.pattern],
    ['CONTRACT_KEY_CHECKED_LENGTH', API_KEY.idLength + API_KEY.secretLength],
    ['CONTRACT_KEY_CHECKSUM_LENGTH', API_KEY.checksumLength],
    ['CONTRACT_BASE62', API_KEY.base62],
    ['CONTRACT_SECRET_ERE', SECRET.pattern],
    ['CONTRACT_SECRET_MIN', SECRET.minLength],
    ['CONTRACT_SECRET_MAX', SECRET.maxLength],
    ['CONTRACT_ORIGIN_ERE', ORIGIN_PATTERN],
    ['CONTRACT_SCOPE_ERE', SCOPE_TOKEN.ere],
    ['CONTRACT_OAUTH_RESOURCE_ERE', OAUTH_URL.resource],
    ['CONTRACT_OAUTH_ISSUER_ERE', OAUTH_URL.issuer],
    ['CONTRACT_OAUTH_LOOPBACK_HOSTS', OAUTH_URL.loopbackHosts.join(' ')],
    ['CONTRACT_IPV6_PREFIX_DEFAULT', IPV6_PREFIX.default],
    ['CONTRACT_IPV6_PREFIX_MIN', IPV6_PREFIX.min],
    ['CONTRACT_IPV6_PREFIX_MAX', IPV6_PREFIX.max],
    ['CONTRACT_IPV6_PREFIX_MULTIPLE_OF', IPV6_PREFIX.proxyMultipleOf],
    ['CONTRACT_AUTH_STATES', AUTH_STATES.join(' ')],
  ];
  return [
    '# shellcheck shell=sh disable=SC2034',
    '# Generated by `npm run build` from src/shared/edge-contract.ts (scripts/emit-proxy-contract.mjs):',
    '# do not edit. The proxy start-up steps source it; a test keeps it current.',
    ...lines.map(([name, value]) => `${name}=${typeof value === 'number' ? value : quoted(value)}`),
    '',
  ].join('\n');
}
