// Operating the compose stack as docs/operations.md says: the metrics command works in the image,
// and a backup taken from a running stack, restored onto a fresh one (another project: new volumes,
// new secrets) after `down -v` of the first, gives back the same signing key and the same API keys:
// an answer signed before verifies against the trust file exported before, and the old key calls
// the new stack. Every step is the documented recipe, run as written.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StartedDockerComposeEnvironment } from 'testcontainers';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyOutput } from '../../src/signing/verify.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import {
  configureTestcontainers,
  dockerReachable,
  dockerRequired,
  removeComposeProject,
  signetCompose,
  testSubnet,
} from '../helpers/docker.js';
import { rawRequest, rpc } from '../helpers/http-server.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

configureTestcontainers();
const reachable = dockerReachable();

describe('Docker engine', () => {
  it.runIf(dockerRequired)('is reachable (SIGNET_REQUIRE_DOCKER=1)', () => expect(reachable).toBe(true));
});

describe.runIf(reachable)('backup and restore of the compose stack (docs/operations.md)', () => {
  const run = randomBytes(4).toString('hex');
  const first = `signet-backup-${run}`;
  const second = `signet-restore-${run}`;
  const started: StartedDockerComposeEnvironment[] = [];
  const dir = tempDir('signet-backup-');
  // Each project's settings, the same for its `up` and the recipes run against it (as an .env would be).
  const settings: Record<string, Record<string, string>> = Object.fromEntries(
    [first, second].map((p) => [
      p,
      { SIGNET_PORT: '0', SIGNET_API_KEY: '', SIGNET_BACKEND_SUBNET: testSubnet(), SIGNET_ALLOWED_ORIGINS: '' },
    ]),
  );
  const up = async (project: string) => {
    const env = await signetCompose('docker-compose.yml', project, settings[project]!).up();
    started.push(env);
    return { env, url: `http://127.0.0.1:${env.getContainer('proxy-1').getMappedPort(8080)}/mcp` };
  };
  /** A recipe as the operator runs it, in a folder of their own, against one project. */
  const recipe = (script: string, project: string) => {
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: dir,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '/tmp',
        ...settings[project],
        COMPOSE_FILE: join(ROOT, 'docker-compose.yml'),
        COMPOSE_PROJECT_NAME: project,
      },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`recipe failed (${r.status}):\n${script}\n${r.stderr}`);
    return r.stdout;
  };
  const call = async (url: string, key: string) => {
    const r = await rawRequest(url, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: rpc('tools/call', { name: 'doctrine_get', arguments: { id: 'AUTH-001' } }),
    });
    expect(r.status).toBe(200);
    return r.json() as Record<string, unknown>;
  };
  const verify = (answer: string, trust: string) => {
    writeFileSync(join(dir, 'answer.json'), answer);
    writeFileSync(join(dir, 'signet-trust.json'), trust);
    return spawnSync(process.execPath, [CLI, 'verify', '--trust', 'signet-trust.json', 'answer.json'], { cwd: dir, encoding: 'utf8' });
  };

  afterAll(async () => {
    for (const env of started) await env.down({ removeVolumes: true, timeout: 10_000 }).catch(() => undefined);
    for (const p of [first, second]) await removeComposeProject(p);
  }, 120_000);

  it('the metrics command works in the image; a restored stack signs with the same key and takes the same API keys', async () => {
    const a = await up(first);
    const key = recipe('docker compose run --rm --no-deps -T keys create --name backup-test', first).trim();
    const answer = JSON.stringify(await call(a.url, key));
    const trust = recipe('docker compose run --rm --no-deps -T signet trust export', first);
    expect(verify(answer, trust).status).toBe(0);

    // Metrics, read as documented: the call above is counted.
    const metrics = recipe(docRecipe('operations.md', 'metrics'), first);
    expect(metrics).toMatch(/^signet_tool_calls_total\{tool="doctrine_get",outcome="ok",cached="(true|false)"\} [1-9]/m);
    expect(metrics).toMatch(/^signet_signatures_total [1-9]/m);

    // Back up the running stack, then lose it, volumes and all.
    recipe(docRecipe('operations.md', 'backup'), first);
    await started.pop()!.down({ removeVolumes: true, timeout: 10_000 });

    // Restore onto a fresh project before its first start; its `up` is the suite's, which waits for health.
    const restore = docRecipe('operations.md', 'restore');
    expect(restore.trimEnd().split('\n').at(-1)).toBe('docker compose up -d');
    recipe(restore.trimEnd().split('\n').slice(0, -1).join('\n'), second);
    const b = await up(second);

    // The same signing key: the old answer verifies against the old trust file, the new trust file is the same.
    expect(recipe('docker compose run --rm --no-deps -T signet trust export', second)).toBe(trust);
    const before = verify(answer, trust);
    expect(before.stdout).toMatch(/^trusted: doctrine_get signed by "signet-\S+" /);
    expect(before.status).toBe(0);
    // The same API keys: the key from before calls the new stack, and its answer verifies with the old pin.
    const after = await call(b.url, key);
    expect(verify(JSON.stringify(after), trust).status).toBe(0);
    expect(verifyOutput(after).signer?.public_key).toBe(verifyOutput(answer).signer?.public_key);
  }, 900_000);
});
