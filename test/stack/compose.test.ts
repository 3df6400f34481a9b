// Target 2: the compose stack, the project's own docker-compose.yml built and started by
// testcontainers. Runs whenever a Docker engine is reachable; with SIGNET_REQUIRE_DOCKER=1
// a missing engine fails the run.
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StartedDockerComposeEnvironment } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApiKeyFormat } from '../../src/api-keys/format.js';
import { Signer } from '../../src/signing/signer.js';
import { verifyOutput } from '../../src/signing/verify.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import {
  configureTestcontainers,
  docker,
  dockerReachable,
  dockerRequired,
  removeComposeProject,
  run,
  signetCompose,
  testSubnet,
} from '../helpers/docker.js';
import { rawRequest, rpc } from '../helpers/http-server.js';
import { CLI, FACTS, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { ALLOWED_HOST, defineBrowserSuite, startPageServer } from './browser-suite.js';
import { defineFloodSuite } from './flood-suite.js';
import { defineHostAccountSuite } from './host-account-suite.js';
import { defineKeyLifecycleSuite } from './keys-suite.js';
import { defineProbeSuite } from './probe-suite.js';
import { defineSlowlorisSuite } from './slowloris-suite.js';
import { defineStackSuite, type StackTarget } from './suite.js';

configureTestcontainers();

const reachable = dockerReachable();

describe('Docker engine', () => {
  it.runIf(dockerRequired)('is reachable (SIGNET_REQUIRE_DOCKER=1)', () => {
    expect(reachable, 'SIGNET_REQUIRE_DOCKER=1 but no Docker engine answers `docker info`').toBe(true);
  });
});

const project = `signet-test-${randomBytes(4).toString('hex')}`;
let env: StartedDockerComposeEnvironment | null = null;

async function up(): Promise<StartedDockerComposeEnvironment> {
  if (env) return env;
  // Browser pages get their origin before the stack starts: both services read SIGNET_ALLOWED_ORIGINS.
  pages ??= await startPageServer();
  composeEnv.SIGNET_ALLOWED_ORIGINS = `http://${ALLOWED_HOST}:${pages.port}`;
  env = await signetCompose('docker-compose.yml', project, {
    SIGNET_PORT: composeEnv.SIGNET_PORT,
    SIGNET_API_KEY: '',
    SIGNET_BACKEND_SUBNET: composeEnv.SIGNET_BACKEND_SUBNET,
    SIGNET_ALLOWED_ORIGINS: composeEnv.SIGNET_ALLOWED_ORIGINS,
    ...SUITE_AUTH_FAILURES,
  }).up();
  return env;
}

async function allLogs(service: string): Promise<string> {
  // docker logs writes the container's stderr to our stderr: collect both.
  const r = await run('docker', ['logs', `${project}-${service}-1`], { maxBuffer: 64 * 1024 * 1024 });
  return r.stdout + r.stderr;
}

async function mintedKey(): Promise<string> {
  const e = await up();
  const result = await e.getContainer('auth-1').exec(['cat', '/keys/initial-api-key']);
  return result.output.trim();
}

/** The stack suite refuses many keys on purpose: room for them (the defaults are tested on the process stack). */
const SUITE_AUTH_FAILURES = { SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '600', SIGNET_PROXY_AUTH_FAILURES_BURST: '100' };
const composeEnv = {
  ...process.env,
  SIGNET_PORT: '0',
  SIGNET_API_KEY: '',
  SIGNET_BACKEND_SUBNET: testSubnet(),
  SIGNET_ALLOWED_ORIGINS: '',
  ...SUITE_AUTH_FAILURES,
};
let pages: Awaited<ReturnType<typeof startPageServer>> | null = null;

/** `docker compose run --rm keys ...`: the documented way to manage keys in the stack. */
async function composeKeys(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  try {
    const r = await run(
      'docker',
      ['compose', '-p', project, '-f', `${ROOT}docker-compose.yml`, 'run', '--rm', '-T', '--no-deps', 'keys', ...args],
      { env: composeEnv },
    );
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

/** Replaces the store file in the keys volume, as its owner (the proxy's uid, 65521), atomically. */
async function writeStore(content: string): Promise<void> {
  const { execFile } = await import('node:child_process');
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      'docker',
      [
        'run',
        '--rm',
        '-i',
        '--user',
        '65521:65521',
        '-v',
        `${project}_signet-keys:/keys`,
        '--entrypoint',
        'sh',
        `${project}-keys`,
        '-c',
        'cat > /keys/.keys.json.test && mv /keys/.keys.json.test /keys/keys.json',
      ],
      (err) => (err ? reject(err) : resolve()),
    );
    child.stdin!.end(content);
  });
}

