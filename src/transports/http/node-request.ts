import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

// On @hono/node-server the parsed Node request is at c.env.incoming. Reading headers
// and the body from it directly skips building WHATWG Headers and a web ReadableStream
// per request, which measured as the largest per-request cost of the HTTP edge after
// the MCP SDK itself. Off Node (Hono's app.request in tests), the web Request is used.

function incoming(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** A request header; repeated headers come joined with ", " (Node's rule), like fetch's Headers. */
export function header(c: Context, name: string): string | undefined {
  const msg = incoming(c);
  if (!msg) return c.req.header(name);
  const v = msg.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

export type BodyResult = { ok: true; text: string } | { ok: false; reason: 'too_large' } | { ok: false; reason: 'shape'; message: string };

/** Invalid UTF-8 decoded leniently becomes U+FFFD: one body, two readings (pen test L2). Refused instead. */
export const NOT_UTF8 = 'the body is not UTF-8 (RFC 8259 §8.1)';

/** Looks at each chunk as it arrives; a message refuses the body there, unread past that chunk. */
export type ChunkInspector = (chunk: Uint8Array) => string | null;

/**
 * The body as UTF-8 text (refused when it is not UTF-8), refusing it once it exceeds `max` bytes or `inspect` objects to a
 * chunk. Read with stream events rather than an async iterator: the iterator's promise per
 * chunk measured several microseconds per request. A body over `max` is left unread (the 413
 * carries Connection: close, so the rest dies with the connection). A body `inspect` refused
 * is read to its end and discarded, never stored or scanned again: a proxy still sending it
 * would otherwise see the connection reset and answer its client 502 instead of the refusal.
 */
export function readBody(c: Context, max: number, inspect?: ChunkInspector): Promise<BodyResult> {
  const msg = incoming(c);
  const declared = Number(header(c, 'content-length') ?? NaN);
  if (declared > max) return Promise.resolve({ ok: false, reason: 'too_large' });
  if (!msg) {
    return c.req.arrayBuffer().then((buffer): BodyResult => {
      const bytes = Buffer.from(buffer);
      if (bytes.length > max) return { ok: false, reason: 'too_large' };
      const problem = inspect?.(bytes) ?? (isUtf8(bytes) ? null : NOT_UTF8);
      return problem === null ? { ok: true, text: bytes.toString('utf8') } : { ok: false, reason: 'shape', message: problem };
    });
  }
  if (msg.readableEnded) return Promise.resolve({ ok: true, text: '' });
  return new Promise<BodyResult>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused: string | null = null;
    const done = () => {
      msg.off('data', onData);
      msg.off('end', onEnd);
      msg.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        done();
        msg.pause();
        resolve({ ok: false, reason: 'too_large' });
        return;
      }
      if (refused !== null) return; // discarding the rest
      refused = inspect?.(chunk) ?? null;
      if (refused === null) chunks.push(chunk);
      else chunks.length = 0;
    };
    const onEnd = () => {
      done();
      if (refused !== null) return resolve({ ok: false, reason: 'shape', message: refused });
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      resolve(isUtf8(bytes) ? { ok: true, text: bytes.toString('utf8') } : { ok: false, reason: 'shape', message: NOT_UTF8 });
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    msg.on('data', onData);
    msg.on('end', onEnd);
    msg.on('error', onError);
  });
}

/**
 * Reads and discards a body the server refuses before reading it (over budget, too many in
 * flight, too large), as nginx does for its own early answers (lingering close): a client or
 * proxy still sending it would otherwise see the connection reset (EPIPE, or a 502 from a
 * proxy) instead of the answer. At most `max` bytes; false when more were coming (the refusal
 * then carries Connection: close).
 */
export function discardBody(c: Context, max: number): Promise<boolean> {
  const msg = incoming(c);
  if (!msg || msg.readableEnded) return Promise.resolve(true);
  const declared = Number(header(c, 'content-length') ?? NaN);
  if (declared > max) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let size = 0;
    const done = (drained: boolean) => {
      msg.off('data', onData);
      msg.off('end', onEnd);
      msg.off('error', onError);
      if (!drained) msg.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) done(false);
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    msg.on('data', onData);
    msg.on('end', onEnd);
    msg.on('error', onError);
    msg.resume(); // a refusal may have paused it
  });
}
