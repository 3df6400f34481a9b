// OAuth for a person on a laptop (issue 28): the recipe of docs/oauth.md, "On a laptop", run as
// written, with a development identity provider Signet did not write (oauth2-mock-server, built
// from its npm package by deploy/compose.oauth-laptop.yml). The project name, the ports and the
// .env file are this test's own (other stacks may run on this engine), and a configuration the
// proxy refuses fails `docker compose up`, where it used to restart the proxy in a loop.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { docRecipe } from '../helpers/doc-recipe.js';
import { configureTestcontainers, dockerReachable, removeComposeProject, testSubnet } from '../helpers/docker.js';
import { ROOT } from '../helpers/paths.js';
import { freePort } from '../helpers/proxy-process.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

configureTestcontainers();
const reachable = dockerReachable();
const bash = promisify(execFile);

/** Runs `docker ARGS` (a followed log) until its output matches, or 60 s pass; returns the output. */
function followUntil(args: string[], pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('docker', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const done = () => {
      clearTimeout(timer);
      child.kill();
      resolve(out);
    };
    const timer = setTimeout(done, 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (pattern.test(out)) done();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', done);
  });
}

describe.runIf(reachable)('OAuth on a laptop (docs/oauth.md), with oauth2-mock-server as the identity provider', () => {
  const project = `signet-laptop-${randomBytes(4).toString('hex')}`;
  const refused = `signet-refused-${randomBytes(4).toString('hex')}`;
  const refusedAuth = `signet-refused-auth-${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await removeComposeProject(project);
    await removeComposeProject(refused);
    await removeComposeProject(refusedAuth);
  }, 120_000);

  it('serves a token of the provider through the proxy, as the recipe runs it', async () => {
    const port = await freePort();
    const idpPort = await freePort();
    const dir = tempDir('signet-laptop-');
    // The recipe, with this test's ports, project and .env file (never the repository's own).
    const recipe = docRecipe('oauth.md', 'oauth-laptop')
      .replaceAll('localhost:9400', `localhost:${idpPort}`)
      .replaceAll('localhost:8080', `localhost:${port}`)
      .replace('>> .env', `>> ${join(dir, '.env')}`)
      .replaceAll('docker compose ', `docker compose -p ${project} --env-file ${join(dir, '.env')} `);
    writeFileSync(join(dir, '.env'), `SIGNET_PORT=${port}\nSIGNET_IDP_PORT=${idpPort}\nSIGNET_BACKEND_SUBNET=${testSubnet()}\n`);
    const { stdout } = await bash('bash', ['-e', '-o', 'pipefail', '-c', recipe], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 900_000,
    });
    // The recipe's last command prints the JSON-RPC answer (after whatever the others print).
    // The last line (the builds before it print to stdout too).
    const line = stdout.trim().split('\n').at(-1);
    expect(line, stdout).toBeDefined();
    let answer: { result: { structuredContent: { footer: Record<string, string> } } };
    try {
      answer = JSON.parse(line!.slice(line!.indexOf('{')));
    } catch {
      throw new Error(`not one JSON-RPC answer: ${stdout}`);
    }
    expect(answer.result.structuredContent.footer['doctrine_signature']).toMatch(/^ed25519:/);
    // The auth check took the provider's token as the client's principal.
    // Signet writes request lines in batches (100 ms) and Docker's log driver adds its own delay:
    // follow the log until the line comes, rather than read it once right after the answer.
    const logs = await followUntil(['compose', '-p', project, 'logs', '--follow', '--no-log-prefix', 'signet'], /"oauth_sub":"me"/);
    expect(logs).toMatch(/"oauth_sub":"me"/);
  }, 900_000);

  /** `docker compose up -d --wait` of the OAuth overlay with these .env lines: its exit code and stderr. */
  const upWith = async (name: string, lines: string[]) => {
    const dir = tempDir('signet-refused-');
    writeFileSync(join(dir, '.env'), [`SIGNET_PORT=${await freePort()}`, `SIGNET_BACKEND_SUBNET=${testSubnet()}`, ...lines, ''].join('\n'));
    const files = ['-f', 'docker-compose.yml', '-f', 'deploy/compose.oauth.yml'];
    return bash('docker', ['compose', '-p', name, '--env-file', join(dir, '.env'), ...files, 'up', '-d', '--wait'], {
      cwd: ROOT,
      timeout: 900_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code ?? 1, stderr: e.stderr ?? '' }),
    );
  };
  const states = async (name: string) =>
    (await bash('docker', ['compose', '-p', name, 'ps', '-a', '--format', '{{.Service}} {{.State}}'], { cwd: ROOT })).stdout;

  it('fails `docker compose up` on a refused configuration instead of restarting the proxy in a loop', async () => {
    // host.docker.internal over plain HTTP: what a laptop user tried first.
    const up = await upWith(refused, [
      'SIGNET_OAUTH_ISSUER=http://host.docker.internal:9400',
      'SIGNET_OAUTH_RESOURCE=http://localhost:8080/mcp',
    ]);
    expect(up.code).not.toBe(0);
    expect(up.stderr).toMatch(/proxy-config|auth-config/);
    const config = (await bash('docker', ['compose', '-p', refused, 'logs', 'proxy-config'], { cwd: ROOT })).stdout;
    expect(config).toMatch(/refusing to start: SIGNET_OAUTH_ISSUER must be an https:\/\/ URL/);
    // The proxy never started, so nothing restarts.
    const ps = await states(refused);
    expect(ps).not.toMatch(/^proxy running/m);
    expect(ps).not.toMatch(/^proxy restarting/m);
  }, 900_000);

  it('fails `docker compose up` on a setting only the auth check refuses, with its message, and the auth check never starts', async () => {
    // The proxy has nothing to say about the algorithms; the auth check refuses a symmetric one.
    const up = await upWith(refusedAuth, [
      'SIGNET_OAUTH_ISSUER=https://idp.example.org',
      'SIGNET_OAUTH_RESOURCE=http://localhost:8080/mcp',
      'SIGNET_OAUTH_ALGORITHMS=HS256',
    ]);
    expect(up.code).not.toBe(0);
    expect(up.stderr).toMatch(/auth-config/);
    const config = (await bash('docker', ['compose', '-p', refusedAuth, 'logs', 'auth-config'], { cwd: ROOT })).stdout;
    expect(config).toMatch(/SIGNET_OAUTH_ALGORITHMS/);
    const ps = await states(refusedAuth);
    expect(ps).toMatch(/^auth-config exited/m);
    expect(ps).not.toMatch(/^auth (running|restarting)/m);
    expect(ps).not.toMatch(/^proxy (running|restarting)/m);
  }, 900_000);
});
