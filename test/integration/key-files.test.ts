// Private key files others could read are refused at start (PostgreSQL's rule for
// ssl_key_file), through symlinks too; a Kubernetes Secret volume keeps working.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSigningKeyPem, loadOrCreateSigningKey } from '../../src/signing/signing-key.js';
import { CLI, MINI_DOCTRINE } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const isRoot = process.getuid?.() === 0;

function keyFile(mode: number, name = 'key.pem'): string {
  const dir = tempDir('signet-keyfile-');
  const path = join(dir, name);
  writeFileSync(path, generateSigningKeyPem(), { mode: 0o600 });
  chmodSync(path, mode);
  return path;
}

/** The layout kubelet writes for a Secret volume: a timestamped dir, ..data -> it, key -> ..data/key. */
function secretVolume(mode: number, owner?: { uid: number; gid: number }): string {
  const root = tempDir('signet-secret-');
  chmodSync(root, 0o755);
  const stamped = join(root, '..2026_11_22_10_00_00.123456789');
  mkdirSync(stamped, { mode: 0o755 });
  const target = join(stamped, 'signing-key.pem');
  writeFileSync(target, generateSigningKeyPem(), { mode: 0o600 });
  chmodSync(target, mode);
  if (owner) chownSync(target, owner.uid, owner.gid);
  symlinkSync('..2026_11_22_10_00_00.123456789', join(root, '..data'));
  symlinkSync('..data/signing-key.pem', join(root, 'signing-key.pem'));
  return join(root, 'signing-key.pem');
}

const load = (keyFile: string) => () => loadOrCreateSigningKey({ keyFile, dataDir: tempDir('signet-data-') });

describe('signing key file permissions', () => {
  it.each([0o600, 0o400])('accepts a key owned by the running user with mode %o', (mode) => {
    expect(load(keyFile(mode))().origin).toBe('file');
  });

  it.each([
    [0o644, /mode 0644: group or others can read it\. Fix: chmod 600 /],
    [0o666, /mode 0666/],
    [0o640, /mode 0640/],
    [0o604, /mode 0604/],
  ])('refuses a key of its own user with mode %o, saying the fix', (mode, message) => {
    expect(load(keyFile(mode))).toThrow(message);
  });

  it('checks the target of a symlink, not the link', () => {
    const target = keyFile(0o666);
    const link = join(tempDir('signet-link-'), 'key.pem');
    symlinkSync(target, link);
    expect(load(link)).toThrow(new RegExp(`-> ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) has mode 0666`));
  });

  it('accepts the Kubernetes Secret layout (..data symlinks, defaultMode 0400)', () => {
    expect(load(secretVolume(0o400))().origin).toBe('file');
  });

  it.runIf(isRoot)('refuses a key owned by another user, saying the fix', () => {
    const path = keyFile(0o600);
    chownSync(path, 4242, 4242);
    expect(load(path)).toThrow(/owned by uid 4242, not by the user running Signet \(uid 0\) or root\. Fix: chown 0 /);
  });

  it.runIf(isRoot)('as a non-root user: accepts a root-owned Secret with fsGroup (0440), refuses one others can read (0444)', () => {
    const serve = (file: string) =>
      spawnSync(process.execPath, [CLI, 'trust', 'export'], {
        uid: 1000,
        gid: 1000,
        env: {
          PATH: process.env['PATH'] ?? '',
          SIGNET_SIGNING_KEY_FILE: file,
          SIGNET_DOCTRINE_DIR: MINI_DOCTRINE,
          SIGNET_DATA_DIR: '/tmp/signet-nonroot-unused',
          HOME: '/tmp',
        },
        encoding: 'utf8',
      });
    const ok = serve(secretVolume(0o440, { uid: 0, gid: 1000 }));
    expect(ok.stderr).toBe('');
    expect(JSON.parse(ok.stdout)).toMatchObject({ format: 'signet-trust/1', keys: [{ status: 'active' }] });
    const open = serve(secretVolume(0o444, { uid: 0, gid: 1000 }));
    expect(open.status).toBe(1);
    expect(open.stderr).toMatch(/owned by root with mode 0444: at most 0640 is allowed\. Fix: chmod 640/);
    expect(open.stderr + open.stdout).not.toMatch(/PRIVATE KEY/);
  });

  it('applies the same rule to the key generated in the data dir', () => {
    const dataDir = tempDir('signet-data-');
    const first = loadOrCreateSigningKey({ dataDir });
    expect(first.origin).toBe('generated');
    expect(readFileSync(first.path, 'utf8')).toMatch(/PRIVATE KEY/);
    chmodSync(first.path, 0o644);
    expect(() => loadOrCreateSigningKey({ dataDir })).toThrow(/mode 0644/);
  });
});
