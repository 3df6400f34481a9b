// One client, one process: MCP on stdin/stdout as newline-delimited JSON, logs on stderr.
// Each line goes through the same router as HTTP (both protocol eras; no headers on stdio).
// Exits 0 when the client closes stdin or on SIGTERM/SIGINT. No network, no auth, no limit.
import type { AppContext } from '../context.js';
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, refusalBody } from '../protocol/jsonrpc.js';
import { type RouteOutcome, Router } from '../protocol/router.js';

/** A line longer than this is refused and skipped, so a runaway client cannot exhaust memory. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

export async function runStdio(ctx: AppContext): Promise<void> {
  const router = new Router(ctx);
  const out = process.stdout;
  const answer = (line: string) => {
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
      const line = (pendingBytes === 0 ? piece : Buffer.concat([...pending, piece])).toString('utf8').trim();
      pending = [];
      pendingBytes = 0;
      if (line.length > 0) answer(line);
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

  let closing = false;
  const stop = (reason: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ reason }, 'stdio server stopping');
    // Let answers already queued reach stdout (pipes are synchronous on Linux).
    setImmediate(() => process.exit(0));
  };
  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('close', () => stop('stdin closed'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
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
