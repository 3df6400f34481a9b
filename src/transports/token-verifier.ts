// `signet token-verifier`: the reference proxy's OAuth token check (SIGNET_AUTH_MODE oauth or
// keys+oauth). nginx asks it, with auth_request, about every /mcp request that carries a
// token: 204 with the principal (X-Signet-Principal) and scopes (X-Signet-Scopes) for nginx to
// forward, 401 with X-Signet-Token-Error for nginx's challenge, 503 while the issuer's keys
// are unknown. It sits beside the proxy, never reachable by clients, and never logs a token.
// A separate process, not njs: jose's JWKS cache, cooldown and algorithm checks are the
// well-kept library the stack prefers, and measured within the budget (docs/oauth.md).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { OAuthConfig } from '../config.js';
import type { Logger } from '../log.js';
import { discoverIssuer } from '../oauth/discovery.js';
import { type Decision, TokenValidator } from '../oauth/token-validator.js';
import { keepTlsCurrent, readTlsPair, TLS_SERVER_OPTIONS, type TlsFiles } from './tls.js';

export interface RunningVerifier {
  server: Server;
  port: number;
  close(): Promise<void>;
}

const PRINCIPAL = 'X-Signet-Principal';
const SCOPES = 'X-Signet-Scopes';
const TOKEN_ERROR = 'X-Signet-Token-Error';
// RFC 6750 §2.1: b64token.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN = 16 * 1024;

function answer(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Length': '0', 'Cache-Control': 'no-store', ...headers });
  res.end();
}

const refused = (res: ServerResponse, error: string) => answer(res, 401, { [TOKEN_ERROR]: error });

/** The bearer token of an Authorization header (scheme case-insensitive, RFC 9110 §11.1), or why not. */
function bearerOf(req: IncomingMessage): { token: string } | { error: string } {
  const h = req.headers.authorization;
  if (h === undefined || h === '') return { error: 'missing' };
  const m = /^bearer +(\S+)$/i.exec(h);
  if (!m || m[1]!.length > MAX_TOKEN || !B64TOKEN.test(m[1]!))
    return { error: 'invalid_token: the Authorization header is not a bearer token' };
  // An API key is never an access token, in either mode: keys are checked by the proxy's key path only.
  if (m[1]!.startsWith('sgnk_')) return { error: 'invalid_token: an API key is not an access token' };
  return { token: m[1]! };
}

/**
 * `tls`: serve HTTPS with this pair (SIGNET_TLS_CERT_FILE and SIGNET_TLS_KEY_FILE, as the
 * server's), where the hop from the proxy leaves the host: the proxy sends tokens over it.
 */
export async function runTokenVerifier(config: OAuthConfig, log: Logger, tls: TlsFiles | null = null): Promise<RunningVerifier> {
  let validator: TokenValidator | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  // Discovery and the first key fetch, retried until the issuer answers: until then every
  // token check is 503 (the proxy says "unavailable", never "invalid token").
  const connect = async (delayMs: number): Promise<void> => {
    try {
      const meta = await discoverIssuer(config.issuer);
      const v = new TokenValidator({ ...config, issuer: meta.issuer, jwksUri: meta.jwksUri });
      await v.warm();
      validator = v;
      log.info({ issuer: config.issuer, metadata: meta.source, jwks_uri: meta.jwksUri.href }, 'token verifier ready');
    } catch (e) {
      log.warn({ issuer: config.issuer, err: (e as Error).message }, 'authorization server not reachable; retrying');
      if (!stopped) retry = setTimeout(() => void connect(Math.min(delayMs * 2, 30_000)), delayMs);
    }
  };
  await connect(500);

  const check = async (req: IncomingMessage, res: ServerResponse) => {
    const bearer = bearerOf(req);
    if ('error' in bearer) return refused(res, bearer.error);
    if (validator === null) return answer(res, 503);
    let d: Decision;
    try {
      d = await validator.validate(bearer.token);
    } catch (e) {
      // The issuer's keys could not be fetched (down, timeout): not the token's fault.
      log.warn({ err: (e as Error).message }, 'token check failed: the issuer keys are unavailable');
      return answer(res, 503);
    }
    if (!d.ok) {
      log.info({ reason: d.description }, 'token refused');
      return refused(res, `${d.error}: ${d.description}`);
    }
    answer(res, 204, {
      [PRINCIPAL]: [d.iss, d.sub, d.client].map(encodeURIComponent).join(' '),
      [SCOPES]: d.scopes.join(' '),
    });
  };

  const listener: RequestListener = (req, res) => {
    // The body (none is forwarded) is never read; every path but these two is 404.
    if (req.url === '/check') {
      check(req, res).catch((e: unknown) => {
        log.error({ err: (e as Error).message }, 'token check failed');
        if (!res.headersSent) answer(res, 500);
      });
    } else if (req.url === '/healthz') {
      answer(res, validator === null ? 503 : 204);
    } else answer(res, 404);
  };
  const pair = tls === null ? null : readTlsPair(tls);
  let server: Server;
  let stopTls: (() => void) | null = null;
  if (tls && pair) {
    const https: HttpsServer = createHttpsServer({ ...TLS_SERVER_OPTIONS, cert: pair.cert, key: pair.key }, listener);
    stopTls = keepTlsCurrent(https, tls, pair, log);
    server = https;
  } else server = createServer(listener);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.verifierPort, config.verifierHost, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  log.info(
    { host: config.verifierHost, port, tls: tls !== null, mode: config.mode, resource: config.resource },
    'token verifier listening',
  );
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        clearTimeout(retry);
        stopTls?.();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
