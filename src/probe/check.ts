// What every check of the probe shares: the sender, the findings, and what earlier checks
// learnt (the challenge, whether a credential may be sent, how to talk MCP to this server).
import type { Exchange, ExchangeSpec, Prober } from './exchange.js';
import type { Findings, ProbeFact } from './findings.js';
import { ACCEPT, answerTo, hasAnswer, JSON_TYPE, type McpSession, MODERN_REVISION, request } from './mcp.js';
import type { ProbeTarget } from './target.js';
import type { ProbeHeader, ProbeInexpressible } from './types.js';

export interface CheckState {
  /** The answer to a POST without any credential (the authentication check's first exchange). */
  anonymous?: Exchange;
  /** The certificate verified (https), or plain http: a credential may be sent. */
  credentialUsable: boolean;
  /** Why a credential given was not sent (an unverified certificate). */
  credentialWithheld?: string;
  /** How to get a request served, once the revision check found a revision the server accepts. */
  session?: McpSession;
  /** The newest 2025 revision the server accepted with a session id, even when 2026-07-28 serves the checks. */
  legacySession?: McpSession;
  /** The checks from the revision check on send the credential: one is given and may be sent. */
  sendCredential: boolean;
  /** Every exchange so far (bodies bounded), for checks that read all answers. */
  exchanges: Exchange[];
  /** Exchanges the MCP layer answered with a result: past every refusal at the edge (the rate-limit check reads their headers). */
  served: Exchange[];
  /** Session ids the probe opened, closed at the end. */
  openSessions: string[];
  inexpressible: ProbeInexpressible[];
  nextId: number;
}

export interface CheckContext {
  target: ProbeTarget;
  prober: Prober;
  findings: Findings;
  state: CheckState;
  exerciseRateLimit: boolean;
  /** Sends and remembers an exchange. */
  send(spec: ExchangeSpec): Promise<Exchange>;
  /** A JSON-RPC id for the next message. */
  id(): number;
  /** A POST of one message in the session's era, with the credential when one is used. */
  mcp(
    id: string,
    purpose: string,
    method: string,
    params?: Record<string, unknown>,
    name?: string,
    extra?: McpExtra,
  ): Promise<{ exchange: Exchange; rpcId: number }>;
  /** A request that changes nothing in the session's era: ping (2025) or server/discover (2026-07-28). */
  benign(id: string, purpose: string, extra?: McpExtra): Promise<{ exchange: Exchange; rpcId: number }>;
}

/** Changes to one MCP request: more headers, other options, or the era's headers edited (the mismatch check). */
export type McpExtra = Partial<ExchangeSpec> & {
  editHeaders?: (headers: ProbeHeader[]) => ProbeHeader[];
  /** Pad the message with JSON whitespace to this many bytes (the body-limit check). */
  padTo?: number;
};

export interface Check {
  name: string;
  /** The facts this check may decide: noted as undecided when it cannot run. */
  facts: readonly ProbeFact[];
  run(ctx: CheckContext): Promise<void>;
}

export function createContext(target: ProbeTarget, prober: Prober, findings: Findings, exerciseRateLimit: boolean): CheckContext {
  const state: CheckState = {
    credentialUsable: prober.hasCredential,
    sendCredential: false,
    exchanges: [],
    served: [],
    openSessions: [],
    inexpressible: [],
    nextId: 1,
  };
  const ctx: CheckContext = {
    target,
    prober,
    findings,
    state,
    exerciseRateLimit,
    async send(spec) {
      const exchange = await prober.send(spec);
      state.exchanges.push(exchange);
      // A session the probe opened (an initialize) is closed when the probe ends.
      const opened = exchange.headers['mcp-session-id'];
      if (opened && !spec.headers?.some(([n]) => n === 'mcp-session-id') && !state.openSessions.includes(opened)) {
        state.openSessions.push(opened);
      }
      return exchange;
    },
    id: () => state.nextId++,
    async mcp(id, purpose, method, params = {}, name, extra = {}) {
      const session = state.session;
      if (!session) throw new Error(`probe: ${id} needs a revision the server accepts`);
      const rpcId = ctx.id();
      const message = request(session, rpcId, method, params, name);
      const { headers: more = [], editHeaders = (h: ProbeHeader[]) => h, padTo, ...rest } = extra;
      const padding = padTo === undefined ? 0 : padTo - Buffer.byteLength(message.body);
      const exchange = await ctx.send({
        id,
        purpose,
        method: 'POST',
        path: target.path,
        body: padding > 0 ? Buffer.concat([Buffer.from(message.body), Buffer.alloc(padding, 0x20)]) : message.body,
        ...(padding > 0 ? { bodyExcerpt: `${message.body} + ${padding} spaces` } : {}),
        withCredential: state.sendCredential,
        stopWhen: hasAnswer(rpcId),
        ...rest,
        headers: editHeaders([JSON_TYPE, ACCEPT, ...message.headers, ...more]),
      });
      return { exchange, rpcId };
    },
    benign(id, purpose, extra = {}) {
      const method = state.session?.revision === MODERN_REVISION ? 'server/discover' : 'ping';
      return ctx.mcp(id, purpose, method, {}, undefined, extra);
    },
  };
  return ctx;
}

/** The MCP layer processed the request: a JSON-RPC result to it came back. */
export function servedResult(e: Exchange, rpcId: number | string): boolean {
  return answerTo(e.body, e.headers['content-type'], rpcId)?.result !== undefined;
}

/** A refusal before the MCP layer: a 4xx other than 401 (no credential) and 429 (a limit), or a closed connection. */
export function refusedAtEdge(e: Exchange): boolean {
  if (e.status === null) return e.error === 'connection reset by the server';
  return e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 429;
}
