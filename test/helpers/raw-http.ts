// Raw bytes over a socket, for requests no HTTP client would send (malformed request lines,
// folded or duplicate headers, HTTP/0.9, smuggling attempts), and the responses as written.
import { connect } from 'node:net';

export interface RawExchange {
  /** Everything the peer sent back, as latin1 text. */
  text: string;
  /** Status codes of the responses, in order (none for an HTTP/0.9 answer, which has no status line). */
  statuses: number[];
  /** True when the peer closed the connection. */
  closed: boolean;
}

/**
 * Writes `request` to host:port (from `localAddress` when given) and collects the answer until
 * the peer closes or sends nothing for `idleMs`. The socket is never half-closed: nginx reads
 * a half-close as a client that went away.
 */
export function rawExchange(
  baseUrl: string,
  request: string | Buffer,
  opts: { localAddress?: string; idleMs?: number } = {},
): Promise<RawExchange> {
  const u = new URL(baseUrl);
  const idleMs = opts.idleMs ?? 700;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port), localAddress: opts.localAddress });
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      // A status line may follow a body that ends without a newline (pipelined answers).
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ text, statuses, closed });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    };
    socket.on('connect', () => {
      socket.write(request);
      // A server that answers nothing at all: give it longer than the idle gap.
      timer = setTimeout(() => finish(false), Math.max(idleMs, 3000));
    });
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      arm();
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err) => (chunks.length > 0 ? finish(true) : reject(err)));
  });
}

/** The JSON bodies found in a raw answer (one per response), parsed. */
export function jsonBodies(text: string): Record<string, unknown>[] {
  return [...text.matchAll(/\{"error":"[^"\r\n]*"(?:,"[^"\r\n]*":"[^"\r\n]*")*\}/g)].map(
    (m) => JSON.parse(m[0]) as Record<string, unknown>,
  );
}

/** One header's value in the first final (non-1xx) response of a raw answer (case-insensitive name). */
export function rawHeader(text: string, name: string): string | undefined {
  const start = /HTTP\/1\.[01] [2-5]\d\d /.exec(text)?.index ?? 0;
  const head = text.slice(start, text.indexOf('\r\n\r\n', start));
  const m = new RegExp(`\\r\\n${name}: ([^\\r\\n]*)`, 'i').exec(head);
  return m?.[1];
}
