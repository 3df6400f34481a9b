// Servers the collector recognises: what the server itself guarantees by design, and what its
// documented settings decide, read from the environment the files give it. Today: Signet and its
// reference proxy (docs/configuration.md, docs/http.md, docs/proxy.md). Every fact here has the
// profile as its source ("Signet's own behaviour, version X": no line of the files shows it),
// with the lines whose settings select the behaviour cited beside it; the JSON report counts
// these apart from the facts the files decide alone. test/unit/deploy/facts.test.ts holds the
// profile to Signet's source. Recognition needs more than a file name (docs/checking.md).
import { posix } from 'node:path';
import { VERSION } from '../../version.js';
import { CNI_HOP } from '../docker-defaults.js';
import type { DockerfileInfo } from '../dockerfile/read.js';
import type { Inputs } from '../inputs.js';
import { dirOf } from '../inputs.js';
import type { At, FactSheet, Setting } from '../sheet.js';

export interface EnvValue {
  value: string;
  at: At;
}

export interface SignetView {
  /** The server container's environment: image ENV, then the deployment's. */
  env: Map<string, EnvValue>;
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

/** The profile's source: Signet as this release of the collector knows it. */
export const SIGNET_PROFILE = { profile: 'signet', version: VERSION } as const;
/** The npm packages Signet is built from (this repository's, and the published one). */
const SIGNET_PACKAGES = ['signet', 'signet-mcp'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Signet's image, on evidence a look-alike does not have by accident: the ENTRYPOINT runs a
 * `signet.js` that is the `signet` bin of the build context's package.json, and that package is
 * named `signet` or `signet-mcp`. A file name alone (any image whose entrypoint is called
 * signet.js) is not Signet. Returns why it was recognised, for the collection's notes, or null.
 */
export function recogniseSignet(inputs: Inputs, df: DockerfileInfo | null): string | null {
  const script = df?.entrypoint.find((w) => /(^|\/)signet\.js$/.test(w));
  if (!df || !script) return null;
  const dir = dirOf(df.path);
  const manifest = inputs.get(`${dir ? `${dir}/` : ''}package.json`);
  let pkg: unknown;
  try {
    pkg = manifest ? JSON.parse(manifest.text) : null;
  } catch {
    return null;
  }
  if (!manifest || !isObj(pkg) || typeof pkg['name'] !== 'string' || !SIGNET_PACKAGES.includes(pkg['name'])) return null;
  const bin = isObj(pkg['bin']) ? pkg['bin']['signet'] : undefined;
  if (typeof bin !== 'string') return null;
  const binPath = posix.normalize(bin).replace(/^\.\//, '');
  if (script !== binPath && !script.endsWith(`/${binPath}`)) return null;
  const at = df.entrypointAt ?? df.base?.at;
  const version = typeof pkg['version'] === 'string' ? pkg['version'] : null;
  const versions =
    version === VERSION
      ? `the profile describes Signet ${VERSION}, the version package.json names`
      : `the profile describes Signet ${VERSION}; package.json names ${version ?? 'no version'}, so facts from the profile may not hold for it`;
  return `recognised as Signet: the ENTRYPOINT${at ? ` (line ${at.line})` : ''} runs ${script}, the signet bin of package ${pkg['name']} (${manifest.path}); ${versions}`;
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

/** Decides `path` from the profile, citing the settings of the files that select the behaviour. */
function profileSetter(sheet: FactSheet) {
  return (path: string, value: unknown, why: string, ...settings: (Setting | null | undefined)[]) =>
    sheet.setFromProfile(
      path,
      value,
      SIGNET_PROFILE,
      `Signet's own behaviour, version ${VERSION}: ${why}`,
      settings.filter((x): x is Setting => !!x),
    );
}

/** A variable set in the files, as a setting a profile fact cites. */
const setting = (name: string, v: EnvValue | undefined): Setting | null => (v ? { at: v.at, why: `${name}=${v.value}` } : null);

export function signetFacts(sheet: FactSheet, s: SignetView, proxy: ReferenceProxyView | null): void {
  const say = profileSetter(sheet);
  for (const [path, value, why] of BUILT_IN) if (!sheet.has(path)) say(path, value, why);
  const e = (k: string) => get(s.env, k);
  const level = e('SIGNET_LOG_LEVEL');
  say(
    'logging.level',
    level?.value ?? 'info',
    level ? 'SIGNET_LOG_LEVEL sets the level (docs/configuration.md)' : 'SIGNET_LOG_LEVEL unset: info (docs/configuration.md)',
    setting('SIGNET_LOG_LEVEL', level),
  );
  const pinned = e('SIGNET_DOCTRINE_HASH');
  if (pinned)
    say(
      'signing.doctrine_verified_at_start',
      true,
      'with SIGNET_DOCTRINE_HASH set, the server refuses to start on any other doctrine',
      setting('SIGNET_DOCTRINE_HASH', pinned),
    );
  const keyFile = e('SIGNET_SIGNING_KEY_FILE');
  say(
    'signing_key.source',
    'file',
    keyFile
      ? 'the signing key is read from SIGNET_SIGNING_KEY_FILE'
      : 'a key file generated in the data directory at first start (docs/trust.md)',
    setting('SIGNET_SIGNING_KEY_FILE', keyFile),
  );
  if (!keyFile) say('signing_key.file_mode_restricted', true, 'Signet writes its generated key with mode 0600 (docs/trust.md)');

  // Rate limits: per client address and per key (docs/configuration.md).
  const perIp = e('SIGNET_RATE_LIMIT_PER_MINUTE');
  const perKey = e('SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE');
  const ipN = Number(perIp?.value ?? 60);
  const keyN = Number(perKey?.value ?? 60);
  const ipSet = setting('SIGNET_RATE_LIMIT_PER_MINUTE', perIp);
  const keySet = setting('SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE', perKey);
  if (ipN > 0) {
    say('rate_limit.enabled', true, `Signet limits tools/call: ${ipN} a minute per client address`, ipSet);
    const lowest = Math.min(
      ipN,
      keyN > 0 ? keyN : ipN,
      typeof sheet.get('rate_limit.per_minute') === 'number' ? (sheet.get('rate_limit.per_minute') as number) : Number.POSITIVE_INFINITY,
    );
    say('rate_limit.per_minute', lowest, `${ipN} a minute per address, ${keyN} per key (60 each by default)`, ipSet, keySet);
    say(
      'rate_limit.scope',
      keyN > 0 ? 'ip_and_key' : 'ip',
      keyN > 0 ? `per address and per key (${keyN} a minute per key)` : 'per address only',
      keySet,
    );
  }
  const redis = e('SIGNET_REDIS_URL');
  if (redis)
    say(
      'rate_limit.shared_across_replicas',
      true,
      'with SIGNET_REDIS_URL every replica counts in one store',
      setting('SIGNET_REDIS_URL', redis),
    );
  else if ((s.replicas ?? 1) > 1)
    say('rate_limit.shared_across_replicas', false, 'several replicas without SIGNET_REDIS_URL count in their own memory');
  const secret = e('SIGNET_PROXY_SECRET_FILE');
  if (secret) {
    const secretSet = setting('SIGNET_PROXY_SECRET_FILE', secret);
    say(
      'rate_limit.trusts_client_forwarded_headers',
      false,
      'with SIGNET_PROXY_SECRET_FILE, X-Forwarded-For is believed only from the authenticated proxy',
      secretSet,
    );
    if (s.behindProxy && proxy?.facesClients && !sheet.has('rate_limit.keys_on_real_client_ip'))
      say('rate_limit.keys_on_real_client_ip', true, 'the authenticated proxy faces clients and names the address it saw', secretSet);
  }
  if (!s.behindProxy) {
    const timeout = e('SIGNET_REQUEST_TIMEOUT_MS');
    say(
      'http.request_read_deadline_seconds',
      Math.ceil(Number(timeout?.value ?? 30000) / 1000),
      'SIGNET_REQUEST_TIMEOUT_MS is a whole-request deadline (30 s by default)',
      setting('SIGNET_REQUEST_TIMEOUT_MS', timeout),
    );
  }
  const metricsHost = e('SIGNET_METRICS_HOST');
  const metricsToken = e('SIGNET_METRICS_TOKEN_FILE');
  if (metricsHost && /^(127\.|::1$|localhost$)/.test(metricsHost.value))
    say('exposure.metrics_public', false, `metrics listen on ${metricsHost.value} only`, setting('SIGNET_METRICS_HOST', metricsHost));
  else if (metricsToken)
    say(
      'exposure.metrics_public',
      false,
      'metrics need a bearer token (SIGNET_METRICS_TOKEN_FILE)',
      setting('SIGNET_METRICS_TOKEN_FILE', metricsToken),
    );

  if (proxy) referenceProxyFacts(sheet, s, proxy);
  // Neither Signet nor its reference proxy logs the Authorization header (docs/operations.md, the proxy's log_format).
  if ((proxy || !s.behindProxy) && !sheet.has('logging.logs_authorization_header'))
    say(
      'logging.logs_authorization_header',
      false,
      'no log of Signet or its reference proxy records the Authorization header (docs/operations.md, docs/proxy.md)',
    );
}

/** Signet's reference proxy: authentication and TLS chosen by its start-up steps from its environment (docs/proxy.md). */
function referenceProxyFacts(sheet: FactSheet, s: SignetView, p: ReferenceProxyView): void {
  const say = profileSetter(sheet);
  const e = (k: string) => get(p.env, k);
  const mode = e('SIGNET_AUTH_MODE')?.value ?? 'keys';
  const modeSet = setting('SIGNET_AUTH_MODE', e('SIGNET_AUTH_MODE'));
  say('authentication.required', true, 'the reference proxy forwards /mcp only with a valid credential (docs/proxy.md)', modeSet);
  say('authentication.keys_in_query_string', false, 'the reference proxy serves /mcp only without a query string (docs/proxy.md)');
  say('rate_limit.unauthenticated_limited', true, 'the reference proxy limits refused credentials per client address (docs/proxy.md)');
  if (mode === 'oauth' || mode === 'keys+oauth') {
    say(
      'authentication.method',
      'oauth2',
      `SIGNET_AUTH_MODE=${mode}: access tokens checked by the token verifier (docs/oauth.md)`,
      modeSet,
    );
    for (const f of ['oauth_audience_validated', 'oauth_issuer_validated', 'oauth_expiry_validated', 'oauth_scopes_enforced'])
      say(
        `authentication.${f}`,
        true,
        'the token verifier checks audience, issuer, expiry and the scopes of each operation (docs/oauth.md)',
        modeSet,
      );
    say(
      'http.oauth_discovery_endpoints',
      'metadata',
      'the proxy serves RFC 9728 protected resource metadata in the OAuth modes (docs/oauth.md)',
      modeSet,
    );
    say(
      'http.protected_resource_metadata_discoverable',
      true,
      'path-aware metadata and resource_metadata in every 401 (docs/oauth.md)',
      modeSet,
    );
  }
  if (mode === 'keys' || mode === 'keys+oauth') {
    const single = e('SIGNET_API_KEY');
    const storeSet = setting('SIGNET_KEY_STORE', e('SIGNET_KEY_STORE')) ?? modeSet;
    if (single && mode === 'keys')
      say('authentication.method', 'static_bearer', 'SIGNET_API_KEY: one key for every client', {
        at: single.at,
        why: 'SIGNET_API_KEY is set',
      });
    else {
      say('authentication.key_storage', 'sha256', 'the key store keeps SHA-256 digests only (docs/api-keys.md)', storeSet);
      say('authentication.key_rotation_days', 90, 'keys expire after 90 days by default (docs/api-keys.md)', storeSet);
      say('authentication.key_entropy_bits', 256, 'sgnk_ keys carry 32 random bytes (docs/api-keys.md)', storeSet);
    }
    if (mode === 'keys') {
      // keys+oauth keeps keys working beside tokens: the method is the tokens' (docs/oauth.md).
      const singleFile = e('SIGNET_API_KEY_FILE');
      // The static key from a file written at start (empty: the key store): its content is not in the files.
      if (!single && singleFile)
        sheet.undecided(
          'authentication.method',
          `SIGNET_API_KEY_FILE=${singleFile.value}: a key in that file replaces the key store (static_bearer), an empty one leaves the key store (per_client_keys); what it holds at start is not in the files`,
        );
      else if (!single)
        say('authentication.method', 'per_client_keys', 'API keys from the key store, each revocable alone (docs/api-keys.md)', storeSet);
      say('http.oauth_discovery_endpoints', 'not_found', 'in the keys mode the OAuth discovery URLs answer 404 (docs/proxy.md)', modeSet);
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
    const mount = { at: p.tlsMount, why: 'a certificate is mounted at the proxy TLS directory' };
    say('tls.enabled', true, 'with a certificate mounted, the reference proxy listens with ssl only (docs/proxy.md)', mount);
    say('tls.min_version', '1.2', 'the reference proxy offers TLSv1.2 and TLSv1.3 (docs/proxy.md)', mount);
    say('tls.hsts', true, 'Strict-Transport-Security max-age=31536000 on every answer with TLS on (docs/proxy.md)', mount);
  } else if (!sheet.has('tls.enabled'))
    say('tls.enabled', false, 'no certificate is mounted at the proxy TLS directory: the reference proxy serves plain HTTP');
  // The hop to Signet: HTTPS verified against SIGNET_PROXY_UPSTREAM_CA_FILE when Signet serves TLS, else plain (37-signet-upstream).
  const ca = e('SIGNET_PROXY_UPSTREAM_CA_FILE');
  const cert = get(s.env, 'SIGNET_TLS_CERT_FILE');
  if (ca && cert)
    say(
      'tls.backend_hop',
      'encrypted',
      'HTTPS to Signet, its certificate verified against SIGNET_PROXY_UPSTREAM_CA_FILE, never unverified (docs/proxy.md)',
      setting('SIGNET_PROXY_UPSTREAM_CA_FILE', ca),
      setting('SIGNET_TLS_CERT_FILE', cert),
    );
  else if (!ca && s.platform === 'compose')
    say('tls.backend_hop', 'same_host', 'without SIGNET_PROXY_UPSTREAM_CA_FILE, plain HTTP over a bridge network of one Compose host');
  else if (!ca) sheet.undecided('tls.backend_hop', CNI_HOP);
}
