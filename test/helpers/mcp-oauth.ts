// The official MCP SDK clients' OAuth support, driven without a browser: an OAuthClientProvider
// whose redirect to the authorization server is followed with plain HTTP through the test
// issuer's login and consent pages (test/oauth-issuer/issuer.mjs), as a person would click
// through them, ending at the redirect URI with the code (and RFC 9207 `iss`). The SDK does
// everything else: the 401, protected resource metadata, authorization server metadata,
// dynamic client registration, PKCE, the token request with the resource indicator, refresh,
// and the step-up on a 403 insufficient_scope.
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
  UnauthorizedError as UnauthorizedV2,
} from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const REDIRECT = 'http://127.0.0.1:9/callback'; // never contacted: the flow stops at its URL

type Tokens = { access_token: string; refresh_token?: string; scope?: string; token_type: string; expires_in?: number };

/** Follows an authorization URL through the issuer's development login and consent forms. */
export async function authorizeHeadless(
  url: URL,
  subject: string,
  log: string[],
  redirect = REDIRECT,
): Promise<{ code: string; iss: string | null; callback: string }> {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let next: { url: string; init?: RequestInit } = { url: url.href };
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(next.url, { redirect: 'manual', ...next.init, headers: { cookie: cookie(), ...(next.init?.headers ?? {}) } });
    remember(res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const target = new URL(location, next.url);
      if (target.href.startsWith(redirect)) {
        const error = target.searchParams.get('error');
        if (error) throw new Error(`authorization refused: ${error} ${target.searchParams.get('error_description') ?? ''}`);
        log.push('authorized');
        return { code: target.searchParams.get('code')!, iss: target.searchParams.get('iss'), callback: target.href };
      }
      next = { url: target.href };
      continue;
    }
    const html = await res.text();
    const prompt = /name="prompt" value="(login|consent)"/.exec(html)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !prompt || !action)
      throw new Error(`unexpected page in the authorization flow (${res.status}): ${html.slice(0, 300)}`);
    log.push(prompt === 'login' ? 'signed in' : 'consented');
    const form = new URLSearchParams(prompt === 'login' ? { prompt, login: subject, password: 'any' } : { prompt });
    next = {
      url: new URL(action, next.url).href,
      init: { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    };
  }
  throw new Error('the authorization flow did not reach the redirect URI');
}

/** An in-memory OAuth client as an MCP host keeps one: registration, tokens, PKCE verifier. */
export class HeadlessOAuthClient {
  readonly log: string[] = [];
  #client: Record<string, unknown> | undefined;
  #tokens: Tokens | undefined;
  #verifier = '';
  pending: { code: string; iss: string | null; callback: string } | null = null;
  readonly subject: string;
  readonly issuer: string;
  constructor(subject: string, issuer: string) {
    this.subject = subject;
    this.issuer = issuer;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: 'Signet test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }
  clientInformation() {
    return this.#client as never;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.log.push('registered');
    this.#client = info;
  }
  tokens() {
    return this.#tokens as never;
  }
  saveTokens(tokens: Tokens) {
    this.log.push(
      this.#tokens?.refresh_token && tokens.access_token !== this.#tokens.access_token && !this.pending ? 'refreshed' : 'tokens',
    );
    this.#tokens = tokens;
  }
  /** Test seam: forget the access token but keep the refresh token, as after its expiry. */
  expireAccessToken() {
    if (this.#tokens) this.#tokens = { ...this.#tokens, access_token: 'expired.access.token', expires_in: 0 };
  }
  async redirectToAuthorization(url: URL) {
    this.log.push(`authorize scope=${url.searchParams.get('scope') ?? ''} resource=${url.searchParams.get('resource') ?? ''}`);
    this.pending = await authorizeHeadless(url, this.subject, this.log);
    // RFC 9207: the response names the issuer the client started with.
    if (this.pending.iss !== this.issuer) throw new Error(`authorization response iss ${this.pending.iss}, expected ${this.issuer}`);
  }
  saveCodeVerifier(v: string) {
    this.#verifier = v;
  }
  codeVerifier() {
    return this.#verifier;
  }
  /** The access token now held (for checks on its claims). */
  accessToken(): string | undefined {
    return this.#tokens?.access_token;
  }
}

export interface OAuthSession {
  oauth: HeadlessOAuthClient;
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

/**
 * Connects with the v2 client (2026-07-28) or the v1 client (2025-11-25) through the whole
 * flow: the first connect meets the 401 and sends the user to authorize; the code is exchanged
 * (finishAuth) and the client connects again. A call that meets a 403 insufficient_scope steps
 * up the same way and is retried once.
 */
export async function connectWithOAuth(era: 'v2' | 'v1', url: string, oauth: HeadlessOAuthClient): Promise<OAuthSession> {
  const info = { name: 'signet-oauth-test', version: '1.0.0' };
  const make = () =>
    era === 'v2'
      ? {
          client: new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
          transport: new HttpV2(new URL(url), { authProvider: oauth as never }),
        }
      : { client: new ClientV1(info), transport: new HttpV1(new URL(url), { authProvider: oauth as never }) };
  const isUnauthorized = (e: unknown) => e instanceof UnauthorizedV2 || e instanceof UnauthorizedV1;
  let c = make();
  const finish = async () => {
    const pending = oauth.pending;
    if (!pending) throw new Error('no authorization code to exchange');
    // v2 checks the RFC 9207 `iss` itself before redeeming the code; v1 takes the code alone.
    await (c.transport as { finishAuth(code: string, iss?: string): Promise<void> }).finishAuth(pending.code, pending.iss ?? undefined);
    oauth.pending = null;
  };
  try {
    await c.client.connect(c.transport as never);
  } catch (e) {
    if (!isUnauthorized(e)) throw e;
    await finish();
    await c.client.close().catch(() => {});
    c = make();
    await c.client.connect(c.transport as never);
  }
  const withStepUp = async <T>(op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (e) {
      if (!isUnauthorized(e) || !oauth.pending) throw e;
      oauth.log.push('step-up');
      await finish();
      return op();
    }
  };
  return {
    oauth,
    callTool: (name, args) => withStepUp(async () => (await c.client.callTool({ name, arguments: args })) as Record<string, unknown>),
    listTools: () => withStepUp(async () => (await c.client.listTools()) as { tools: { name: string }[] }),
    protocolVersion: () =>
      era === 'v2' ? (c.client as ClientV2).getNegotiatedProtocolVersion() : ((c.transport as HttpV1).protocolVersion ?? '2025-11-25'),
    close: () => c.client.close(),
  };
}
