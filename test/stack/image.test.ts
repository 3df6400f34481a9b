// The image as a product (docs/deployment.md#the-image): the release build recipe as written
// (under a name of this run's own, so concurrent runs on one engine never share tags) gives the
// documented tags and OCI labels; the run recipe serves MCP on stdio, exports its trust file
// and verifies a real answer with `docker run <image> verify`, exit codes as documented.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docRecipe } from '../helpers/doc-recipe.js';
import { docker, dockerReachable, dockerRequired } from '../helpers/docker.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
const reachable = dockerReachable();

describe('Docker engine', () => {
  it.runIf(dockerRequired)('is reachable (SIGNET_REQUIRE_DOCKER=1)', () => expect(reachable).toBe(true));
});

it("the Dockerfile's default SIGNET_VERSION is package.json's version", () => {
  expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(
    new RegExp(`^ARG SIGNET_VERSION=${pkg.version.replaceAll('.', '\\.')}$`, 'm'),
  );
});

describe.runIf(reachable)('the signet-mcp image', () => {
  const run = randomBytes(4).toString('hex');
  const image = `signet-mcp-test-${run}`;
  const volume = `signet-data-test-${run}`;
  const source = 'https://example.invalid/signet';
  const ours = (recipe: string) => recipe.replaceAll('signet-mcp', image).replaceAll('signet-data', volume);
  const [major, minor] = pkg.version.split('.');
  const tags = [pkg.version, `${major}.${minor}`, `${major}`, 'latest'];

  beforeAll(() => {
    const built = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', ours(docRecipe('deployment.md', 'image-build'))], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', SIGNET_SOURCE_URL: source },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (built.status !== 0) throw new Error(`image build failed:\n${built.stdout}\n${built.stderr}`);
  }, 900_000);

  afterAll(async () => {
    await docker('rmi', ...tags.map((t) => `${image}:${t}`)).catch(() => undefined);
    await docker('volume', 'rm', volume).catch(() => undefined);
  });

  it('carries the documented tags and OCI labels: version, revision, source, licenses', async () => {
    const ids = await Promise.all(tags.map(async (t) => (await docker('image', 'inspect', '--format', '{{.Id}}', `${image}:${t}`)).trim()));
    expect(new Set(ids).size).toBe(1);
    const labels = JSON.parse(await docker('image', 'inspect', '--format', '{{json .Config.Labels}}', `${image}:${pkg.version}`)) as Record<
      string,
      string
    >;
    expect(labels).toMatchObject({
      'org.opencontainers.image.title': 'signet-mcp',
      'org.opencontainers.image.version': pkg.version,
      'org.opencontainers.image.revision': execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
      'org.opencontainers.image.source': source,
      'org.opencontainers.image.licenses': pkg.license,
    });
    expect(labels['org.opencontainers.image.description']).toMatch(/signs every output with Ed25519/);
  });

  it('serves MCP on stdio, exports its trust file, and `docker run … verify` checks a real answer: 0, 1, 3', async () => {
    const [stdio, exportLine, verifyLine] = ours(docRecipe('deployment.md', 'image-run'))
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean) as [string, string, string];
    // 1. `docker run -i --rm -v VOLUME:/data IMAGE`, as an MCP client starts it.
    const [command, ...args] = stdio.split(' ') as [string, ...string[]];
    const client = new Client({ name: 'image-test', version: '1' });
    await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
    const answer = await client.callTool({ name: 'doctrine_get', arguments: { id: 'AUTH-001' } });
    await client.close();
    const dir = tempDir('signet-image-');
    chmodSync(dir, 0o755); // the image's user reads the mounted folder
    const genuine = JSON.stringify({ jsonrpc: '2.0', id: 1, result: answer });
    writeFileSync(join(dir, 'answer.json'), genuine);
    const sh = (script: string) => spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, encoding: 'utf8' });
    // 2. Its trust file, from the same volume (the same key).
    const exported = sh(exportLine);
    expect(exported.status, exported.stderr).toBe(0);
    // 3. Verified by the image itself.
    const trusted = sh(verifyLine);
    expect(trusted.stdout).toMatch(/^trusted: doctrine_get signed by "signet-\S+" SHA256:\S+ \(active\) over mcp-deployment-baseline /);
    expect(trusted.status).toBe(0);
    writeFileSync(join(dir, 'answer.json'), genuine.replaceAll('AUTH-001', 'AUTH-002'));
    const altered = sh(verifyLine);
    expect(altered.stderr).toMatch(/^invalid:\n {2}- output_hash_mismatch/);
    expect(altered.status).toBe(1);
    writeFileSync(join(dir, 'answer.json'), genuine);
    const unpinned = sh(verifyLine.replace('--trust signet-trust.json ', ''));
    expect(unpinned.stderr).toMatch(/^unpinned: /);
    expect(unpinned.status).toBe(3);
  }, 120_000);
});
