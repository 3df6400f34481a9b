import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AppContext } from '../context.js';
import { createServer } from '../server.js';

/**
 * One client, one process: MCP on stdin/stdout, logs on stderr. Exits 0 when the client
 * closes stdin or on SIGTERM/SIGINT. No network, no auth, no rate limit.
 */
export async function runStdio(ctx: AppContext): Promise<void> {
  const server = createServer(ctx);
  const transport = new StdioServerTransport();
  let closing = false;
  const stop = (reason: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ reason }, 'stdio server stopping');
    // Let responses already queued in this tick reach stdout (pipes are synchronous on Linux).
    setImmediate(() => {
      server.close().finally(() => process.exit(0));
    });
  };
  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('close', () => stop('stdin closed'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  server.onerror = (err) => ctx.log.warn({ err: { message: err.message } }, 'protocol error');
  await server.connect(transport);
  ctx.log.info(
    { transport: 'stdio', doctrine: ctx.doctrine.meta.name, version: ctx.doctrine.meta.version, doctrine_hash: ctx.footer.doctrine_hash, public_key: ctx.signer.publicKeySpki, key: undefined, key_origin: ctx.keyOrigin },
    'signet ready',
  );
}
