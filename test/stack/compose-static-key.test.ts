// The compose stack with one static key (.env's SIGNET_API_KEY, issue 26 H1 leftover): the
// proxy compares it, and it reaches the proxy only as a file (SIGNET_API_KEY_FILE, written by the
// proxy-auth one-shot for the proxy's group), never a running process's environment; a host
// account with the stack's uids reads it nowhere.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { StartedDockerComposeEnvironment } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { configureTestcontainers, docker, dockerReachable, removeComposeProject, signetCompose, testSubnet } from '../helpers/docker.js';
import { rawRequest, rpc } from '../helpers/http-server.js';
import { defineHostAccountSuite } from './host-account-suite.js';

configureTestcontainers();

const project = `signet-static-${randomBytes(4).toString('hex')}`;
const key = newApiKey();

describe.runIf(dockerReachable())('compose stack with a static key (SIGNET_API_KEY in .env)', () => {
  let stack: StartedDockerComposeEnvironment;
  let baseUrl = '';
  const post = (credential: string) =>
    rawRequest(`${baseUrl}/mcp`, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: rpc('tools/call', { name: 'doctrine_info', arguments: {} }),
    });

  beforeAll(async () => {
    stack = await signetCompose('docker-compose.yml', project, {
      SIGNET_PORT: '0',
      SIGNET_API_KEY: key,
      SIGNET_BACKEND_SUBNET: testSubnet(),
    }).up();
    baseUrl = `http://127.0.0.1:${stack.getContainer('proxy-1').getMappedPort(8080)}`;
  }, 900_000);
  afterAll(async () => {
    if (stack) await stack.down({ removeVolumes: true, timeout: 10_000 });
    else await removeComposeProject(project);
  }, 120_000);

  it('serves the key, refuses another, and holds it in no running process environment', async () => {
    const ok = await post(key);
    expect(ok.status).toBe(200);
    expect(ok.json().result.structuredContent.footer.output_signature).toMatch(/^ed25519:/);
    expect((await post(newApiKey())).status).toBe(401);
    const running = (await docker('ps', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}'))
      .trim()
      .split('\n');
    expect(running.sort()).toEqual([`${project}-auth-1`, `${project}-proxy-1`, `${project}-signet-1`]);
    for (const container of running) {
      // What `docker inspect` shows of its configuration, and each process's environment as the host reads it.
      expect(await docker('inspect', '--format', '{{json .Config.Env}}', container), container).not.toContain(key);
      const pids = (await docker('top', container, '-eo', 'pid'))
        .split('\n')
        .slice(1)
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0);
      for (const pid of pids) {
        let environ = '';
        try {
          environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
        } catch {
          continue; // ended meanwhile
        }
        expect(environ, `${container} pid ${pid}`).not.toContain(key);
      }
    }
  });

  defineHostAccountSuite('compose stack, static key', async () => ({
    project,
    secrets: [
      { label: 'static API key (file)', service: 'proxy', path: '/run/proxy-auth/api-key' },
      { label: 'static API key (rendered)', service: 'proxy', path: '/tmp/nginx/auth.conf' },
      { label: 'proxy secret', service: 'proxy', path: '/run/proxy-auth/secret' },
      { label: 'signing key', service: 'signet', path: '/data/signing-key.pem' },
    ],
  }));
});
