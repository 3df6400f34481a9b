// The bound for a signed call over HTTP, measured rather than assumed: bare Hono on
// @hono/node-server (as bench/baseline-server.mjs) whose one handler parses the body and makes
// the same signed tools/call in process (ctx.tools.call), answering the same bytes as Signet's
// 2025-era answer. No edge (identity, checks, rate limit, log line), no router.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { createLogger } from '../dist/log.js';

const ctx = createContext(
  loadConfig({
    SIGNET_DATA_DIR: process.env.SIGNET_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'signet-bound-')),
    SIGNET_CACHE_ENTRIES: process.env.SIGNET_CACHE_ENTRIES ?? '0',
  }),
  createLogger('silent'),
);
const app = new Hono();
app.post('/mcp', async (c) => {
  const m = await c.req.json();
  const json = ctx.tools.call(m.params.name, m.params.arguments).json();
  return c.body(`{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(m.id)}}`, 200, { 'content-type': 'application/json' });
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT ?? 0) }, (info) => {
  process.stderr.write(`listening on port ${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
