// Servers the collector recognises: what the server itself guarantees by design, and what its
// documented settings decide, read from the environment the files give it. Today: Signet and its
// reference proxy (docs/configuration.md, docs/http.md, docs/proxy.md). Each fact cites the line
// that sets the variable, or the line that shows the server is Signet, with the document that
// says why; test/unit/deploy/facts.test.ts holds the profile to Signet's source.
import { CNI_HOP } from '../docker-defaults.js';
import type { DockerfileInfo } from '../dockerfile.js';
import type { Inputs } from '../inputs.js';
import { dirOf } from '../inputs.js';
import type { At, FactSheet } from '../sheet.js';

export interface EnvValue {
  value: string;
  at: At;
}

export interface SignetView {
  /** The server container's environment: image ENV, then the deployment's. */
  env: Map<string, EnvValue>;
  /** The line that shows the server is Signet (the image's ENTRYPOINT). */
  identifiedAt: At;
  platform: 'compose' | 'kubernetes';
  behindProxy: boolean;
  replicas: number | undefined;
}

export interface ReferenceProxyView {
  env: Map<string, EnvValue>;
  /** Where a volume is mounted at the proxy's TLS directory (its certificate), if any. */
  tlsMount: At | null;
  at: At;
  /** Clients reach the proxy directly (published ports, a LoadBalancer): it is the client-facing listener. */
  facesClients: boolean;
}

/** Signet's image: its ENTRYPOINT runs the signet bundle. */
export function isSignet(df: DockerfileInfo | null): boolean {
  return !!df && df.entrypoint.some((w) => /(^|\/)signet\.js$/.test(w));
}

/** The reference proxy: an image built from the directory that holds its signet.conf template. */
export function isReferenceProxy(inputs: Inputs, df: DockerfileInfo | null): boolean {
  if (!df) return false;
  const dir = dirOf(df.path);
  return !!inputs.get(`${dir ? `${dir}/` : ''}templates/signet.conf.template`);
}

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

/** What Signet guarantees whatever its configuration, with the document that says so. */
const BUILT_IN: [string, unknown, string][] = [
  ['transport.protocol_revisions', REVISIONS, 'Signet serves every 2025 revision, 2024-11-05 and 2026-07-28 (docs/http.md)'],
  ['transport.legacy_sse', false, 'Signet serves Streamable HTTP only, no HTTP+SSE endpoint (docs/http.md)'],
  ['signing.offered', true, 'Signet signs every output (README, docs/output-format.md)'],
  ['signing.output_signing', true, 'every tool output, errors included, carries an Ed25519 signature (docs/output-format.md)'],
  ['logging.structured', true, 'Signet logs JSON lines (pino) (docs/configuration.md, SIGNET_LOG_LEVEL)'],
  ['logging.destination', 'stderr', 'JSON lines on stderr (docs/configuration.md)'],
  ['logging.redacts_secrets', true, 'credentials are redacted before a line is written (docs/operations.md)'],
  ['logging.request_ids', true, 'every request gets an X-Request-Id, logged and answered (docs/http.md)'],
  ['logging.auth_failures_logged', true, 'refused requests are logged with their reason, never the credential (docs/http.md)'],
  ['logging.tool_arguments', 'none', 'tool arguments are never logged (docs/operations.md)'],
  ['logging.tool_calls_audited', true, 'one event per tools/call with caller, tool and outcome, on stderr (docs/operations.md)'],
  ['tools.read_only_annotations', true, "Signet's five tools declare readOnlyHint (docs/tools.md)"],
  ['tools.output_schemas_declared', true, 'every tool declares an outputSchema and returns structuredContent (docs/tools.md)'],
  ['tools.input_schemas_strict', true, 'every inputSchema is closed and bounded, validated before a handler runs (docs/tools.md)'],
  ['tools.definitions_pinned', true, 'tool definitions are fixed in the release (docs/tools.md)'],
  ['tools.returns_untrusted_content', false, 'tools answer from the doctrine the server pins, no third-party content (docs/tools.md)'],
  ['tools.runs_commands', false, 'no tool starts a process (docs/tools.md)'],
  ['tools.accesses_files', false, 'no tool reads a path from its arguments (docs/tools.md)'],
  ['tools.uses_elicitation', false, 'Signet sends no elicitation request (docs/tools.md)'],
  ['tools.sensitive_params_as_headers', false, 'no tool parameter is sent as an Mcp-Param header (docs/tools.md)'],
  ['http.origin_validation', true, 'a foreign Origin is refused with 403 (docs/http.md)'],
  ['http.allowed_hosts_configured', true, 'a Host outside localhost and SIGNET_ALLOWED_HOSTS is refused (docs/http.md)'],
  ['http.issues_session_ids', false, 'stateless: no Mcp-Session-Id (docs/http.md)'],
  ['http.session_ids_used_for_auth', false, 'stateless: nothing identifies earlier traffic (docs/http.md)'],
  ['http.error_details_exposed', false, 'errors carry a code and a message, never a stack or a path (docs/http.md)'],
  ['http.mcp_headers_validated', true, 'MCP 2026-07-28 headers checked against the body, -32020 on a mismatch (docs/http.md)'],
  ['http.intermediary_policy_on_mcp_headers', false, 'the reference proxy routes by path only (docs/proxy.md)'],
  ['http.list_results_vary_by_caller', false, 'every caller gets the same lists (docs/http.md)'],
  ['http.list_cache_scope', 'public', 'list results are cacheScope public (docs/http.md)'],
  ['egress.fetches_untrusted_urls', false, 'Signet opens no connection to a URL from its input (docs/tools.md)'],
  ['authentication.token_passthrough', false, 'Signet calls no upstream API with a client token (docs/http.md)'],
  ['authentication.upstream_oauth_proxy', false, 'Signet calls no third-party API (docs/http.md)'],
  ['authentication.downstream_credentials', 'none', "Signet calls no other system on its callers' behalf (docs/http.md)"],
  ['rate_limit.retry_after_header', true, 'a limited call gets 429 with Retry-After (docs/http.md)'],
  ['rate_limit.ratelimit_headers', true, 'answers carry RateLimit-Policy and RateLimit (docs/http.md)'],
  ['signing_key.private_key_in_image', false, 'the image holds no key: it is generated at first start or mounted (docs/trust.md)'],
  ['egress.tls_verification_disabled', false, 'Signet never turns certificate verification off (docs/oauth.md, docs/http.md)'],
];