async function waitHealthy(container: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const health = (await docker('inspect', '--format', '{{.State.Health.Status}}', container)).trim();
    if (health === 'healthy') return;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe.runIf(reachable)('compose stack', () => {
  let target: StackTarget;
  let baseUrl = '';

  beforeAll(async () => {
    const e = await up();
    baseUrl = `http://127.0.0.1:${e.getContainer('proxy-1').getMappedPort(8080)}`;
    target = {
      baseUrl,
      key: await mintedKey(),
      expectedClientIp: (
        await docker('network', 'inspect', `${project}_frontend`, '--format', '{{(index .IPAM.Config 0).Gateway}}')
      ).trim(),
      // The host reaches signet's backend address through the network's gateway (the pen test's H1).
      directUrl: `http://${JSON.parse(await docker('inspect', `${project}-signet-1`))[0].NetworkSettings.Networks[`${project}_backend`].IPAddress}:3000/mcp`,
      // Key-store mode, and SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE=60 by default in compose.
      perKeyLimit: true,
      authFailureBurst: Number(SUITE_AUTH_FAILURES.SIGNET_PROXY_AUTH_FAILURES_BURST),
      serverLogs: () => allLogs('signet'),
      proxyLogs: async () => (await allLogs('proxy')) + (await allLogs('auth')),
      stop: async () => {},
    };
  }, 900_000);

  afterAll(async () => {
    if (env) await env.down({ removeVolumes: true, timeout: 10_000 });
    else await removeComposeProject(project);
    await pages?.close();
  }, 120_000);

  // First: the stack suite below spends this client's tools/call budget for the minute.
  defineBrowserSuite('compose stack', async () => ({
    baseUrl,
    key: await mintedKey(),
    pagePort: pages!.port,
    trustFile: async () =>
      (
        await run(
          'docker',
          ['compose', '-p', project, '-f', `${ROOT}docker-compose.yml`, 'run', '--rm', '-T', '--no-deps', 'signet', 'trust', 'export'],
          { env: composeEnv },
        )
      ).stdout,
    stop: async () => {},
  }));

  // Before the stack suite too: the probe's few tools/call must not meet a spent budget.
  defineProbeSuite('compose stack', async () => ({ url: `${baseUrl}/mcp`, key: target.key }));

  defineStackSuite('compose stack', async () => target);

  defineKeyLifecycleSuite('compose stack', async () => ({
    baseUrl,
    keys: composeKeys,
    readStore: async () => (await (await up()).getContainer('auth-1').exec(['cat', '/keys/keys.json'])).output,
    writeStore,
    serverLogs: () => allLogs('signet'),
    // The proxy side: nginx and its auth check.
    proxyLogs: async () => (await allLogs('proxy')) + (await allLogs('auth')),
    stop: async () => {},
  }));

  defineHostAccountSuite('compose stack', async () => ({
    project,
    directUrl: target.directUrl,
    secrets: [
      { label: 'proxy secret', service: 'signet', path: '/run/proxy-auth/secret' },
      { label: 'proxy secret', service: 'proxy', path: '/run/proxy-auth/secret' },
      { label: 'signing key', service: 'signet', path: '/data/signing-key.pem' },
      { label: 'proxy secret', service: 'auth', path: '/run/proxy-auth/secret' },
      { label: 'first API key', service: 'auth', path: '/keys/initial-api-key' },
      { label: 'API key store', service: 'auth', path: '/keys/keys.json' },
      { label: "the proxy's secret in its configuration", service: 'proxy', path: '/tmp/nginx/proxy-secret.conf' },
      { label: "the proxy's configuration", service: 'proxy', path: '/tmp/nginx/nginx.conf' },
    ],
    evaluation: async () => {
      const created = await composeKeys(['create', '--name', 'h1-host-account']);
      expect(created.code, created.err).toBe(0);
      const r = await rawRequest(`${baseUrl}/mcp`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${created.out.trim()}` },
        body: rpc('tools/call', { name: 'doctrine_evaluate', arguments: { facts: JSON.parse(readFileSync(FACTS('exposed'), 'utf8')) } }),
      });
      expect(r.status).toBe(200);
      return r.json().result as Record<string, unknown>;
    },
    trustFile: async () =>
      (
        await run(
          'docker',
          ['compose', '-p', project, '-f', `${ROOT}docker-compose.yml`, 'run', '--rm', '-T', '--no-deps', 'signet', 'trust', 'export'],
          { env: composeEnv },
        )
      ).stdout,
  }));

  it('loses no key when 20 `keys create` run at once against the volume', async () => {
    const before = JSON.parse((await (await up()).getContainer('auth-1').exec(['cat', '/keys/keys.json'])).output).keys.length;
    const runs = Array.from({ length: 20 }, (_, i) =>
      docker(
        'run',
        '--rm',
        '--user',
        '65521:65521',
        '-v',
        `${project}_signet-keys:/keys`,
        '-e',
        'SIGNET_KEY_STORE=/keys/keys.json',
        `${project}-keys`,
        'keys',
        'create',
        '--name',
        `parallel-${i}`,
      ),
    );
    const keys = (await Promise.all(runs)).map((out) => out.trim());
    const store = JSON.parse((await (await up()).getContainer('auth-1').exec(['cat', '/keys/keys.json'])).output);
    expect(store.keys.length).toBe(before + 20);
    for (const key of keys) {
      const r = await rawRequest(`${baseUrl}/mcp`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: rpc('ping'),
      });
      expect(r.status).toBe(200);
    }
  }, 300_000);

  it('the accounts-upgrade recipe gives the volumes of the old layout (1000, 101, 6379) to the new accounts: signet keeps its key', async () => {
    const old = `signet-upgrade-${randomBytes(4).toString('hex')}`;
    const image = `${project}-signet`;
    const dir = tempDir('signet-upgrade-');
    execFileSync(process.execPath, [CLI, 'keygen', '--out', join(dir, 'signing-key.pem')]);
    const pem = readFileSync(join(dir, 'signing-key.pem'), 'utf8');
    const publicKey = new Signer(createPrivateKey(pem)).publicKeySpki;
    const volumes = ['data', 'keys', 'proxy-auth', 'redis-auth'].flatMap((v) => ['-v', `${old}_signet-${v}:/v/${v}`]);
    const asRoot = (script: string, input = '') =>
      execFileSync(
        'docker',
        ['run', '--rm', '-i', '--user', '0:0', '--network', 'none', '--entrypoint', 'sh', ...volumes, image, '-ec', script],
        {
          input,
          encoding: 'utf8',
        },
      );
    try {
      // The volumes as the stack before this layout left them.
      asRoot(
        `cat > /v/data/signing-key.pem; chmod 0600 /v/data/signing-key.pem; chown -R 1000:1000 /v/data; chmod 0700 /v/data
         echo '{"version":1,"keys":[]}' > /v/keys/keys.json; chmod 0600 /v/keys/keys.json; chown -R 101:101 /v/keys; chmod 0700 /v/keys
         printf %064d 7 > /v/proxy-auth/secret; chmod 0440 /v/proxy-auth/secret; chown -R 1000:101 /v/proxy-auth; chmod 0750 /v/proxy-auth
         printf %064d 9 > /v/redis-auth/password; chmod 0440 /v/redis-auth/password; chown -R 1000:6379 /v/redis-auth; chmod 0750 /v/redis-auth`,
        pem,
      );
      const recipe = docRecipe('operations.md', 'accounts-upgrade')
        .split('\n')
        .filter((l) => !l.startsWith('docker compose '))
        .join('\n')
        .replaceAll('signet_signet-', `${old}_signet-`)
        .replaceAll(' signet-signet ', ` ${image} `);
      execFileSync('bash', ['-e', '-c', recipe]);
      expect(
        asRoot('stat -c "%n %a %u %g" /v/data/signing-key.pem /v/keys/keys.json /v/proxy-auth/secret /v/redis-auth/password')
          .trim()
          .split('\n'),
      ).toEqual([
        '/v/data/signing-key.pem 600 65520 65520',
        '/v/keys/keys.json 600 65521 65521',
        '/v/proxy-auth/secret 440 65520 65521',
        '/v/redis-auth/password 400 65520 65522',
      ]);
      // signet (65520) signs with the key it had: its trust export names the same public key.
      const trust = JSON.parse(
        await docker('run', '--rm', '--network', 'none', '-v', `${old}_signet-data:/data`, image, 'trust', 'export'),
      );
      expect(trust.keys[0].public_key).toBe(publicKey);
      // The proxy's account reads its store and the secret; Redis's account neither the password nor the secret.
      const as = (user: string, path: string) =>
        spawnSync('docker', ['run', '--rm', '--user', user, '--network', 'none', '--entrypoint', 'cat', ...volumes, image, path]).status;
      expect(as('65521:65521', '/v/keys/keys.json')).toBe(0);
      expect(as('65521:65521', '/v/proxy-auth/secret')).toBe(0);
      expect(as('65522:65522', '/v/redis-auth/password')).not.toBe(0);
    } finally {
      await run('docker', ['volume', 'rm', ...['data', 'keys', 'proxy-auth', 'redis-auth'].map((v) => `${old}_signet-${v}`)]).catch(
        () => undefined,
      );
    }
  }, 120_000);

  it('zero configuration: the first start minted a well-formed key into a volume; a wrong key is refused', async () => {
    const key = await mintedKey();
    expect(checkApiKeyFormat(key)).toMatchObject({ ok: true });
    const wrong = await rawRequest(`${baseUrl}/mcp`, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('X') ? 'Y' : 'X'}` },
      body: rpc('ping'),
    });
    expect(wrong.status).toBe(401);
    const right = await rawRequest(`${baseUrl}/mcp`, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: rpc('ping'),
    });
    expect(right.status).toBe(200);
    expect(await allLogs('keys')).toMatch(/created the first API key/);
    expect(await allLogs('keys')).not.toContain(key);
  });

  it("signet publishes no port and sits only on internal networks (the proxy's and Redis's), hardened", async () => {
    const info = JSON.parse(await docker('inspect', `${project}-signet-1`))[0];
    expect(Object.values(info.NetworkSettings.Ports ?? {}).every((v) => v === null)).toBe(true);
    expect(info.HostConfig.PortBindings ?? {}).toEqual({});
    expect(Object.keys(info.NetworkSettings.Networks).sort()).toEqual([`${project}_backend`, `${project}_redis`]);
    for (const name of ['backend', 'redis'])
      expect(JSON.parse(await docker('network', 'inspect', `${project}_${name}`))[0].Internal, name).toBe(true);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges:true');
    expect(info.Config.User).toBe('65520:65520');
    const proxy = JSON.parse(await docker('inspect', `${project}-proxy-1`))[0];
    expect(Object.keys(proxy.NetworkSettings.Networks).sort()).toEqual([`${project}_auth`, `${project}_backend`, `${project}_frontend`]);
    // The auth check sits on the proxy's internal network alone: no port, no way out.
    const auth = JSON.parse(await docker('inspect', `${project}-auth-1`))[0];
    expect(Object.keys(auth.NetworkSettings.Networks)).toEqual([`${project}_auth`]);
    expect(JSON.parse(await docker('network', 'inspect', `${project}_auth`))[0].Internal).toBe(true);
    expect(auth.HostConfig.PortBindings ?? {}).toEqual({});
    expect(proxy.HostConfig.PortBindings['8080/tcp'][0].HostIp).toBe('127.0.0.1');
  });

  it('keeps the same public key across a restart of signet (named data volume)', async () => {
    const key = await mintedKey();
    // A resource read: signed like tool results, and outside the tools/call budget the suite used up.
    const info = async () => {
      const r = await rawRequest(`${baseUrl}/mcp`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: rpc('resources/read', { uri: 'doctrine://manifest' }),
      });
      return r.json().result.contents[0]._meta['signet/footer'].doctrine_public_key as string;
    };
    const before = await info();
    await docker('restart', `${project}-signet-1`);
    await waitHealthy(`${project}-signet-1`);
    let after = '';
    for (let i = 0; i < 30 && !after; i++) {
      after = await info().catch(() => '');
      if (!after) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(after).toBe(before);
  });

  it('rotates the signing key: outputs from before verify against the exported trust file, new ones carry the new key', async () => {
    const key = await mintedKey();
    const compose = (args: string[]) =>
      run('docker', ['compose', '-p', project, '-f', `${ROOT}docker-compose.yml`, ...args], { env: composeEnv });
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      for (let attempt = 0; ; attempt++) {
        const r = await rawRequest(`${baseUrl}/mcp`, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: rpc('tools/call', { name, arguments: args }),
        });
        // The suite above spent this client's tools/call budget: wait for the window, as a client would.
        if (r.status === 429 && attempt < 3) {
          await new Promise((res) => setTimeout(res, (Number(r.headers['retry-after']) + 1) * 1000));
          continue;
        }
        expect(r.status).toBe(200);
        return r.json().result as Record<string, unknown>;
      }
    };
    const dir = tempDir('signet-rotation-');
    const before = await call('doctrine_get', { id: 'AUTH-001' });
    const oldKey = (before['structuredContent'] as { footer: { doctrine_public_key: string } }).footer.doctrine_public_key;
    const rotated = await compose(['run', '--rm', '-T', '--no-deps', 'signet', 'signing-key', 'rotate']);
    expect(rotated.stdout).toMatch(/^rotated \/data\/signing-key\.pem/);
    await compose(['restart', 'signet']);
    await waitHealthy(`${project}-signet-1`);
    const trust = (await compose(['run', '--rm', '-T', '--no-deps', 'signet', 'trust', 'export'])).stdout;
    const file = JSON.parse(trust) as { keys: { public_key: string; status: string }[] };
    expect(file.keys.map((k) => k.status)).toEqual(['active', 'retired']);
    expect(file.keys[1]!.public_key).toBe(oldKey);
    writeFileSync(join(dir, 'signet-trust.json'), trust);
    writeFileSync(join(dir, 'before.json'), JSON.stringify(before));
    let after: Record<string, unknown> | null = null;
    for (let i = 0; i < 30 && !after; i++) {
      after = await call('doctrine_get', { id: 'AUTH-001' }).catch(() => null);
      if (!after) await new Promise((res) => setTimeout(res, 1000));
    }
    const newKey = (after!['structuredContent'] as { footer: { doctrine_public_key: string } }).footer.doctrine_public_key;
    expect(newKey).toBe(file.keys[0]!.public_key);
    expect(newKey).not.toBe(oldKey);
    writeFileSync(join(dir, 'after.json'), JSON.stringify(after));
    // The documented CI gate, on both outputs.
    const verify = (f: string) =>
      spawnSync(process.execPath, [CLI, 'verify', '--trust', join(dir, 'signet-trust.json'), join(dir, f)], { encoding: 'utf8' });
    const old = verify('before.json');
    expect(old.status, old.stderr).toBe(0);
    expect(old.stdout).toMatch(/\(retired\)/);
    expect(verify('after.json').status).toBe(0);
    // And the server itself still trusts its retired key.
    const verdict = await call('verify_output', { output: before });
    expect((verdict['structuredContent'] as { result: Record<string, unknown> }).result).toMatchObject({
      status: 'trusted',
      signed_by_this_server: true,
      signer: { status: 'retired' },
    });
  }, 300_000);

  it('docker run -i of the image answers initialize and a signed tools/call over stdio', async () => {
    const transport = new StdioClientTransport({ command: 'docker', args: ['run', '-i', '--rm', `${project}-signet`], stderr: 'pipe' });
    const client = new Client({ name: 'stdio-in-docker', version: '1' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('signet');
      const r = await client.callTool({ name: 'doctrine_get', arguments: { id: 'CONT-001' } });
      expect(verifyOutput(r).signature_valid).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("refuses the pen test's H1 request from the Docker host and from a foreign container on the backend network; metrics stay unreachable", async () => {
    const info = JSON.parse(await docker('inspect', `${project}-signet-1`))[0];
    const address = info.NetworkSettings.Networks[`${project}_backend`].IPAddress as string;
    const forged = {
      host: 'localhost',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-forwarded-for': '6.6.6.6',
      'x-signet-key-id': 'victimid',
      'x-request-id': 'forged-h1-request',
    };
    const body = rpc('tools/call', { name: 'doctrine_info', arguments: {} }, 'h1');
    // From the host: the backend network's gateway address is the host's own. Refused, never served.
    const fromHost = await rawRequest(`http://${address}:3000/mcp`, { headers: forged, body });
    expect(fromHost.status).toBe(403);
    expect(fromHost.json()).toMatchObject({ id: null, error: { message: 'Forbidden: this server answers only its authenticated proxy' } });
    await expect(rawRequest(`http://${address}:9464/metrics`, { method: 'GET' })).rejects.toThrow(/ECONNREFUSED/);
    // From a container someone else attached to the backend network, with a made-up secret too.
    const script = `
      const h = ${JSON.stringify({ ...forged, 'x-signet-proxy-auth': 'f'.repeat(64) })};
      const mcp = await fetch('http://signet:3000/mcp', { method: 'POST', headers: h, body: ${JSON.stringify(body)} });
      const metrics = await fetch('http://signet:9464/metrics').then((r) => String(r.status), (e) => e.cause?.code ?? String(e));
      console.log(JSON.stringify({ mcp: mcp.status, body: await mcp.json(), metrics }));`;
    const out = await docker(
      'run',
      '--rm',
      '--network',
      `${project}_backend`,
      '--entrypoint',
      'node',
      `${project}-signet`,
      '--input-type=module',
      '-e',
      script,
    );
    const foreign = JSON.parse(out.trim()) as { mcp: number; body: { error: { message: string } }; metrics: string };
    expect(foreign).toMatchObject({ mcp: 403, metrics: 'ECONNREFUSED' });
    // Neither request reached a tool, and no forged identity reached the log.
    const logs = await allLogs('signet');
    expect(logs).not.toMatch(/6\.6\.6\.6|victimid|forged-h1-request/);
    // The proxy's own requests carry the secret and are served (the suites above), and the
    // secret is in no log and no container's configuration.
    const secret = (await (await up()).getContainer('proxy-1').exec(['cat', '/run/proxy-auth/secret'])).output.trim();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    for (const service of ['signet', 'proxy', 'proxy-auth']) expect(await allLogs(service), service).not.toContain(secret);
    for (const container of ['signet', 'proxy']) expect(await docker('inspect', `${project}-${container}-1`)).not.toContain(secret);
    const mode = (
      await docker(
        'run',
        '--rm',
        '-v',
        `${project}_signet-proxy-auth:/s`,
        '--entrypoint',
        'stat',
        `${project}-signet`,
        '-c',
        '%a %u %g',
        '/s/secret',
      )
    ).trim();
    expect(mode).toBe('440 65520 65521');
  });

  it('gives two API keys from one host address their own 60 tools/call each (M4): the address is only a guard above them', async () => {
    const keys = [];
    for (const name of ['m4-a', 'm4-b']) {
      const created = await composeKeys(['create', '--name', name]);
      expect(created.code, created.err).toBe(0);
      keys.push(created.out.trim());
    }
    for (const key of keys) {
      for (let i = 0; i < 60; i++) {
        const r = await rawRequest(`${baseUrl}/mcp`, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: rpc('tools/call', { name: 'doctrine_info', arguments: {} }, i),
        });
        expect(r.status, `call ${i}`).toBe(200);
      }
      const limited = await rawRequest(`${baseUrl}/mcp`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: rpc('tools/call', { name: 'doctrine_info', arguments: {} }, 60),
      });
      expect(limited.status).toBe(429);
      expect(limited.json().error.message).toMatch(/for this API key/);
    }
  }, 120_000);

  defineSlowlorisSuite('compose stack', async () => ({
    baseUrl,
    key: await mintedKey(),
    connectionsPerClient: 64,
    stop: async () => {},
  }));

  defineFloodSuite('compose stack', async () => {
    const created = await Promise.all(['flood', 'flood-other'].map((name) => composeKeys(['create', '--name', name])));
    const container = `${project}-signet-1`;
    const state = async () => ({
      ...(JSON.parse(await docker('inspect', '--format', '{{json .State}}', container)) as {
        StartedAt: string;
        Running: boolean;
        OOMKilled: boolean;
      }),
      restarts: Number(await docker('inspect', '--format', '{{.RestartCount}}', container)),
    });
    const before = await state();
    // The clients call the proxy at its address on the frontend network, as a client on another
    // host reaches the published port: through the kernel's NAT, not docker-proxy, the userland
    // copier only the host's own loopback clients meet, which took half of one of this
    // machine's two cores to relay the flood.
    const proxyIp = (
      await docker('inspect', '--format', `{{(index .NetworkSettings.Networks "${project}_frontend").IPAddress}}`, `${project}-proxy-1`)
    ).trim();
    return {
      baseUrl: `http://${proxyIp}:8080`,
      host: new URL(baseUrl).host,
      floodKey: created[0]!.out.trim(),
      otherKey: created[1]!.out.trim(),
      // The container's memory as the kernel counts it against mem_limit.
      serverMemoryMiB: async () => {
        const usage = (await docker('stats', '--no-stream', '--format', '{{.MemUsage}}', container)).trim();
        const m = /^([\d.]+)([KMG]i?B)/.exec(usage)!;
        const factor = m[2]!.startsWith('G') ? 1024 : m[2]!.startsWith('K') ? 1 / 1024 : 1;
        return Number(m[1]) * factor;
      },
      memoryLimitMiB: 256,
      sameServer: async () => {
        const now = await state();
        return now.StartedAt === before.StartedAt && now.Running && !now.OOMKilled && now.restarts === before.restarts;
      },
      newKey: async (name) => (await composeKeys(['create', '--name', name])).out.trim(),
      stop: async () => {},
    };
  });
});
