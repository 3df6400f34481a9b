// The recipe of docs/proxy.md, "Cloning it in front of another MCP server", run as written with
// Docker: the proxy image built from proxy/, a key from the image alone (signet-proxy-key), the
// proxy on the network of an MCP server no one here wrote (the official server-everything, in
// streamable HTTP mode), and the official SDK client through it. Names, the network and the
// published port are this test's own (other stacks may run on this engine).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { checkApiKeyFormat } from '../../src/api-keys/format.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { configureTestcontainers, dockerReachable } from '../helpers/docker.js';
import { rawRequest } from '../helpers/http-server.js';
import { ROOT } from '../helpers/paths.js';
import { freePort } from '../helpers/proxy-process.js';

configureTestcontainers();
const reachable = dockerReachable();
const run = promisify(execFile);

describe.runIf(reachable)('docs/proxy.md: the proxy cloned in front of server-everything with docker run', () => {
  const id = randomBytes(4).toString('hex');
  const names = {
    image: `signet-clone-proxy-${id}`,
    proxy: `signet-clone-proxy-${id}`,
    server: `signet-clone-server-${id}`,
    network: `signet-clone-${id}`,
  };
  afterAll(async () => {
    for (const args of [
      ['rm', '-f', names.proxy, names.server],
      ['network', 'rm', names.network],
      ['image', 'rm', '-f', names.image],
    ])
      await run('docker', args).catch(() => undefined);
  }, 120_000);

  it('serves the official SDK client through the proxy with the key the image made, and refuses it without', async () => {
    const port = await freePort();
    await run('docker', ['network', 'create', names.network]);
    // The MCP server, from its npm package (the project's node_modules, read-only), on port 3001.
    await run('docker', [
      'run',
      '-d',
      '--name',
      names.server,
      '--network',
      names.network,
      '--network-alias',
      'my-mcp-server',
      '-v',
      `${ROOT}/node_modules:/app/node_modules:ro`,
      '-e',
      'PORT=3001',
      'node:24-trixie-slim',
      'node',
      '/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
      'streamableHttp',
    ]); // prettier-ignore
    const recipe = `${docRecipe('proxy.md', 'clone-proxy')
      .replaceAll('my-mcp-proxy', names.image)
      .replace(`--name ${names.image}`, `--name ${names.proxy}`)
      .replaceAll('--network mcp', `--network ${names.network}`)
      .replace('docker network create mcp', `docker network create ${names.network}`)
      .replace('127.0.0.1:8080:8080', `127.0.0.1:${port}:8080`)}\necho "KEY=$KEY"`;
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', recipe], {
      cwd: ROOT,
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const key = /KEY=(\S+)/.exec(stdout)![1]!;
    expect(checkApiKeyFormat(key)).toMatchObject({ ok: true });
    const url = `http://127.0.0.1:${port}/mcp`;
    // nginx is up once it answers; the server it fronts answers through it.
    let client: Client | null = null;
    for (let i = 0; i < 100 && !client; i++) {
      const c = new Client({ name: 'clone', version: '1' });
      try {
        await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
        client = c;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (client === null) {
      const logs = async (c: string) =>
        (
          await run('docker', ['logs', c]).then(
            (r) => r.stdout + r.stderr,
            (e) => String(e),
          )
        ).slice(-3000);
      throw new Error(`no MCP session through the proxy\n--- proxy\n${await logs(names.proxy)}\n--- server\n${await logs(names.server)}`);
    }
    const echoed = await client!.callTool({ name: 'echo', arguments: { message: 'cloned' } });
    expect((echoed.content as { text: string }[])[0]!.text).toBe('Echo: cloned');
    await client!.close();
    const refused = await rawRequest(url, { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
  }, 900_000);
});
