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

export type BodyResult = { ok: true; text: string } | { ok: false };

/** The body as UTF-8 text, refusing (without buffering the rest) once it exceeds `max` bytes. */
export async function readBody(c: Context, max: number): Promise<BodyResult> {
  const msg = incoming(c);
  const declared = Number(header(c, 'content-length') ?? NaN);
  if (declared > max) return { ok: false };
  if (!msg) {
    const text = await c.req.text();
    return Buffer.byteLength(text) > max ? { ok: false } : { ok: true, text };
  }
  // Events, not `for await`: an async iterator per request measured as a visible share of a
  // cached call. The body is refused (and the rest not buffered) once it passes `max`.
  if (msg.readableEnded) return { ok: true, text: '' };
  return new Promise<BodyResult>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        msg.off('data', onData);
        msg.off('end', onEnd);
        msg.resume();
        resolve({ ok: false });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve({ ok: true, text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') });
    msg.on('data', onData);
    msg.once('end', onEnd);
    msg.once('error', reject);
  });
}
