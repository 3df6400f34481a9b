import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkApiKeyFormat } from '../../src/keys/format.js';
import { testContext } from '../helpers/context.js';
import { CLI, MINI_DOCTRINE } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

function signet(args: string[], input?: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('signet CLI', () => {
  const dir = tempDir('signet-cli-');

  it('doctrine hash prints the hash; doctrine check validates and names problems', () => {
    const ctx = testContext();
    expect(signet(['doctrine', 'hash', MINI_DOCTRINE])).toEqual({ code: 0, out: ctx.doctrine.hash + '\n', err: '' });
    const ok = signet(['doctrine', 'check', MINI_DOCTRINE]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^ok: mini 0\.0\.1, 2 documents, 3 rules/);
    const bad = signet(['doctrine', 'check', join(dir, 'nothing-here')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/doctrine is invalid/);
  });

  it('verify exits 0 for a valid output and 1 with the reason for a tampered one', () => {
    const ctx = testContext();
    const out = ctx.tools.call('doctrine_info', {}).json();
    const file = join(dir, 'out.json');
    writeFileSync(file, out);
    const good = signet(['verify', file]);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/^valid: doctrine_info signed by /);
    expect(signet(['verify', '-'], out).code).toBe(0);
    expect(signet(['verify', '--public-key', ctx.signer.publicKeySpki], out).code).toBe(0);
    const wrongKey = signet(['verify', '--public-key', testContext().signer.publicKeySpki], out);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.err).toMatch(/different key/);
    const tampered = signet(['verify'], out.replace('"mini"', '"mimi"'));
    expect(tampered.code).toBe(1);
    expect(tampered.err).toMatch(/output_hash does not match/);
    const json = signet(['verify', '--json'], out);
    expect(JSON.parse(json.out)).toMatchObject({ valid: true, checks: { output_signature_valid: true } });
    expect(signet(['verify', join(dir, 'missing.json')]).code).toBe(1);
  });

  it('keygen writes a 0600 PKCS#8 key, prints only the public key, and refuses to overwrite', () => {
    const file = join(dir, 'k', 'signing.pem');
    const r = signet(['keygen', '--out', file]);
    expect(r.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const pem = readFileSync(file, 'utf8');
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(r.out).not.toContain(pem.split('\n')[1]!);
    expect(r.out).toMatch(/public key: [A-Za-z0-9+/]{59}=/);
    const again = signet(['keygen', '--out', file]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/Refusing to overwrite/);
    expect(readFileSync(file, 'utf8')).toBe(pem);
  });

  it('uses SIGNET_SIGNING_KEY_FILE and never prints it in errors', () => {
    const file = join(dir, 'k2.pem');
    signet(['keygen', '--out', file]);
    const ctx = testContext({ SIGNET_SIGNING_KEY_FILE: file });
    expect(ctx.keyOrigin).toBe('file');
    const notAKey = join(dir, 'bad.pem');
    writeFileSync(notAKey, '-----BEGIN PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END PRIVATE KEY-----\n');
    const r = signet(['serve'], '', { SIGNET_SIGNING_KEY_FILE: notAKey, SIGNET_DOCTRINE_DIR: MINI_DOCTRINE, SIGNET_DATA_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SIGNET_SIGNING_KEY_FILE is not a PKCS#8 PEM private key/);
    expect(r.err + r.out).not.toContain('TOPSECRETMATERIAL');
  });

  it('reports configuration errors clearly', () => {
    const r = signet(['serve'], '', { SIGNET_TRANSPORT: 'carrier-pigeon' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SIGNET_TRANSPORT must be one of stdio, http/);
  });

  it('keys new prints a well-formed sgnk_ key, different each time', () => {
    const a = signet(['keys', 'new']).out.trim();
    const b = signet(['keys', 'new']).out.trim();
    expect(a).toMatch(/^sgnk_[0-9A-Za-z]{57}$/);
    expect(checkApiKeyFormat(a)).toMatchObject({ ok: true });
    expect(a).not.toBe(b);
  });

  it('prints usage with exit code 2 for an unknown command (taken as arguments of the default serve)', () => {
    const r = signet(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/too many arguments for 'serve'/);
  });
});
