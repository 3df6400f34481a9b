// Signing-key rotation and revocation on the process stack (the built server behind Debian's
// nginx): rotate, restart, an output from before verifies against the exported trust file,
// new outputs carry the new key; a revoked key is refused by verify_output and by consumers
// who take the new trust file. The CI gate of docs/trust.md runs as written.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { fingerprint } from '../../src/signing/trust.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { CLI, DEFAULT_DOCTRINE, ROOT } from '../helpers/paths.js';
import { freePort, type NginxProcess, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { proxySecretFile } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

type Json = Record<string, any>;

const dir = tempDir('signet-rotation-');
const env = {
  SIGNET_DATA_DIR: join(dir, 'data'),
  SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
  SIGNET_TRUSTED_PROXIES: '127.0.0.1/32',
  SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
  SIGNET_ALLOWED_HOSTS: '127.0.0.1',
};
const key = newApiKey();

function signet(args: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env, ...extraEnv },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const recipe = docRecipe;

describe('signing key rotation on the process stack', () => {
  let server: ServerProcess;
  let nginx: NginxProcess;
  let port = 0;
  let upstream = 0;

  const restart = async () => {
    await server.stop();
    server = await startHttpServer({ ...env, SIGNET_HTTP_PORT: String(upstream) });
  };
  const call = async (name: string, args: Json): Promise<Json> => {
    const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as Json)['result'] as Json;
  };
  const verdict = async (output: unknown) =>
    ((await call('verify_output', { output: JSON.stringify(output) }))['structuredContent'] as Json)['result'] as Json;
  const signerOf = (result: Json) => (result['structuredContent'] as Json)['footer']['doctrine_public_key'] as string;
  const save = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };

  beforeAll(async () => {
    server = await startHttpServer(env);
    upstream = server.port;
    port = await freePort();
    const rendered = renderProxy({ ...processProxyEnv(dir, port, upstream), SIGNET_API_KEY: key });
    if (rendered.code !== 0) throw new Error(rendered.stderr);
    nginx = await startNginx(dir, port);
  });
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  it('rotate, restart: the old output verifies as retired, new outputs carry the new key; revoke: refused', async () => {
    const before = await call('doctrine_get', { id: 'AUTH-001' });
    const oldKey = signerOf(before);
    save('before.json', JSON.stringify(before));

    const rotated = signet(['signing-key', 'rotate']);
    expect(rotated.code, rotated.err).toBe(0);
    expect(rotated.out).toContain(`retired ${fingerprint(oldKey)}`);
    // Until the restart the running server keeps signing with the key it loaded.
    expect(signerOf(await call('doctrine_get', { id: 'AUTH-001' }))).toBe(oldKey);
    await restart();

    const exported = signet(['trust', 'export']);
    expect(exported.code, exported.err).toBe(0);
    const trust = JSON.parse(exported.out) as Json;
    expect(trust['keys'].map((k: Json) => [k['public_key'] === oldKey, k['status']])).toEqual([
      [false, 'active'],
      [true, 'retired'],
    ]);
    const trustFile = save('signet-trust.json', exported.out);

    const after = await call('doctrine_get', { id: 'AUTH-001' });
    const newKey = signerOf(after);
    expect(newKey).toBe(trust['keys'][0]['public_key']);
    expect(newKey).not.toBe(oldKey);
    // The same call, the same doctrine, another key: the body is the same, only the footer differs.
    const body = (r: Json) => ({ ...r['structuredContent'], footer: undefined });
    expect(body(after)).toEqual(body(before));
    save('after.json', JSON.stringify(after));

    const old = signet(['verify', '--trust', trustFile, join(dir, 'before.json')]);
    expect(old.code, old.err).toBe(0);
    expect(old.out).toMatch(/\(retired\)/);
    expect(signet(['verify', '--trust', trustFile, join(dir, 'after.json')]).code).toBe(0);
    // A consumer who pinned only the old key does not accept the new one until it takes the new trust file.
    const stale = signet(['verify', '--public-key', oldKey, join(dir, 'after.json')]);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/signer_untrusted/);

    // The server lists both keys and still trusts its retired key's outputs.
    const info = (await call('doctrine_info', {}))['structuredContent'] as Json;
    expect(info['result']['signing_keys'].map((k: Json) => [k['public_key'], k['status']])).toEqual([
      [newKey, 'active'],
      [oldKey, 'retired'],
    ]);
    expect(await verdict(before)).toMatchObject({ status: 'trusted', signed_by_this_server: true, signer: { status: 'retired' } });

    // Revoke the old key: refused by the server from its next start and by whoever takes the new trust file.
    const revoked = signet(['signing-key', 'revoke', fingerprint(oldKey), '--note', 'test: leaked']);
    expect(revoked.code, revoked.err).toBe(0);
    expect(signet(['signing-key', 'revoke', newKey]).err).toMatch(/current signing key: rotate first/);
    await restart();
    expect(await verdict(before)).toMatchObject({
      status: 'invalid',
      valid: false,
      signed_by_this_server: false,
      reasons: [{ code: 'signer_revoked' }],
    });
    expect(await verdict(after)).toMatchObject({ status: 'trusted', signed_by_this_server: true });
    const newTrust = save('signet-trust-2.json', signet(['trust', 'export']).out);
    expect(JSON.parse(readFileSync(newTrust, 'utf8'))['keys'][1]).toMatchObject({
      public_key: oldKey,
      status: 'revoked',
      note: 'test: leaked',
    });
    const refused = signet(['verify', '--trust', newTrust, join(dir, 'before.json')]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/signer_revoked/);
    // An output from another server is not trusted by this one, however consistent.
    // Called directly, as a server of its own (no proxy in front, so no proxy secret).
    const stranger = await startHttpServer({
      ...env,
      SIGNET_DATA_DIR: join(dir, 'other-data'),
      SIGNET_PROXY_SECRET_FILE: '',
      SIGNET_TRUSTED_PROXIES: '',
    });
    try {
      const r = await fetch(stranger.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' } },
        }),
      });
      const foreign = ((await r.json()) as Json)['result'];
      expect(await verdict(foreign)).toMatchObject({
        status: 'invalid',
        valid: false,
        signature_valid: true,
        reasons: [{ code: 'signer_untrusted' }],
      });
    } finally {
      await stranger.stop();
    }
  }, 120_000);

  it('the CI gate of docs/trust.md, run as written: exit 0 for this server, 1 for a forgery, 3 without the pin', async () => {
    // `signet` on PATH, as in the docs; the working directory is the CI job's checkout.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'signet'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'signet'), 0o755);
    const job = join(dir, 'ci-job');
    // The job's `npx signet-mcp-verify`: the verifier package's bin, as installed in its node_modules
    // (packages.test.ts installs the packed package itself).
    mkdirSync(join(job, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(
      join(job, 'node_modules', '.bin', 'signet-mcp-verify'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist', 'verify', 'bin', 'signet-mcp-verify.js')}" "$@"\n`,
    );
    chmodSync(join(job, 'node_modules', '.bin', 'signet-mcp-verify'), 0o755);
    writeFileSync(join(job, 'answer.json'), JSON.stringify(await call('doctrine_evaluate', { facts: { transport: { kind: 'http' } } })));
    const run = (script: string) =>
      spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: job,
        env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: dir, npm_config_update_notifier: 'false', ...env },
        encoding: 'utf8',
      });
    const gate = run(recipe('trust.md', 'ci-pin'));
    expect(gate.status, gate.stderr).toBe(0);
    expect(gate.stdout).toMatch(/^trusted: doctrine_evaluate signed by "signet-\S+" SHA256:\S+ \(active\)/m);
    // The same gate on a forgery (a fresh key re-signing an edited result) fails.
    const { signOutput } = await import('../../src/signing/sign-output.js');
    const { Signer } = await import('../../src/signing/signer.js');
    const { SIGNED_MESSAGE } = await import('../../src/signing/format.js');
    const { generateKeyPairSync } = await import('node:crypto');
    const answer = JSON.parse(readFileSync(join(job, 'answer.json'), 'utf8')) as Json;
    const {
      footer: { output_hash: _h, output_signature: _s, ...footer },
      ...forgedBody
    } = answer['structuredContent'] as Json;
    forgedBody['result']['summary']['fail'] = 0;
    const attacker = new Signer(generateKeyPairSync('ed25519').privateKey);
    const forged = signOutput(
      forgedBody as never,
      {
        ...footer,
        doctrine_signature: attacker.sign(SIGNED_MESSAGE.doctrine(footer.signature_format, footer.doctrine_hash)),
        doctrine_public_key: attacker.publicKeySpki,
      },
      attacker,
    );
    writeFileSync(
      join(job, 'answer.json'),
      JSON.stringify({ content: [{ type: 'text', text: forged.text }], structuredContent: JSON.parse(forged.text), isError: false }),
    );
    const caught = run(recipe('trust.md', 'ci-pin').replace(/^signet trust export.*$/m, ''));
    expect(caught.status).toBe(1);
    expect(caught.stderr).toMatch(/signer_untrusted/);
    // Without the pin the forgery is only "consistent": exit 3, never 0.
    const unpinned = run('npx signet-mcp-verify answer.json');
    expect(unpinned.status).toBe(3);
    expect(unpinned.stderr).toMatch(/no signer is pinned/);
  }, 60_000);
  it('prepare, publish, rotate (docs/trust.md): consumers who took the trust file before the rotation verify the new key at once', async () => {
    const bin = join(dir, 'bin'); // `signet` on PATH, as in the docs (made by the CI gate test above)
    const operator = join(dir, 'operator');
    mkdirSync(operator, { recursive: true });
    const sh = (script: string) =>
      spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: operator,
        env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, ...env },
        encoding: 'utf8',
      });
    const [prepare, publish, rotate] = recipe('trust.md', 'rotate-prepublished')
      .split('\n')
      .filter((l) => l.startsWith('signet '));
    const current = signerOf(await call('doctrine_get', { id: 'AUTH-002' }));

    const prepared = sh(prepare!);
    expect(prepared.status, prepared.stderr).toBe(0);
    const next = /^next SHA256:\S+ (\S+)$/m.exec(prepared.stdout)![1]!;
    expect(next).not.toBe(current);
    expect(sh(prepare!).stderr).toMatch(/A next signing key is prepared already/);
    expect(signet(['signing-key', 'revoke', fingerprint(next)]).err).toMatch(
      /That is the prepared next key, which has signed nothing: delete \S+signing-key\.next\.pem/,
    );
    expect(signet(['signing-key', 'list']).out).toMatch(new RegExp(`^next {5}${fingerprint(next).replace(/[+/]/g, '\\$&')} `, 'm'));
    // Published beside the current key, both active; the server still signs with the current one.
    expect(sh(publish!).status).toBe(0);
    const published = JSON.parse(readFileSync(join(operator, 'signet-trust.json'), 'utf8')) as Json;
    expect(published['keys'].slice(0, 2).map((k: Json) => [k['public_key'], k['status']])).toEqual([
      [current, 'active'],
      [next, 'active'],
    ]);
    const before = await call('doctrine_get', { id: 'AUTH-002' });
    expect(signerOf(before)).toBe(current);

    // Rotate and restart: the new outputs carry the prepared key and verify with the file published before.
    const rotated = sh(rotate!);
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain('It is the key prepared and published before');
    await restart();
    const after = await call('doctrine_get', { id: 'AUTH-002' });
    expect(signerOf(after)).toBe(next);
    for (const output of [before, after]) {
      writeFileSync(join(operator, 'answer.json'), JSON.stringify(output));
      const verified = signet(['verify', '--trust', join(operator, 'signet-trust.json'), join(operator, 'answer.json')]);
      expect(verified.code, verified.err).toBe(0);
    }
    // The file exported now: the prepared key current, the one before it retired; no next any more.
    const now = (JSON.parse(signet(['trust', 'export']).out) as Json)['keys'] as Json[];
    expect(now[0]).toEqual({ name: expect.any(String), public_key: next, status: 'active' });
    expect(now.find((k) => k['public_key'] === current)).toMatchObject({ status: 'retired' });
    expect(now.filter((k) => k['status'] === 'active')).toHaveLength(1);
  }, 60_000);
});