const get = (env: Map<string, EnvValue>, k: string) => {
  const v = env.get(k);
  return v && v.value !== '' ? v : undefined;
};

export function signetFacts(sheet: FactSheet, s: SignetView, proxy: ReferenceProxyView | null): void {
  for (const [path, value, why] of BUILT_IN) if (!sheet.has(path)) sheet.set(path, value, s.identifiedAt, why);
  const e = (k: string) => get(s.env, k);
  const level = e('SIGNET_LOG_LEVEL');
  sheet.set(
    'logging.level',
    level?.value ?? 'info',
    level?.at ?? s.identifiedAt,
    level ? `SIGNET_LOG_LEVEL=${level.value}` : 'SIGNET_LOG_LEVEL unset: info',
  );
  const pinned = e('SIGNET_DOCTRINE_HASH');
  if (pinned)
    sheet.set(
      'signing.doctrine_verified_at_start',
      true,
      pinned.at,
      'SIGNET_DOCTRINE_HASH: the server refuses to start on any other doctrine',
    );
  const keyFile = e('SIGNET_SIGNING_KEY_FILE');
  sheet.set(
    'signing_key.source',
    'file',
    keyFile?.at ?? s.identifiedAt,
    keyFile ? `SIGNET_SIGNING_KEY_FILE=${keyFile.value}` : 'a key file generated in the data directory at first start (docs/trust.md)',
  );
  if (!keyFile)
    sheet.set('signing_key.file_mode_restricted', true, s.identifiedAt, 'Signet writes its generated key with mode 0600 (docs/trust.md)');

  // Rate limits: per client address and per key (docs/configuration.md).
  const perIp = e('SIGNET_RATE_LIMIT_PER_MINUTE');
  const perKey = e('SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE');
  const ipN = Number(perIp?.value ?? 60);
  const keyN = Number(perKey?.value ?? 60);
  if (ipN > 0) {
    sheet.set('rate_limit.enabled', true, perIp?.at ?? s.identifiedAt, `Signet limits tools/call: ${ipN} a minute per client address`);
    const lowest = Math.min(
      ipN,
      keyN > 0 ? keyN : ipN,
      typeof sheet.get('rate_limit.per_minute') === 'number' ? (sheet.get('rate_limit.per_minute') as number) : Number.POSITIVE_INFINITY,
    );
    sheet.set('rate_limit.per_minute', lowest, perIp?.at ?? s.identifiedAt, `SIGNET_RATE_LIMIT_PER_MINUTE=${ipN}, per key ${keyN}`);
    sheet.set(
      'rate_limit.scope',
      keyN > 0 ? 'ip_and_key' : 'ip',
      perKey?.at ?? s.identifiedAt,
      keyN > 0 ? `per address and per key (SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE=${keyN})` : 'per address only',
    );
  }
  const redis = e('SIGNET_REDIS_URL');
  if (redis) sheet.set('rate_limit.shared_across_replicas', true, redis.at, 'SIGNET_REDIS_URL: every replica counts in one store');
  else if ((s.replicas ?? 1) > 1)
    sheet.set(
      'rate_limit.shared_across_replicas',
      false,
      s.identifiedAt,
      'several replicas without SIGNET_REDIS_URL count in their own memory',
    );
  const secret = e('SIGNET_PROXY_SECRET_FILE');
  if (secret) {
    sheet.set(
      'rate_limit.trusts_client_forwarded_headers',
      false,
      secret.at,
      'SIGNET_PROXY_SECRET_FILE: X-Forwarded-For is believed only from the authenticated proxy',
    );
    if (s.behindProxy && proxy?.facesClients && !sheet.has('rate_limit.keys_on_real_client_ip'))
      sheet.set('rate_limit.keys_on_real_client_ip', true, secret.at, 'the authenticated proxy faces clients and names the address it saw');
  }
  if (!s.behindProxy) {
    const timeout = e('SIGNET_REQUEST_TIMEOUT_MS');
    sheet.set(
      'http.request_read_deadline_seconds',
      Math.ceil(Number(timeout?.value ?? 30000) / 1000),
      timeout?.at ?? s.identifiedAt,
      'SIGNET_REQUEST_TIMEOUT_MS: a whole-request deadline',
    );
  }
  const metricsHost = e('SIGNET_METRICS_HOST');
  if (metricsHost && /^(127\.|::1$|localhost$)/.test(metricsHost.value))
    sheet.set('exposure.metrics_public', false, metricsHost.at, `metrics listen on ${metricsHost.value} only`);
  else if (e('SIGNET_METRICS_TOKEN_FILE'))
    sheet.set(
      'exposure.metrics_public',
      false,
      e('SIGNET_METRICS_TOKEN_FILE')!.at,
      'metrics need a bearer token (SIGNET_METRICS_TOKEN_FILE)',
    );

  if (proxy) referenceProxyFacts(sheet, s, proxy);
  // Neither Signet nor its reference proxy logs the Authorization header (docs/operations.md, the proxy's log_format).
  if ((proxy || !s.behindProxy) && !sheet.has('logging.logs_authorization_header'))
    sheet.set(
      'logging.logs_authorization_header',
      false,
      proxy?.at ?? s.identifiedAt,
      'no log of Signet or its reference proxy records the Authorization header (docs/operations.md, docs/proxy.md)',
    );
}

