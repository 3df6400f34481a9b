// The doctrine's container recipes against a real Docker engine: its Compose examples pass
// `docker compose config`, the hardened Compose service runs and the "checking a running
// container" recipe reads it back, and the stdio sandbox runs a real MCP server (Signet's
// bundle) that answers an MCP client while it can neither reach the network nor write.
// Only base images that exist here are used (node:24-trixie-slim); nothing is pulled.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { docker, dockerReachable, dockerRequired } from '../helpers/docker.js';
import { doctrineSnippets, runRecipe, snippet } from '../helpers/doctrine-snippets.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const reachable = dockerReachable();
const IMAGE = 'node:24-trixie-slim';

describe('Docker engine for the doctrine recipes', () => {
  it.runIf(dockerRequired)('is reachable (SIGNET_REQUIRE_DOCKER=1)', () => expect(reachable).toBe(true));
});

describe.runIf(reachable)("the doctrine's container examples, on Docker", () => {
  const project = `signet-doctrine-${randomBytes(4).toString('hex')}`;
  const dir = tempDir('signet-doctrine-docker-');
  afterAll(async () => {
    await docker('compose', '-p', project, '-f', join(dir, 'compose.yml'), 'down', '--volumes', '--timeout', '2').catch(() => undefined);
  });

  it('every Compose example passes docker compose config', () => {
    const examples = doctrineSnippets().filter((s) => s.lang === 'yaml' && s.attrs['kind'] === 'compose');
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const s of examples) {
      const work = join(dir, `config-${s.doc}-${s.line}`);
      mkdirSync(join(work, 'secrets'), { recursive: true });
      writeFileSync(join(work, 'secrets', 'signing.pem'), 'not a key\n');
      writeFileSync(join(work, 'compose.yml'), s.code);
      const config = () => execFileSync('docker', ['compose', '-f', join(work, 'compose.yml'), 'config', '-q'], { stdio: 'pipe' });
      expect(config, `${s.doc}:${s.line}`).not.toThrow();
    }
  });

  it('container-checks: the hardened Compose service of container-and-runtime-hardening, read back by the recipe', async () => {
    // The example's service as written; only its image (a registry digest) becomes the local
    // stand-in, which gets a command since it carries no server.
    const example = doctrineSnippets().find((s) => s.doc === 'container-and-runtime-hardening' && s.attrs['kind'] === 'compose')!;
    const code = example.code.replace(/image: \S+/, `image: ${IMAGE}\n    command: ["sleep", "600"]`);
    mkdirSync(join(dir, 'secrets'), { recursive: true });
    writeFileSync(join(dir, 'secrets', 'signing.pem'), 'not a key\n');
    writeFileSync(join(dir, 'compose.yml'), code);
    await docker('compose', '-p', project, '-f', join(dir, 'compose.yml'), 'up', '-d', '--wait');
    const r = runRecipe('container-checks', dir, { CONTAINER: `${project}-mcp-1` });
    expect(r.ok, r.out).toBe(true);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe('10001');
    expect(lines[1]).toBe('true [ALL] [no-new-privileges:true] false');
    expect(lines[2]).toBe('0');
    expect(r.out).toMatch(/^Seccomp:\s+2$/m);
    expect(r.out).toMatch(/^\s*0\s+\d+\s+\d+$/m); // a uid_map line: 0 0 4294967295 without a user namespace
    expect(r.out).not.toMatch(/0\.0\.0\.0:/); // nothing published
  }, 180_000);

  it('stdio-sandbox: an MCP client talks to Signet run by the recipe, which has no network and a read-only view', async () => {
    // The project directory the recipe mounts: Signet's bundle, its doctrine, and a signing key
    // readable by the sandbox's user (65534) only.
    const projectDir = tempDir('signet-sandbox-');
    chmodSync(projectDir, 0o755); // mkdtemp makes it 0700: the sandbox's user could not enter it
    cpSync(join(ROOT, 'dist', 'bundle'), join(projectDir, 'dist', 'bundle'), { recursive: true });
    cpSync(join(ROOT, 'doctrine'), join(projectDir, 'doctrine'), { recursive: true });
    writeFileSync(join(projectDir, 'package.json'), JSON.stringify({ type: 'module' }));
    execFileSync(process.execPath, [CLI, 'keygen', '--out', join(projectDir, 'key.pem')]);
    chownSync(join(projectDir, 'key.pem'), 65534, 65534);
    chmodSync(join(projectDir, 'key.pem'), 0o400);
    const env = { PROJECT_DIR: projectDir, SERVER_IMAGE: IMAGE };

    const transport = new StdioClientTransport({
      command: 'bash',
      args: [
        '-e',
        '-c',
        snippet('run', 'stdio-sandbox').code,
        'stdio-sandbox',
        'env',
        'SIGNET_SIGNING_KEY_FILE=/work/key.pem',
        'SIGNET_DATA_DIR=/work/no-data',
        'SIGNET_LOG_LEVEL=error',
        'node',
        '/work/dist/bundle/signet.js',
      ],
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('doctrine_evaluate');
      const result = await client.callTool({ name: 'doctrine_evaluate', arguments: { facts: { transport: { kind: 'stdio' } } } });
      expect((result.structuredContent as { ok: boolean }).ok).toBe(true);
    } finally {
      await client.close();
    }

    // The same sandbox, another command: no route out, nothing writable where the project is.
    const probe = runRecipe('stdio-sandbox', projectDir, env, [
      'sh',
      '-c',
      "node -e \"fetch('http://1.1.1.1/', { signal: AbortSignal.timeout(3000) })" +
        ".then(() => console.log('network: reachable'), () => console.log('network: none'))\"; " +
        'touch /work/written 2>/dev/null && echo "project: writable" || echo "project: read-only"; ' +
        'touch /written 2>/dev/null && echo "root: writable" || echo "root: read-only"; ' +
        // --cpus 1: a quota of one CPU period (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us).
        'echo "cpu: $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us)"; id -u',
    ]);
    expect(probe.ok, probe.out).toBe(true);
    expect(probe.out).toContain('network: none');
    expect(probe.out).toContain('project: read-only');
    expect(probe.out).toContain('root: read-only');
    expect(probe.out).toMatch(/^65534$/m);
    expect(probe.out).toMatch(/^cpu: 100000( 100000)?$/m);
  }, 180_000);
});
