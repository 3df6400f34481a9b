// One client, one process: MCP on stdin/stdout as newline-delimited JSON, logs on stderr.
// Each line goes through the same router as HTTP (both protocol eras; no headers on stdio).
// Exits 0 when the client closes stdin (once every answer has reached the pipe, however slowly
// the client reads) or on SIGTERM/SIGINT. No network, no auth, no limit.
import { isUtf8 } from 'node:buffer';
import type { AppContext } from '../context.js';
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, refusalBody } from '../protocol/jsonrpc.js';
import { type RouteOutcome, Router } from '../protocol/router.js';

/** A line longer than this is refused and skipped, so a runaway client cannot exhaust memory. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** After SIGTERM/SIGINT, how long answers already written may take to reach a reader that stalls. */
const SIGNAL_FLUSH_MS = 5_000;

export async function runStdio(ctx: AppContext): Promise<void> {
  const router = new Router(ctx);
  const out = process.stdout;
  const answer = (bytes: Buffer) => {
    // Invalid UTF-8 decoded leniently becomes U+FFFD: one line, two readings (pen test L2).
    if (!isUtf8(bytes)) {
      out.write(`${refusalBody(null, PARSE_ERROR, 'Parse error: the line is not UTF-8 (RFC 8259 §8.1)')}\n`);
      return;
    }
    const line = bytes.toString('utf8').trim();
    if (line.length === 0) return;
    let payload: unknown;
    try {
      payload = JSON.parse(line);
    } catch {
      out.write(`${refusalBody(null, PARSE_ERROR, 'Parse error: the line is not valid JSON')}\n`);
      return;
    }
    let outcome: RouteOutcome;
    try {
      outcome = router.route(payload, { transport: 'stdio' });
    } catch (err) {
      ctx.log.error({ err: { name: (err as Error).name, message: (err as Error).message } }, 'message failed');
      out.write(`${refusalBody(null, INTERNAL_ERROR, 'Internal error')}\n`);
      return;
    }
    if (outcome.body !== null) out.write(`${outcome.body}\n`);
  };

  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  process.stdin.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      const line = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      answer(line);
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || skipping) return;
    pendingBytes += rest.length;
    if (pendingBytes > MAX_LINE_BYTES) {
      out.write(`${refusalBody(null, INVALID_REQUEST, `Invalid Request: a message longer than ${MAX_LINE_BYTES} bytes`)}\n`);
      pending = [];
      pendingBytes = 0;
      skipping = true;
      return;
    }
    pending.push(Buffer.from(rest));
  });

  // A reader that went away: nothing more can reach it, and that is no error of ours.
  out.on('error', (err: NodeJS.ErrnoException) => {
    ctx.log.info({ reason: err.code ?? err.message }, 'stdout closed by the client');
    process.exit(0);
  });

  let closing = false;
  const stop = (reason: string, flushBound: number | null) => {
    if (closing) return;
    closing = true;
    // A last message the client ended without a newline before closing stdin is still answered.
    if (reason === 'stdin closed' && !skipping && pendingBytes > 0) answer(Buffer.concat(pending));
    ctx.log.info({ reason }, 'stdio server stopping');
    // A full pipe queues writes in the process (its buffer holds 64 KiB): exiting now would cut
    // an answer short for a client that reads slowly. An empty write's callback runs once every
    // earlier write has reached the pipe.
    out.write('', () => process.exit(0));
    if (flushBound !== null) setTimeout(() => process.exit(0), flushBound).unref();
  };
  process.stdin.on('end', () => stop('stdin closed', null));
  process.stdin.on('close', () => stop('stdin closed', null));
  process.on('SIGTERM', () => stop('SIGTERM', SIGNAL_FLUSH_MS));
  process.on('SIGINT', () => stop('SIGINT', SIGNAL_FLUSH_MS));
  ctx.log.info(
    {
      transport: 'stdio',
      doctrine: ctx.doctrine.meta.name,
      version: ctx.doctrine.meta.version,
      doctrine_hash: ctx.footer.doctrine_hash,
      public_key: ctx.signer.publicKeySpki,
      key_origin: ctx.keyOrigin,
    },
    'signet ready',
  );
}
