// `signet auth-check`: the reference proxy's one authenticator (issue 28). nginx asks it, with
// auth_request, about every /mcp request when the proxy has no static key: API keys (the hashed
// store, held in memory and read again when it changes) and OAuth access tokens (jose, on the
// issuer's keys as issuer-keys.ts keeps them). Its answer, for nginx to forward:
//   204  X-Signet-Auth: ok, and X-Signet-Key-Id or X-Signet-Principal + X-Signet-Scopes
//   401  X-Signet-Auth: why (missing, malformed, checksum, unknown, revoked, expired, invalid_token)
//   403  X-Signet-Auth: limited: past the refused-credential limit, nothing checked (nginx: 429)
//   403  X-Signet-Auth: unavailable: the key store cannot be read, the issuer's keys cannot be had (nginx: 503)
// It answers only its proxy (pen test L1): every request must carry the proxy secret, as the
// server's do, unless it listens on loopback only. The client address it limits refusals by is
// the one the proxy names (X-Real-IP), believed for the same reason. It never logs a credential.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KeySet } from '../../api-keys/key-set.js';
import type { KeyRecord } from '../../api-keys/store.js';
import type { AuthCheckConfig, OAuthConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { discoverIssuer } from '../../oauth/discovery.js';
import { IssuerKeys, KeysUnavailable } from '../../oauth/issuer-keys.js';
import { type Accepted, type Decision, TokenValidator } from '../../oauth/token-validator.js';
import { API_KEY, type AuthState, EDGE_HEADERS } from '../../shared/edge-contract.js';
import { formatPrincipal, oauthSubjectId } from '../http/oauth/principal-header.js';
import { limitBucket } from '../http/rate-limit/bucket.js';
import { keepTlsCurrent, readTlsPair, TLS_SERVER_OPTIONS, type TlsFiles } from '../tls.js';
import { watchKeyExpiry } from './key-expiry.js';
import { AuthCheckMetrics, type CredentialKind as Kind } from './metrics.js';
import { RefusalLimit } from './refusal-limit.js';

export interface AuthCheckSettings {
  check: AuthCheckConfig;
  oauth: OAuthConfig | null;
  /** The API key store (keys and keys+oauth). */
  keyStore: string;
  /** The proxy's secret (SIGNET_PROXY_SECRET_FILE, read); null only on a loopback listener. */
  proxySecret: string | null;
  ipv6Prefix: number;
  tls: TlsFiles | null;
}

export interface RunningAuthCheck {
  server: Server;
  port: number;
  metrics: AuthCheckMetrics;
  close(): Promise<void>;
}

// RFC 6750 §2.1 b64token, after a scheme matched case-insensitively (RFC 9110 §11.1) and one space.
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i;
const MAX_CREDENTIAL = 16 * 1024;
const NONE: readonly string[] = [];

export async function runAuthCheck(s: AuthCheckSettings, log: Logger): Promise<RunningAuthCheck> {
  const keys = s.check.mode === 'oauth' ? null : new KeySet(s.keyStore, log);
  const metrics = new AuthCheckMetrics(keys, s.check.expiryWarningDays);
  const limit = new RefusalLimit(s.check.failuresPerMinute, s.check.failuresBurst);
  const secret = s.proxySecret === null ? null : Buffer.from(s.proxySecret);
  let validator: TokenValidator | null = null;
  let issuerKeys: IssuerKeys | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const stopExpiry = keys ? watchKeyExpiry(keys, s.check.expiryWarningDays, log) : () => undefined;
  if (keys?.problem) log.warn({ store: s.keyStore, problem: keys.problem }, 'API key store not usable yet');

  // Discovery and the first key fetch, retried with backoff until the issuer answers: until then
  // every token check is 503 (the proxy says "unavailable", never "invalid token").
  const oauth = s.oauth;
  if (oauth) {
    const ca = oauth.caFile === null ? undefined : (await import('node:fs')).readFileSync(oauth.caFile, 'utf8');
    const connect = async (delayMs: number): Promise<void> => {
      try {
        const meta = await discoverIssuer(oauth.issuer, 5000, ca);
        const k = new IssuerKeys({
          jwksUri: meta.jwksUri,
          cooldownSeconds: oauth.jwksCooldownSeconds,
          refreshSeconds: oauth.jwksRefreshSeconds,
          ca,
          log,
        });
        await k.load();
        issuerKeys = k;
        validator = new TokenValidator({ ...oauth, issuer: meta.issuer, jwksUri: meta.jwksUri, keys: k });
        log.info({ issuer: oauth.issuer, metadata: meta.source, jwks_uri: meta.jwksUri.href }, 'issuer keys loaded');
      } catch (e) {
        log.warn({ issuer: oauth.issuer, err: (e as Error).message, retry_ms: delayMs }, 'authorization server not reachable; retrying');
        if (!stopped) retry = setTimeout(() => void connect(Math.min(delayMs * 2, 30_000)), delayMs);
      }
    };
    await connect(500);
  }

  // Headers as one flat list (name, value, …): Node writes them as given, with no object to build
  // and check per answer. No Date header: nginx reads none of it.
  const head = (state: AuthState, headers: readonly string[]) => [
    'Content-Length',
    '0',
    'Cache-Control',
    'no-store',
    EDGE_HEADERS.authState,
    state,
    ...headers,
  ];
  const send = (res: ServerResponse, status: number, headers: readonly string[]) => {
    res.sendDate = false;
    res.writeHead(status, headers as string[]);
    res.end();
  };
  const answer = (res: ServerResponse, kind: Kind, status: number, state: AuthState, headers = NONE) => {
    metrics.answers(kind, state).n++;
    send(res, status, head(state, headers));
  };
  // What an acceptance says, kept with what it is about (a key's record, a token's decision), so
  // a credential in use costs no formatting or hashing after its first answer. A store read again
  // brings new records, an expired token's decision goes: their entries go with them.
  const said = new WeakMap<object, readonly string[]>();
  const keyOk = metrics.answers('key', 'ok');
  const tokenOk = metrics.answers('token', 'ok');
  const acceptKey = (res: ServerResponse, r: KeyRecord) => {
    let h = said.get(r);
    if (h === undefined) said.set(r, (h = head('ok', [EDGE_HEADERS.keyId, r.id, EDGE_HEADERS.principalId, `key:${r.id}`])));
    keyOk.n++;
    send(res, 204, h);
  };
  const acceptToken = (res: ServerResponse, d: Accepted) => {
    let h = said.get(d);
    if (h === undefined) {
      h = head('ok', [
        EDGE_HEADERS.principal,
        formatPrincipal(d.iss, d.sub, d.client),
        EDGE_HEADERS.scopes,
        d.scopes.join(' '),
        EDGE_HEADERS.principalId,
        oauthSubjectId(d.iss, d.sub),
      ]);
      said.set(d, h);
    }
    tokenOk.n++;
    send(res, 204, h);
  };

  // The client's address bucket, for the refused-credential limit: worked out only when a
  // credential is refused or about to be checked at some cost, never for one already known good.
  const bucketOf = (req: IncomingMessage) => limitBucket(header(req, CLIENT_ADDRESS) ?? req.socket.remoteAddress ?? '', s.ipv6Prefix);

  /** A refusal after a check: 401, or 429 (403 to nginx) once the address has no refusals left. */
  const refuse = (req: IncomingMessage, res: ServerResponse, kind: Kind, state: AuthState, taken = false) => {
    if (taken || limit.take(bucketOf(req))) return answer(res, kind, 401, state);
    answer(res, kind, 403, 'limited');
  };

  const checkKey = (req: IncomingMessage, res: ServerResponse, key: string) => {
    const v = keys!.check(key);
    if (v.state === 'ok') return acceptKey(res, v.record);
    if (v.state === 'unavailable') return answer(res, 'key', 403, 'unavailable');
    // An in-memory lookup costs less than the limit's own bookkeeping: keys are always checked,
    // so a valid key is never refused for its address's refusals; only the answer to a bad one changes.
    if (limit.take(bucketOf(req))) {
      log.info({ state: v.state, key_id: v.id }, 'key refused');
      // A revoked or an expired key is a real key of the store: its id tells the operator which
      // one a client still sends (the proxy logs it; it never reaches Signet).
      const known = (v.state === 'revoked' || v.state === 'expired') && v.id ? [EDGE_HEADERS.keyId, v.id] : NONE;
      return answer(res, 'key', 401, v.state, known);
    }
    answer(res, 'key', 403, 'limited');
  };

  const checkToken = (req: IncomingMessage, res: ServerResponse, token: string): void | Promise<void> => {
    const v: TokenValidator | null = validator;
    if (v === null) return answer(res, 'token', 403, 'unavailable');
    // A token decided before costs a lookup, whatever the address's refusals.
    const known = v.known(token);
    if (known?.ok) return acceptToken(res, known);
    if (known) return refuse(req, res, 'token', 'invalid_token');
    // Past the limit a new token is not checked at all (M5): no signature, no key fetch, no log line.
    const bucket = bucketOf(req);
    if (!limit.take(bucket)) return answer(res, 'token', 403, 'limited');
    return validateNew(req, res, v, token, bucket);
  };

  const validateNew = async (req: IncomingMessage, res: ServerResponse, v: TokenValidator, token: string, bucket: string) => {
    let d: Decision;
    try {
      d = await v.validate(token);
    } catch (e) {
      limit.give(bucket);
      if (!(e instanceof KeysUnavailable)) log.warn({ err: (e as Error).message }, 'token check failed: the issuer keys are unavailable');
      return answer(res, 'token', 403, 'unavailable');
    }
    if (d.ok) {
      limit.give(bucket);
      return acceptToken(res, d);
    }
    log.info({ reason: d.description }, 'token refused');
    refuse(req, res, 'token', 'invalid_token', true);
  };

  // Synchronous but for a token not decided before: a key or a known token costs no promise.
  const check = (req: IncomingMessage, res: ServerResponse): void | Promise<void> => {
    const authorization = req.headers.authorization;
    if (authorization === undefined || authorization === '') return refuse(req, res, 'none', 'missing');
    const m = authorization.length <= MAX_CREDENTIAL + 7 ? BEARER.exec(authorization) : null;
    if (!m) return refuse(req, res, 'none', 'malformed');
    const credential = m[1]!;
    // A key is never a token and a token never a key: the prefix decides which check runs.
    if (credential.startsWith(API_KEY.prefix) && keys !== null) return checkKey(req, res, credential);
    if (s.oauth !== null) return checkToken(req, res, credential);
    return refuse(req, res, 'key', 'malformed');
  };

  const listener: RequestListener = (req, res) => {
    // The body (none is forwarded) is never read.
    if (req.url === '/healthz') {
      const problem = keys?.problem ?? (s.oauth && validator === null ? 'the issuer keys are not loaded yet' : null);
      res.writeHead(problem ? 503 : 204, { 'Content-Length': '0', 'Cache-Control': 'no-store' }).end();
      return;
    }
    if (req.url !== '/check') {
      res.writeHead(404, { 'Content-Length': '0' }).end();
      return;
    }
    if (secret !== null) {
      const presented = header(req, PROXY_AUTH);
      const given = presented === undefined ? null : Buffer.from(presented);
      // Constant time for a secret of the right length; the length itself is no secret.
      if (given === null || given.length !== secret.length || !timingSafeEqual(secret, given)) {
        metrics.unauthenticated();
        res.writeHead(403, { 'Content-Length': '0', 'Cache-Control': 'no-store' }).end();
        return;
      }
    }
    const failed = (e: unknown) => {
      log.error({ err: (e as Error).message }, 'auth check failed');
      if (!res.headersSent) res.writeHead(500, { 'Content-Length': '0' }).end();
    };
    try {
      check(req, res)?.catch(failed);
    } catch (e) {
      failed(e);
    }
  };

  const pair = s.tls === null ? null : readTlsPair(s.tls);
  let server: Server;
  let stopTls: (() => void) | null = null;
  if (s.tls && pair) {
    const https: HttpsServer = createHttpsServer({ ...TLS_SERVER_OPTIONS, cert: pair.cert, key: pair.key }, listener);
    stopTls = keepTlsCurrent(https, s.tls, pair, log);
    server = https;
  } else server = createServer(listener);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(s.check.port, s.check.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  log.info(
    {
      host: s.check.host,
      port,
      tls: s.tls !== null,
      mode: s.check.mode,
      key_store: keys ? s.keyStore : undefined,
      resource: s.oauth?.resource,
      proxy_secret: secret !== null,
    },
    'auth check listening',
  );
  return {
    server,
    port,
    metrics,
    close: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        clearTimeout(retry);
        stopTls?.();
        stopExpiry();
        keys?.close();
        (issuerKeys as IssuerKeys | null)?.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const CLIENT_ADDRESS = EDGE_HEADERS.clientAddress.toLowerCase();
const PROXY_AUTH = EDGE_HEADERS.proxyAuth.toLowerCase();

/** A request header by its lower-case name; undefined when absent or repeated. */
function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? undefined : v;
}
