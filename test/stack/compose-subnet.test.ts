// The backend subnet overlap (issue 28, the edge's ops papercuts): when another network holds
// SIGNET_BACKEND_SUBNET, `docker compose up` stops before anything starts, with Docker's own
// words. docs/operations.md ("Troubleshooting") quotes them so a person can find the fix by
// searching for what they see: this checks the engine still says exactly that, for this file.
// No image is built or run: the networks come first.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { docker, dockerReachable, removeComposeProject, run, testSubnet } from '../helpers/docker.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

describe.runIf(dockerReachable())('compose: a backend subnet that another network holds', () => {
  const project = `signet-subnet-${randomBytes(4).toString('hex')}`;
  const other = `signet-subnet-other-${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await removeComposeProject(project);
    await docker('network', 'rm', other).catch(() => undefined);
  });

  it('fails `up` with the message docs/operations.md quotes, and the fix it gives works', async () => {
    const subnet = testSubnet();
    await docker('network', 'create', '--subnet', subnet, other);
    const dir = tempDir('signet-subnet-');
    writeFileSync(join(dir, '.env'), `SIGNET_BACKEND_SUBNET=${subnet}\n`);
    const create = (envFile: string) =>
      run(
        'docker',
        ['compose', '-p', project, '--env-file', envFile, '-f', 'docker-compose.yml', 'create', '--no-build', '--pull', 'never'],
        {
          cwd: ROOT,
          timeout: 120_000,
        },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
      );
    const failed = await create(join(dir, '.env'));
    expect(failed.code).not.toBe(0);
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const quoted = /```text\n(failed to create network signet_backend: [^\n]+)\n```/.exec(docs)?.[1];
    expect(quoted, 'docs/operations.md quotes the error in a text block').toBeDefined();
    // The project is named signet in the docs (docker-compose.yml's name), this test's own here.
    expect(failed.stderr).toContain(quoted!.replace('signet_backend', `${project}_backend`));
    // The fix: another /24 in .env. The networks are then created (the images are not there:
    // --no-build fails later, on the first service, which is past what this checks).
    writeFileSync(join(dir, '.env'), `SIGNET_BACKEND_SUBNET=${testSubnet()}\n`);
    const fixed = await create(join(dir, '.env'));
    expect(fixed.stderr).not.toContain('Pool overlaps');
    expect(await docker('network', 'ls', '--filter', `name=${project}_backend`, '--format', '{{.Name}}')).toContain(`${project}_backend`);
  }, 180_000);
});
