// docs/proxy.md's recipe for limiting one tool by Mcp-Name, put into the reference proxy the
// way a cloned proxy would, against the real nginx and the built server: the named tool is
// limited, others are not, and no header trick (contradiction, base64, 2025-era client,
// batch) gets a doctrine_evaluate past it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { rawRequest, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { freePort, type NginxProcess, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { proxySecretFile } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { ENVELOPE } from '../integration/protocol-corpus.js';

const recipe = (name: string) => docRecipe('proxy.md', name);

describe('docs/proxy.md: limiting one tool by Mcp-Name at a cloned proxy', () => {
  const dir = tempDir('signet-mcpname-');
  const key = newApiKey();
  let server: ServerProcess;
  let nginx: NginxProcess;
  let port = 0;

  beforeAll(async () => {
    server = await startHttpServer({
      SIGNET_DATA_DIR: join(dir, 'data'),
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_TRUSTED_PROXIES: '127.0.0.1/32',
      SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
    });
    port = await freePort();
    const rendered = renderProxy({ ...processProxyEnv(dir, port, server.port), SIGNET_API_KEY: key });
    if (rendered.code !== 0) throw new Error(rendered.stderr);
    // The clone's edit: the http snippet beside the proxy's own, the location snippet in /mcp.
    const conf = join(dir, 'conf');
    const http = readFileSync(join(conf, 'nginx.conf'), 'utf8');
    writeFileSync(join(conf, 'nginx.conf'), http.replace(/(\n\s*include [^\n]*signet\.conf;)/, `\n${recipe('mcp-name-limit-http')}$1`));
    const site = readFileSync(join(conf, 'signet.conf'), 'utf8');
    writeFileSync(join(conf, 'signet.conf'), site.replace('location = /mcp {', `location = /mcp {\n${recipe('mcp-name-limit-location')}`));
    nginx = await startNginx(dir, port);
  });
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  const post = (body: unknown, headers: Record<string, string>, from: string) =>
    rawRequest(`http://127.0.0.1:${port}/mcp`, {
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
      localAddress: from,
    });
  const modern = (name: string, args: unknown, id = 1) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: ENVELOPE },
  });
  const std = (name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
  const evaluate = { facts: {} };

  it('limits doctrine_evaluate per client, leaves other tools alone', async () => {
    const from = '127.0.0.21';
    expect((await post(modern('doctrine_evaluate', evaluate), std('doctrine_evaluate'), from)).status).toBe(200);
    const limited = await post(modern('doctrine_evaluate', evaluate, 2), std('doctrine_evaluate'), from);
    expect(limited.status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await post(modern('doctrine_info', {}, i), std('doctrine_info'), from)).status).toBe(200);
    // Another client has its own bucket.
    expect((await post(modern('doctrine_evaluate', evaluate), std('doctrine_evaluate'), '127.0.0.22')).status).toBe(200);
  });

  it('cannot be walked past: a contradicting Mcp-Name is refused by the server, and nothing runs', async () => {
    const from = '127.0.0.23';
    expect((await post(modern('doctrine_evaluate', evaluate), std('doctrine_evaluate'), from)).status).toBe(200);
    const disguised = await post(modern('doctrine_evaluate', evaluate, 2), std('doctrine_info'), from);
    expect(disguised.status).toBe(400);
    expect(disguised.json().error.code).toBe(-32020);
    const base64 = `=?base64?${Buffer.from('doctrine_evaluate').toString('base64')}?=`;
    expect((await post(modern('doctrine_evaluate', evaluate, 3), std(base64), from)).status).toBe(429);
    expect(
      (await post(modern('doctrine_evaluate', evaluate, 4), { ...std('doctrine_evaluate'), 'mcp-name': '  doctrine_evaluate ' }, from))
        .status,
    ).toBe(429);
    // A 2025-era client names nothing: it shares the bucket, as the recipe says.
    const legacy = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'doctrine_evaluate', arguments: evaluate } };
    expect((await post(legacy, {}, from)).status).toBe(429);
    expect((await post([legacy], {}, from)).status).toBe(429);
    const legacyDisguised = await post({ ...legacy, id: 6 }, { 'mcp-method': 'tools/call', 'mcp-name': 'doctrine_info' }, '127.0.0.24');
    expect(legacyDisguised.json().error.code).toBe(-32020);
    const batchDisguised = await post([legacy], { 'mcp-name': 'doctrine_info' }, '127.0.0.25');
    expect(batchDisguised.json().error.code).toBe(-32020);
  });

  it('logs Mcp-Method and Mcp-Name, bounded and escaped', async () => {
    await post(modern('doctrine_info', {}), { ...std('doctrine_info'), 'mcp-name': `${'x'.repeat(300)}"\\` }, '127.0.0.26');
    // Quotes and backslashes within the first 64 characters reach the log escaped, as JSON.
    await post(
      modern('doctrine_info', {}),
      { ...std('doctrine_info'), 'mcp-method': 'tools/"call"\\', 'mcp-name': 'q"u\\o{}' },
      '127.0.0.27',
    );
    await new Promise((r) => setTimeout(r, 1500)); // the access log flushes every second
    const lines = nginx
      .accessLog()
      .split('\n')
      .filter((l) => l.includes('"mcp_name":'))
      .map((l) => JSON.parse(l) as Record<string, string>);
    const long = lines.find((l) => l['mcp_name']!.startsWith('xxx'))!;
    expect(long['mcp_method']).toBe('tools/call');
    expect(long['mcp_name']).toBe('x'.repeat(64));
    const quoted = lines.find((l) => l['remote_addr'] === '127.0.0.27')!;
    expect(quoted['mcp_method']).toBe('tools/"call"\\');
    expect(quoted['mcp_name']).toBe('q"u\\o{}');
  });
});
