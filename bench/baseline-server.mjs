// The baselines HTTP numbers are compared with: bare Hono on @hono/node-server (the stack
// Signet's HTTP transport uses) doing nothing else.
//   POST /echo   parses the JSON body and sends it back (as in shared/PERFORMANCE.md)
//   POST /fixed  parses the JSON body and sends a fixed JSON reply read from FIXED_BODY_FILE,
//                so a response of the same size as Signet's can be compared byte for byte
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const fixed = process.env.FIXED_BODY_FILE ? readFileSync(process.env.FIXED_BODY_FILE, 'utf8') : '{}';
const app = new Hono();
app.post('/echo', async (c) => c.json(await c.req.json()));
// The same echo where the reference proxy forwards to, for measuring the proxy alone.
app.post('/mcp', async (c) => c.json(await c.req.json()));
app.get('/healthz', (c) => c.json({ status: 'ok' }));
app.post('/fixed', async (c) => {
  await c.req.json();
  return c.body(fixed, 200, { 'content-type': 'application/json' });
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT ?? 0) }, (info) => {
  process.stderr.write(`listening on port ${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
