// Every request the probe sends goes through here: to the target's origin only, one new
// connection each (no redirect is followed, no connection reused, so one check's refusal never
// colours the next), within the request budget, a timeout each and the probe's deadline. Each
// becomes an evidence record with the credential and any session id replaced by a placeholder.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { ProbeTarget } from './target.js';
import type { ProbeCredential, ProbeEvidence, ProbeHeader, ProbeHttpEvidence } from './types.js';

/** Why the probe stopped sending: its request budget or its deadline. */
export class ProbeStop extends Error {
  readonly reason: 'budget' | 'deadline';
  constructor(reason: 'budget' | 'deadline') {
    super(reason === 'budget' ? 'the request budget is spent' : 'the probe deadline passed');
    this.reason = reason;
  }
}

export interface ExchangeSpec {
  id: string;
  purpose: string;
  method: string;
  /** Path and query on the target's origin. */
  path: string;
  headers?: ProbeHeader[];
  /** Replaces the target's Host (the Host validation check). */
  host?: string;
  body?: Buffer | string;
  /** How a synthetic body was built, shown instead of its start. */
  bodyExcerpt?: string;
  /** Adds `Authorization: Bearer <credential>`; over https only to a certificate that verifies. */
  withCredential?: boolean;
  /** Stop reading after this many bytes (default 256 KiB). */
  maxResponseBytes?: number;
  /** Stop reading once the body so far satisfies this (a stream that stays open). */
  stopWhen?: (body: string) => boolean;
  /** Stop reading a stream after this long, without calling it an error. */
  windowMs?: number;
  /** Return the evidence record instead of recording it (a repeated request keeps a few records). */
  quiet?: boolean;
}

export interface Exchange {
  id: string;
  status: number | null;
  /** Response headers, names in lower case, repeated ones joined with `, `. */
  headers: Record<string, string>;
  body: string;
  error: string | null;
  /** The evidence record (already recorded unless the request was quiet). */
  evidence: ProbeHttpEvidence;
}

/** The response headers that bear on a fact; others (Date, request ids) are left out of the evidence. */
const RELEVANT = new Set([
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'allow',
  'content-type',
  'location',
  'mcp-protocol-version',
  'mcp-session-id',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'strict-transport-security',
  'vary',
  'www-authenticate',
]);

const EXCERPT_CHARS = 600;
const DEFAULT_MAX_RESPONSE = 256 * 1024;

interface Outcome {
  status: number | null;
  raw: IncomingMessage['headers'];
  body: Buffer;
  truncated: boolean;
  error: string | null;
}

export interface ProberSettings {
  credential: ProbeCredential | undefined;
  ca: string | undefined;
  timeoutMs: number;
  maxRequests: number;
}

export class Prober {
  readonly evidence: ProbeEvidence[] = [];
  readonly #ids = new Set<string>();
  readonly #hidden: { value: string; label: string }[] = [];
  #connections = 0;

  readonly target: ProbeTarget;
  readonly settings: ProberSettings;
  readonly deadline: AbortSignal;

  constructor(target: ProbeTarget, settings: ProberSettings, deadline: AbortSignal) {
    this.target = target;
    this.settings = settings;
    this.deadline = deadline;
    if (settings.credential) {
      this.hide(settings.credential.value, '[credential]');
      this.hide(encodeURIComponent(settings.credential.value), '[credential]');
    }
  }

  get hasCredential(): boolean {
    return this.settings.credential !== undefined;
  }

  /** CAs for a verified connection: the system's and the caller's. */
  get trustedCas(): string[] {
    return this.settings.ca ? [...rootCertificates, this.settings.ca] : [...rootCertificates];
  }

