// The README's five-minute tour, run as written in a folder of the reader's own with Docker: the
// stack up and waited for, its first API key, a question over MCP through the proxy, the
// server's trust file, and the image's verifier checking the answer. Only the project name,
// the backend subnet and the published port are this test's own (other stacks may run on this
// engine): the proxy's address comes from `docker compose port` instead of 127.0.0.1:8080.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyOutput } from '../../src/signing/verify.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { configureTestcontainers, dockerReachable, dockerRequired, removeComposeProject, testSubnet } from '../helpers/docker.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

configureTestcontainers();
const reachable = dockerReachable();

describe('Docker engine', () => {
  it.runIf(dockerRequired)('is reachable (SIGNET_REQUIRE_DOCKER=1)', () => expect(reachable).toBe(true));
});

const tour = docRecipe('../README.md', 'tour');
const firstScreen = docRecipe('../README.md', 'first-screen');

describe.runIf(reachable)("the README's five-minute tour", () => {
  const project = `signet-tour-${randomBytes(4).toString('hex')}`;
  afterAll(() => removeComposeProject(project), 120_000);

  it('starts the stack the first screen starts, and its answer verifies against the exported trust file', () => {
    const up = tour.split('\n').find((l) => l.startsWith('docker compose up'));
    expect(up).toBe('docker compose up -d --wait');
    expect(firstScreen).toMatch(/^docker compose up -d --wait +#/m);
    expect(tour).toContain('http://127.0.0.1:8080/mcp');
    // The reader's folder, as a clone's root is: readable by the image's user for the verify mount.
    const dir = tempDir('signet-tour-');
    chmodSync(dir, 0o755);
    const script = tour.replaceAll('http://127.0.0.1:8080/', 'http://$(docker compose port proxy 8080)/');
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: dir,
      env: cleanEnv({
        COMPOSE_FILE: join(ROOT, 'docker-compose.yml'),
        COMPOSE_PROJECT_NAME: project,
        SIGNET_PORT: '0',
        SIGNET_BACKEND_SUBNET: testSubnet(),
      }),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    expect(r.status, r.stderr.slice(-4000)).toBe(0);
    expect(r.stdout).toMatch(/^trusted: doctrine_get signed by "signet-\S+" SHA256:\S+ \(active\) over mcp-deployment-baseline /m);
    // What the reader holds: the MCP answer for AUTH-001 and the trust file that pins its signer.
    const answer = readFileSync(join(dir, 'answer.json'), 'utf8');
    expect(JSON.parse(answer)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { ok: true } } });
    expect(answer).toContain('AUTH-001');
    const trust = JSON.parse(readFileSync(join(dir, 'signet-trust.json'), 'utf8'));
    expect(trust.keys.map((k: { public_key: string }) => k.public_key)).toContain(verifyOutput(answer).signer?.public_key);
  }, 900_000);
});
