// The official MCP conformance suite, every server scenario of every revision Signet speaks,
// against the built server bound two ways: loopback (the default) and as the image binds it
// (0.0.0.0, defaults). Failures must be exactly those in test/conformance/expected-failures.yml,
// each of which needs something Signet does not have (fixture tools, prompts, tasks...); a
// baseline entry that starts passing fails the run too. The rate limits are lifted: the suite
// sends more than 60 calls a minute from one address.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rpc, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const SUITE = `${ROOT}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const BASELINE = `${ROOT}test/conformance/expected-failures.yml`;
const UNLIMITED = { SIGNET_RATE_LIMIT_PER_MINUTE: '0', SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0' };

function conformance(url: string, selection: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE, 'server', '--url', url, ...selection, '--expected-failures', BASELINE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (out += c));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const RUNS: [string, string[], string[]][] = [
  // selection, and scenarios that must pass whole in it
  [
    '2026-07-28 requirements',
    ['--requirements', '2026-07-28'],
    ['tools-list', 'resources-list', 'http-header-validation', 'sep-2164-resource-not-found', 'dns-rebinding-protection'],
  ],
  [
    '2025-11-25',
    ['--spec-version', '2025-11-25'],
    ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'],
  ],
  ['2025-06-18', ['--spec-version', '2025-06-18'], ['server-initialize', 'ping', 'tools-list', 'resources-list']],
  ['every scenario, drafts and extensions included', ['--suite', 'all'], ['tools-list', 'resources-list', 'dns-rebinding-protection']],
];

describe.each([
  ['bound to loopback', [] as string[]],
  ['bound as the image binds (0.0.0.0, defaults)', ['--host', '0.0.0.0']],
])('official MCP conformance suite, %s', (_label, args) => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(
      { SIGNET_DATA_DIR: tempDir('signet-conformance-'), SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, ...UNLIMITED },
      args,
    );
  });
  afterAll(async () => server?.stop());

  it.each(RUNS)('%s: only the failures in the baseline', async (_name, selection, mustPass) => {
    const { code, out } = await conformance(`http://localhost:${server.port}/mcp`, selection);
    expect(out, out).toMatch(/Baseline check passed: all failures are expected/);
    expect(code, out).toBe(0);
    for (const scenario of mustPass) expect(out).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
  });
});

describe('DNS-rebinding protection as the image binds (0.0.0.0)', () => {
  let open: ServerProcess;
  let listed: ServerProcess;
  beforeAll(async () => {
    const env = { SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, ...UNLIMITED };
    open = await startHttpServer({ ...env, SIGNET_DATA_DIR: tempDir('signet-bind-') }, ['--host', '0.0.0.0']);
    listed = await startHttpServer({ ...env, SIGNET_DATA_DIR: tempDir('signet-bind-'), SIGNET_ALLOWED_HOSTS: 'mcp.example.org' }, [
      '--host',
      '0.0.0.0',
    ]);
  });
  afterAll(async () => {
    await open?.stop();
    await listed?.stop();
  });
  const ping = (s: ServerProcess, headers: Record<string, string>) =>
    rawRequest(s.url, { headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: rpc('ping') });

  it('serves the loopback names without a list, and refuses a foreign Host or Origin (Signet checks Host on every bind)', async () => {
    expect((await ping(open, { host: 'localhost:3000' })).status).toBe(200);
    expect((await ping(open, { host: '127.0.0.1', origin: 'http://localhost:5173' })).status).toBe(200);
    const named = await ping(open, { host: 'mcp.example.org' });
    expect(named.status).toBe(403);
    expect(named.json().error.message).toMatch(/Host "mcp\.example\.org" is not allowed \(SIGNET_ALLOWED_HOSTS\)/);
    const rebound = await ping(open, { host: 'localhost', origin: 'http://evil.example.com' });
    expect(rebound.status).toBe(403);
    expect(rebound.json().error.message).toMatch(/Origin "http:\/\/evil\.example\.com" is not allowed/);
  });

  it('checks Host against SIGNET_ALLOWED_HOSTS (and the loopback names) once it is set', async () => {
    expect((await ping(listed, { host: 'mcp.example.org:8443' })).status).toBe(200);
    expect((await ping(listed, { host: 'localhost' })).status).toBe(200);
    const other = await ping(listed, { host: 'other.example.org' });
    expect(other.status).toBe(403);
    expect(other.json().error.message).toMatch(/Host "other\.example\.org" is not allowed/);
  });
});