/** Signet's reference proxy: authentication and TLS chosen by its start-up steps from its environment (docs/proxy.md). */
function referenceProxyFacts(sheet: FactSheet, s: SignetView, p: ReferenceProxyView): void {
  const e = (k: string) => get(p.env, k);
  const mode = e('SIGNET_AUTH_MODE')?.value ?? 'keys';
  const modeAt = e('SIGNET_AUTH_MODE')?.at ?? p.at;
  sheet.set('authentication.required', true, modeAt, 'the reference proxy forwards /mcp only with a valid credential (docs/proxy.md)');
  sheet.set('authentication.keys_in_query_string', false, p.at, '/mcp takes exactly the target /mcp: no query string (docs/proxy.md)');
  sheet.set('rate_limit.unauthenticated_limited', true, p.at, 'refused credentials are limited per client address (docs/proxy.md)');
  if (mode === 'oauth' || mode === 'keys+oauth') {
    sheet.set(
      'authentication.method',
      'oauth2',
      modeAt,
      `SIGNET_AUTH_MODE=${mode}: access tokens checked by the token verifier (docs/oauth.md)`,
    );
    for (const f of ['oauth_audience_validated', 'oauth_issuer_validated', 'oauth_expiry_validated', 'oauth_scopes_enforced'])
      sheet.set(
        `authentication.${f}`,
        true,
        modeAt,
        'the token verifier checks audience, issuer, expiry and the scopes of each operation (docs/oauth.md)',
      );
    sheet.set(
      'http.oauth_discovery_endpoints',
      'metadata',
      modeAt,
      'the proxy serves RFC 9728 protected resource metadata in the OAuth modes (docs/oauth.md)',
    );
    sheet.set(
      'http.protected_resource_metadata_discoverable',
      true,
      modeAt,
      'path-aware metadata and resource_metadata in every 401 (docs/oauth.md)',
    );
  }
  if (mode === 'keys' || mode === 'keys+oauth') {
    const single = e('SIGNET_API_KEY');
    if (single && mode === 'keys')
      sheet.set('authentication.method', 'static_bearer', single.at, 'SIGNET_API_KEY: one key for every client');
    else {
      const store = e('SIGNET_KEY_STORE');
      sheet.set('authentication.key_storage', 'sha256', store?.at ?? modeAt, 'the key store keeps SHA-256 digests only (docs/api-keys.md)');
      sheet.set('authentication.key_rotation_days', 90, store?.at ?? modeAt, 'keys expire after 90 days by default (docs/api-keys.md)');
      sheet.set('authentication.key_entropy_bits', 256, store?.at ?? modeAt, 'sgnk_ keys carry 32 random bytes (docs/api-keys.md)');
    }
    if (mode === 'keys') {
      // keys+oauth keeps keys working beside tokens: the method is the tokens' (docs/oauth.md).
      if (!single)
        sheet.set(
          'authentication.method',
          'per_client_keys',
          e('SIGNET_KEY_STORE')?.at ?? modeAt,
          'API keys from the key store, each revocable alone (docs/api-keys.md)',
        );
      sheet.set(
        'http.oauth_discovery_endpoints',
        'not_found',
        modeAt,
        'in the keys mode the OAuth discovery URLs answer 404 (docs/proxy.md)',
      );
    }
  }
  // Client-facing TLS: on when a certificate is mounted at the proxy's TLS directory (33-signet-tls);
  // only said where the proxy faces clients (something else in front decides otherwise).
  if (!p.facesClients) {
    sheet.undecided(
      'tls.enabled',
      'the reference proxy does not face clients here: what is in front (an Ingress, a load balancer) decides',
    );
  } else if (p.tlsMount) {
    sheet.set('tls.enabled', true, p.tlsMount, 'a certificate is mounted at the proxy TLS directory: it listens with ssl only');
    sheet.set('tls.min_version', '1.2', p.tlsMount, 'the reference proxy offers TLSv1.2 and TLSv1.3 (docs/proxy.md)');
    sheet.set('tls.hsts', true, p.tlsMount, 'Strict-Transport-Security max-age=31536000 on every answer with TLS on (docs/proxy.md)');
  } else if (!sheet.has('tls.enabled'))
    sheet.set('tls.enabled', false, p.at, 'no certificate is mounted at the proxy TLS directory: plain HTTP');
  // The hop to Signet: HTTPS verified against SIGNET_PROXY_UPSTREAM_CA_FILE when Signet serves TLS, else plain (37-signet-upstream).
  const ca = e('SIGNET_PROXY_UPSTREAM_CA_FILE');
  const cert = get(s.env, 'SIGNET_TLS_CERT_FILE');
  if (ca && cert)
    sheet.set(
      'tls.backend_hop',
      'encrypted',
      ca.at,
      'HTTPS to Signet, its certificate verified against SIGNET_PROXY_UPSTREAM_CA_FILE, never unverified (docs/proxy.md)',
    );
  else if (!ca && s.platform === 'compose')
    sheet.set('tls.backend_hop', 'same_host', p.at, 'plain HTTP over a bridge network of one Compose host');
  else if (!ca) sheet.undecided('tls.backend_hop', CNI_HOP);
}