  /** A value never to appear in the evidence (the credential, a session id the server issued). */
  hide(value: string, label: string): void {
    if (value.length > 0 && !this.#hidden.some((h) => h.value === value)) this.#hidden.push({ value, label });
  }

  redact(text: string): string {
    let out = text;
    for (const h of this.#hidden) out = out.split(h.value).join(h.label);
    return out;
  }

  /** Takes one connection from the budget, or stops the probe. */
  reserve(): void {
    if (this.deadline.aborted) throw new ProbeStop('deadline');
    if (this.#connections >= this.settings.maxRequests) throw new ProbeStop('budget');
    this.#connections += 1;
  }

  get connections(): number {
    return this.#connections;
  }

  record(entry: ProbeEvidence): void {
    if (this.#ids.has(entry.id)) throw new Error(`probe: evidence id ${entry.id} used twice`);
    this.#ids.add(entry.id);
    this.evidence.push(entry);
  }

  async send(spec: ExchangeSpec): Promise<Exchange> {
    this.reserve();
    const { target } = this;
    const credential = spec.withCredential ? this.settings.credential : undefined;
    if (spec.withCredential && !credential) throw new Error(`probe: ${spec.id} needs a credential`);
    const body = spec.body === undefined ? undefined : Buffer.isBuffer(spec.body) ? spec.body : Buffer.from(spec.body, 'utf8');
    const headers: ProbeHeader[] = [['host', spec.host ?? target.host], ...(spec.headers ?? [])];
    if (credential) headers.push(['authorization', `Bearer ${credential.value}`]);
    if (body) headers.push(['content-length', String(body.length)]);

    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const signal = AbortSignal.any([timeout, this.deadline]);
    const max = spec.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
    const outcome = await new Promise<Outcome & { peer: string | null }>((resolve) => {
      let settled = false;
      let peer: string | null = null;
      const finish = (v: Outcome) => {
        if (settled) return;
        settled = true;
        resolve({ ...v, peer });
      };
      const options = {
        host: target.hostname,
        port: target.port,
        path: spec.path,
        method: spec.method,
        headers: Object.fromEntries(headers),
        agent: false as const,
        signal,
        ...(target.https
          ? {
              servername: target.servername,
              // A credential goes only to a certificate that verifies; other requests go anyway (their
              // answers are evidence, and the TLS check records the certificate's problem).
              rejectUnauthorized: credential !== undefined,
              ...(credential ? { ca: this.trustedCas } : {}),
            }
          : {}),
      };
      const req = (target.https ? httpsRequest : httpRequest)(options, (res) => {
        peer = res.socket?.remoteAddress ?? peer;
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        let window: NodeJS.Timeout | undefined;
        const done = () => {
          if (window) clearTimeout(window);
          finish({ status: res.statusCode ?? null, raw: res.headers, body: Buffer.concat(chunks), truncated, error: null });
        };
        if (spec.windowMs !== undefined)
          window = setTimeout(() => {
            truncated = true;
            done();
            res.destroy();
          }, spec.windowMs);
        res.on('data', (chunk: Buffer) => {
          const room = max - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size = max;
            truncated = true;
            done();
            res.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
          if (spec.stopWhen?.(Buffer.concat(chunks).toString('utf8'))) {
            truncated = !res.complete;
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      });
      req.on('socket', (socket) => {
        socket.once(target.https ? 'secureConnect' : 'connect', () => (peer = socket.remoteAddress ?? null));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        const why = this.deadline.aborted
          ? 'the probe deadline passed'
          : timeout.aborted
            ? `no answer within ${this.settings.timeoutMs} ms`
            : describe(err);
        finish({ status: null, raw: {}, body: Buffer.alloc(0), truncated: false, error: why });
      });
      req.end(body);
    });

    const text = outcome.body.toString('utf8');
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(outcome.raw)) {
      if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const session = flat['mcp-session-id'];
    if (session) this.hide(session, '[session id]');
    const evidence: ProbeHttpEvidence = {
      id: spec.id,
      kind: 'http',
      purpose: spec.purpose,
      request: {
        method: spec.method,
        url: this.redact(`${target.url.origin}${spec.path}`),
        headers: headers
          .map(([n, v]): ProbeHeader => [n, n === 'authorization' && credential ? 'Bearer [credential]' : this.redact(v)])
          .sort(byName),
        body_bytes: body?.length ?? 0,
        body_excerpt: spec.bodyExcerpt ?? this.redact(excerpt(body?.toString('utf8') ?? '')),
      },
      response:
        outcome.status === null
          ? null
          : {
              status: outcome.status,
              headers: Object.entries(flat)
                .filter(([n]) => RELEVANT.has(n))
                .map(([n, v]): ProbeHeader => [n, n === 'mcp-session-id' ? `[session id, ${v.length} characters]` : this.redact(v)])
                .sort(byName),
              body_bytes: outcome.body.length,
              body_excerpt: this.redact(excerpt(text)),
              truncated: outcome.truncated,
            },
      peer_address: outcome.peer,
      error: outcome.error,
    };
    if (!spec.quiet) this.record(evidence);
    return { id: spec.id, status: outcome.status, headers: flat, body: text, error: outcome.error, evidence };
  }
}

function byName(a: ProbeHeader, b: ProbeHeader): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** A network error in a few words, never a stack or a local path. */
export function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset by the server';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_STATUS':
      return 'not an HTTP answer';
    default:
      return err.code ? `${err.code}` : 'connection failed';
  }
}
