// Any `signet` command under a Node.js the CLI does not support says which version it needs and
// exits 1, instead of a SyntaxError or a bare "Connection closed" in an MCP client
// (src/cli/start.ts). The machine's own Node (20 on this kind of machine) is the old one.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const OLD_NODE = process.env['SIGNET_TEST_OLD_NODE'] ?? '/usr/bin/node';
const range = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe('the Node.js version guard', () => {
  const version = execFileSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).trim();

  it('runs against a Node older than package.json engines.node', () => {
    const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
    const [, wantMajor, wantMinor] = /^>=(\d+)\.(\d+)$/.exec(range)!.map(Number) as [number, number, number];
    expect(major < wantMajor || (major === wantMajor && minor < wantMinor), `${OLD_NODE} is ${version}: set SIGNET_TEST_OLD_NODE`).toBe(
      true,
    );
  });

  it.each([[['--version']], [['serve']], [['verify', '--trust', 'x.json', 'answer.json']], [['trust', 'export']], [['keys', 'list']]])(
    'signet %j says which Node.js it needs and exits 1',
    (args) => {
      const dir = tempDir('signet-guard-');
      const r = spawnSync(OLD_NODE, [CLI, ...args], {
        cwd: dir,
        input: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
        env: { PATH: '/usr/bin:/bin', SIGNET_DATA_DIR: dir },
        encoding: 'utf8',
      });
      expect(r.stderr).toBe(
        `signet: needs Node.js ${range}, but this is Node.js ${version} (${OLD_NODE}).\n` +
          '  Put a newer Node.js first on PATH, or give your MCP client the absolute path of one as its "command"\n' +
          '  (docs/deployment.md#client-configuration).\n',
      );
      expect(r.stdout).toBe('');
      expect(r.status).toBe(1);
    },
  );

  it('an MCP client that starts it with an old node sees the closed connection, and the message on stderr', async () => {
    const transport = new StdioClientTransport({ command: OLD_NODE, args: [CLI], env: { PATH: '/usr/bin:/bin' }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    const client = new Client({ name: 'signet-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(/closed/i);
    await closed;
    expect(stderr).toContain(`signet: needs Node.js ${range}, but this is Node.js ${version}`);
  });
});
