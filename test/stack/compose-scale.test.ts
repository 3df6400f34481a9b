// The compose `scale` profile: three signet replicas behind the same proxy, sharing the
// rate limit through Redis. Runs whenever a Docker engine is reachable.
import { createHash, randomBytes } from 'node:crypto';
import { type StartedDockerComposeEnvironment, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureTestcontainers,
  docker,
  dockerReachable,
  removeComposeProject,
  run,
  signetCompose,
  testSubnet,
} from '../helpers/docker.js';
import { rawRequest, rpc } from '../helpers/http-server.js';
import { ROOT } from '../helpers/paths.js';
import { defineHostAccountSuite } from './host-account-suite.js';
import { requestLines } from './suite.js';

configureTestcontainers();

const project = `signet-scale-${randomBytes(4).toString('hex')}`;
// Pings in the availability loops are not what is measured here: give them room, at the server
// and at the proxy's per-key guard in front of it (600 a minute, burst 100, would answer the
// loops itself). The shared limit of 60 tools/call a key is the server's, as in production.
const env = {
  ...process.env,
  SIGNET_PORT: '0',
  SIGNET_API_KEY: '',
  SIGNET_BACKEND_SUBNET: testSubnet(),
  SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '100000',
  SIGNET_PROXY_REQUESTS_PER_MINUTE: '10000000',
  SIGNET_PROXY_REQUESTS_BURST: '1000000',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function compose(...args: string[]): Promise<string> {
  const r = await run('docker', ['compose', '-p', project, '-f', `${ROOT}docker-compose.yml`, '--profile', 'scale', ...args], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return r.stdout + r.stderr;
}

async function logsOf(container: string): Promise<string> {
  const r = await run('docker', ['logs', container], { maxBuffer: 64 * 1024 * 1024 });
  return r.stdout + r.stderr;
}

describe.runIf(dockerReachable())('compose scale profile: three replicas, one shared limit', () => {
  let stack: StartedDockerComposeEnvironment;
  let url = '';
  let key = '';
  const replicas = [1, 2, 3].map((i) => `${project}-signet-${i}`);

  const call = (id: number | string, method = 'tools/call') =>
    rawRequest(url, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body:
        method === 'tools/call'
          ? rpc('tools/call', { name: 'doctrine_get', arguments: { id: 'RATE-004' } }, id)
          : rpc(method, undefined, id),
    });

  const readyCount = async (c: string) =>
    (await logsOf(c)).split('\n').filter((l) => l.includes('rate limiter store (redis) ready')).length;

  beforeAll(async () => {
    stack = await signetCompose('docker-compose.yml', project, {
      SIGNET_PORT: env.SIGNET_PORT,
      SIGNET_API_KEY: '',
      SIGNET_BACKEND_SUBNET: env.SIGNET_BACKEND_SUBNET,
      SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: env.SIGNET_RATE_LIMIT_OTHER_PER_MINUTE,
      SIGNET_PROXY_REQUESTS_PER_MINUTE: env.SIGNET_PROXY_REQUESTS_PER_MINUTE,
      SIGNET_PROXY_REQUESTS_BURST: env.SIGNET_PROXY_REQUESTS_BURST,
    })
      .withProfiles('scale')
      .withWaitStrategy('redis-1', Wait.forHealthCheck())
      .up();
    await compose('up', '-d', '--no-recreate', '--scale', 'signet=3');
    for (const c of replicas) {
      for (let i = 0; i < 60; i++) {
        if ((await docker('inspect', '--format', '{{.State.Health.Status}}', c)).trim() === 'healthy') break;
        await sleep(1000);
      }
      for (let i = 0; i < 30 && (await readyCount(c)) < 1; i++) await sleep(500);
    }
    url = `http://127.0.0.1:${stack.getContainer('proxy-1').getMappedPort(8080)}/mcp`;
    key = (await stack.getContainer('auth-1').exec(['cat', '/keys/initial-api-key'])).output.trim();
    await sleep(6000); // the proxy re-resolves signet every 5 s: let it see all three
  }, 900_000);

  afterAll(async () => {
    if (stack) await stack.down({ removeVolumes: true, timeout: 10_000 });
    else await removeComposeProject(project);
  }, 120_000);

  it('keeps Redis to signet: its own network, a generated password that no log or configuration shows', async () => {
    const redis = `${project}-redis-1`;
    const proxy = `${project}-proxy-1`;
    const networks = async (c: string) => Object.keys(JSON.parse(await docker('inspect', c))[0].NetworkSettings.Networks).sort();
    expect(await networks(redis)).toEqual([`${project}_redis`]);
    for (const c of replicas) expect(await networks(c)).toEqual([`${project}_backend`, `${project}_redis`]);
    expect(await networks(proxy)).not.toContain(`${project}_redis`);
    // The proxy cannot even resolve Redis's name, let alone connect to it.
    await expect(docker('exec', proxy, 'getent', 'hosts', 'redis')).rejects.toThrow();
    // Zero configuration: generated on first start, 64 hex digits, readable by signet (owner)
    // alone; Redis (group) reads the ACL file with its SHA-256, never the password.
    const password = (await docker('exec', replicas[0]!, 'cat', '/run/redis-auth/password')).trim();
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    const files = ['/run/redis-auth', '/run/redis-auth/password', '/run/redis-auth/users.acl'];
    expect((await docker('exec', redis, 'stat', '-c', '%a %u %g', ...files)).trim().split('\n')).toEqual([
      '750 65520 65522',
      '400 65520 65522',
      '440 65520 65522',
    ]);
    await expect(docker('exec', redis, 'cat', '/run/redis-auth/password')).rejects.toThrow(/Permission denied/);
    const acl = await docker('exec', redis, 'cat', '/run/redis-auth/users.acl');
    expect(acl).toBe(`user default on #${createHash('sha256').update(password).digest('hex')} ~* &* +@all\n`);
    // Nothing without it; the wrong one is refused.
    expect(await docker('exec', redis, 'redis-cli', 'set', 'signet:calls:x', '1')).toMatch(/NOAUTH/);
    expect(await docker('exec', '-e', 'REDISCLI_AUTH=wrong', redis, 'redis-cli', 'ping')).toMatch(/WRONGPASS|NOAUTH/);
    expect((await docker('exec', '-e', `REDISCLI_AUTH=${password}`, redis, 'redis-cli', 'ping')).trim()).toBe('PONG');
    // Every replica authenticated (it says so once connected) and shares the limit.
    for (const c of replicas) expect(await readyCount(c), c).toBeGreaterThanOrEqual(1);
    // Never in a log of any container, nor in the configuration Docker holds for one.
    const containers = (await docker('ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}'))
      .trim()
      .split('\n');
    expect(containers.length).toBeGreaterThanOrEqual(6); // 3 signet, proxy, redis, the one-shots
    for (const c of containers) {
      expect(await logsOf(c), `${c} logs`).not.toContain(password);
      expect(await docker('inspect', c), `${c} configuration`).not.toContain(password);
    }
  });

  defineHostAccountSuite('compose scale profile', async () => ({
    project,
    secrets: [
      { label: 'Redis password', service: 'signet', path: '/run/redis-auth/password' },
      { label: 'Redis password', service: 'redis', path: '/run/redis-auth/password' },
    ],
  }));

  it('spreads 60 calls from one IP over the replicas, and answers the 61st with 429', async () => {
    const before = await Promise.all(replicas.map(async (c) => requestLines(await logsOf(c)).length));
    for (let i = 0; i < 60; i++) expect((await call(i)).status, `call ${i}`).toBe(200);
    const limited = await call(60);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await sleep(500);
    const after = await Promise.all(replicas.map(async (c) => requestLines(await logsOf(c)).length));
    const served = after.map((n, i) => n - before[i]!);
    expect(
      served.every((n) => n > 0),
      `requests per replica: ${served.join(', ')}`,
    ).toBe(true);
  });

  it('loses no request to a Redis outage (insurance limiters answer), and shares the limit again once Redis is back', async () => {
    const readyBefore = await Promise.all(replicas.map(readyCount));
    let running = true;
    const statuses: number[] = [];
    const loop = (async () => {
      for (let i = 0; running; i++) statuses.push((await call(`p${i}`, 'ping')).status);
    })();
    await sleep(300);
    await compose('stop', 'redis');
    await sleep(1500);
    const outage: number[] = [];
    for (let i = 0; i < 30; i++) outage.push((await call(`o${i}`)).status);
    await compose('start', 'redis');
    for (const [i, c] of replicas.entries()) {
      for (let n = 0; n < 120 && (await readyCount(c)) <= readyBefore[i]!; n++) await sleep(250);
    }
    running = false;
    await loop;
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(outage.filter((s) => s >= 500)).toEqual([]);
    expect(outage.filter((s) => s === 200).length).toBe(30);
    for (const c of replicas) expect(await logsOf(c)).toMatch(/rate limiter store \(redis\) unreachable/);
    // Redis came back empty: one shared budget of 60 again, across all three replicas.
    for (let i = 0; i < 60; i++) expect((await call(`r${i}`)).status, `call ${i}`).toBe(200);
    expect((await call('r60')).status).toBe(429);
  });

  // Pen test M4 (issue 26): a Redis that goes silent (paused, or its packets dropped) made every
  // call wait 60 s for the proxy's 503 while signet logged nothing. Each case: every call is
  // answered, each replica says so in its log and its /readyz, and Redis is shared again after.
  const readyz = async (c: string) =>
    JSON.parse(
      await docker('exec', c, 'node', '-e', "fetch('http://127.0.0.1:3000/readyz').then(r=>r.text()).then(t=>process.stdout.write(t))"),
    ) as { status: string; limiter_store: string };
  const silentLines = async (c: string) => (await logsOf(c)).split('\n').filter((l) => l.includes('no answer within 200 ms')).length;
  /** Redis's network namespace, entered from the host: iptables there drops what reaches Redis and tells no one. */
  const dropRedis = async (flag: '-I' | '-D') => {
    const pid = (await docker('inspect', '--format', '{{.State.Pid}}', `${project}-redis-1`)).trim();
    await run('nsenter', ['-t', pid, '-n', 'iptables', flag, 'INPUT', '-p', 'tcp', '--dport', '6379', '-j', 'DROP']);
  };
  for (const [how, silence, speak] of [
    ['paused (docker pause)', () => docker('pause', `${project}-redis-1`), () => docker('unpause', `${project}-redis-1`)],
    ['with its packets dropped (iptables in its namespace)', () => dropRedis('-I'), () => dropRedis('-D')],
  ] as const) {
    it(`M4: a Redis ${how} costs no call: the insurance limiters answer, logs and /readyz say so, Redis is shared again after`, async () => {
      for (const c of replicas) expect(await readyz(c)).toMatchObject({ status: 'ready', limiter_store: 'redis' });
      const readyBefore = await Promise.all(replicas.map(readyCount));
      const silentBefore = await Promise.all(replicas.map(silentLines));
      await silence();
      const statuses: number[] = [];
      try {
        // Thirty one after another, spread by the proxy over the replicas; a hang fails the test
        // at its timeout, as the pen test's 60 s waits would.
        for (let i = 0; i < 30; i++) statuses.push((await call(`${how}-${i}`, 'ping')).status);
        for (const [i, c] of replicas.entries()) {
          for (let n = 0; n < 40 && (await silentLines(c)) <= silentBefore[i]!; n++) await sleep(250);
          expect(await silentLines(c), c).toBeGreaterThan(silentBefore[i]!);
          expect(await readyz(c)).toMatchObject({ status: 'ready', limiter_store: 'redis_unreachable' });
        }
      } finally {
        await speak();
      }
      expect(statuses).toEqual(Array(30).fill(200));
      for (const [i, c] of replicas.entries()) {
        for (let n = 0; n < 120 && (await readyCount(c)) <= readyBefore[i]!; n++) await sleep(250);
        expect(await readyz(c)).toMatchObject({ status: 'ready', limiter_store: 'redis' });
      }
      const after: number[] = [];
      for (let i = 0; i < 30; i++) after.push((await call(`${how}-after-${i}`, 'ping')).status);
      expect(after).toEqual(Array(30).fill(200));
    }, 180_000);
  }

  it('routes around a killed replica: at most a few errors, all well-formed JSON', async () => {
    const results: { status: number; body: string }[] = [];
    let running = true;
    const loop = (async () => {
      for (let i = 0; running; i++) {
        const r = await call(`k${i}`, 'ping').catch((err: Error) => ({ status: 0, body: err.message }));
        results.push({ status: r.status, body: r.body });
      }
    })();
    await sleep(500);
    await docker('kill', replicas[2]!);
    await sleep(8000);
    running = false;
    await loop;
    const failures = results.filter((r) => r.status !== 200);
    expect(results.length).toBeGreaterThan(50);
    expect(failures.length, JSON.stringify(failures.slice(0, 3))).toBeLessThanOrEqual(5);
    for (const f of failures) {
      expect(f.status).toBe(503);
      expect(JSON.parse(f.body)).toMatchObject({ error: 'unavailable' });
    }
    expect(results.slice(-10).every((r) => r.status === 200)).toBe(true);
  });
});
