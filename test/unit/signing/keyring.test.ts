// Signing key rotation and revocation: the old key's outputs stay valid as retired, a
// revoked key's are refused, and the server lists and exports what it trusts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { describe, expect, it } from 'vitest';
import { revokeKey, rotateGeneratedKey } from '../../../src/signing/rotation.js';
import { fingerprint, parseTrustFile } from '../../../src/signing/trust.js';
import { testContext } from '../../helpers/context.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

describe('signing key lifecycle', () => {
  it('rotates: new key from the next start, the old one retired, its outputs still verified', () => {
    const dataDir = tempDir('signet-rotate-');
    const before = testContext({ SIGNET_DATA_DIR: dataDir });
    const old = before.tools.call('doctrine_get', { id: 'TLS-001' }).result;
    const { previous, current } = rotateGeneratedKey(dataDir);
    expect(previous).toBe(before.signer.publicKeySpki);
    const after = testContext({ SIGNET_DATA_DIR: dataDir });
    expect(after.signer.publicKeySpki).toBe(current);
    expect(after.keys.list.map((k) => [k.public_key, k.status])).toEqual([
      [current, 'active'],
      [previous, 'retired'],
    ]);
    const info = after.tools.call('doctrine_info', {}).result.structuredContent as { result: { signing_keys: unknown[] } };
    expect(info.result.signing_keys).toEqual(after.keys.list);
    // verify_output: the retired key's output is trusted, and says it was signed by this server.
    const verdict = after.tools.call('verify_output', { output: old }).result.structuredContent as { result: Record<string, unknown> };
    expect(verdict.result).toMatchObject({
      status: 'trusted',
      signed_by_this_server: true,
      signer: { status: 'retired', fingerprint: fingerprint(previous) },
    });
    // Exported trust file: current active, previous retired.
    expect(parseTrustFile(JSON.stringify(after.keys.file)).keys.map((k) => k.status)).toEqual(['active', 'retired']);
  });

  it('revokes a retired key: its outputs are refused; the current key cannot be revoked', () => {
    const dataDir = tempDir('signet-revoke-');
    const before = testContext({ SIGNET_DATA_DIR: dataDir });
    const old = before.tools.call('doctrine_info', {}).result;
    rotateGeneratedKey(dataDir);
    const mid = testContext({ SIGNET_DATA_DIR: dataDir });
    expect(() => revokeKey(dataDir, mid.signer.publicKeySpki)).toThrow(/current signing key: rotate first/);
    expect(() => revokeKey(dataDir, 'SHA256:nope')).toThrow(/No key/);
    expect(revokeKey(dataDir, fingerprint(before.signer.publicKeySpki), 'laptop stolen').status).toBe('revoked');
    const after = testContext({ SIGNET_DATA_DIR: dataDir });
    const verdict = after.tools.call('verify_output', { output: old }).result.structuredContent as { result: Record<string, unknown> };
    expect(verdict.result).toMatchObject({
      status: 'invalid',
      valid: false,
      signed_by_this_server: false,
      reasons: [{ code: 'signer_revoked' }],
    });
    expect(after.keys.file.keys[1]).toMatchObject({ status: 'revoked', note: 'laptop stolen' });
  });

  it('one history change at a time: a rotation while another holds the history fails and changes nothing', () => {
    const dataDir = tempDir('signet-lock-');
    const ctx = testContext({ SIGNET_DATA_DIR: dataDir });
    const key = readFileSync(join(dataDir, 'signing-key.pem'), 'utf8');
    const release = lockfile.lockSync(join(dataDir, 'signing-keys.json'), { realpath: false });
    try {
      expect(() => rotateGeneratedKey(dataDir)).toThrow(/Another signet signing-key command is changing .*try again/);
      expect(() => revokeKey(dataDir, ctx.signer.publicKeySpki)).toThrow(/Another signet signing-key command/);
    } finally {
      release();
    }
    expect(readFileSync(join(dataDir, 'signing-key.pem'), 'utf8')).toBe(key);
    expect(rotateGeneratedKey(dataDir).previous).toBe(ctx.signer.publicKeySpki);
  });

  it('SIGNET_TRUST_FILE lists older keys for a server on a mounted key; a revoked current key refuses to start', () => {
    const older = testContext();
    const dataDir = tempDir('signet-tf-');
    const self = testContext({ SIGNET_DATA_DIR: dataDir });
    const file = join(tempDir('signet-tf-file-'), 'trust.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'signet-trust/1',
        keys: [{ name: 'before-k8s', public_key: older.signer.publicKeySpki, status: 'active' }],
      }),
    );
    const ctx = testContext({ SIGNET_DATA_DIR: dataDir, SIGNET_TRUST_FILE: file });
    // A key other than the current one can only be retired, whatever the file says.
    expect(ctx.keys.list.map((k) => [k.name, k.status])).toEqual([
      [expect.stringMatching(/^signet-/), 'active'],
      ['before-k8s', 'retired'],
    ]);
    const foreign = older.tools.call('doctrine_info', {}).result;
    expect(
      (ctx.tools.call('verify_output', { output: foreign }).result.structuredContent as { result: { status: string } }).result.status,
    ).toBe('trusted');
    writeFileSync(
      file,
      JSON.stringify({ format: 'signet-trust/1', keys: [{ name: 'me', public_key: self.signer.publicKeySpki, status: 'revoked' }] }),
    );
    expect(() => testContext({ SIGNET_DATA_DIR: dataDir, SIGNET_TRUST_FILE: file })).toThrow(/is revoked .*rotate to a new key/);
    writeFileSync(file, '{"format":"signet-trust/1","keys":[{"name":"x","public_key":"AAAA","status":"active"}]}');
    expect(() => testContext({ SIGNET_DATA_DIR: dataDir, SIGNET_TRUST_FILE: file })).toThrow(/keys\[0\]\.public_key must be/);
  });

  it('trust files are read strictly', () => {
    const k = testContext().signer.publicKeySpki;
    const good = {
      format: 'signet-trust/1',
      keys: [{ name: 'a', public_key: k, status: 'active' }],
      doctrine_hashes: [`sha256:${'a'.repeat(64)}`],
    };
    expect(parseTrustFile(JSON.stringify(good))).toEqual(good);
    const bad: [unknown, RegExp][] = [
      [{ ...good, format: 'signet-trust/2' }, /format must be/],
      [{ ...good, extra: 1 }, /unknown member "extra"/],
      [{ ...good, keys: [{ ...good.keys[0], status: 'trusted' }] }, /status must be one of active, retired, revoked/],
      [{ ...good, keys: [good.keys[0], { ...good.keys[0], name: 'b' }] }, /listed twice/],
      [{ ...good, keys: [{ ...good.keys[0], fingerprint: 'x' }] }, /unknown member "fingerprint"/],
      [{ ...good, doctrine_hashes: ['sha256:ABC'] }, /doctrine_hashes must be/],
      // Pen test L3: an empty list silently pinned nothing.
      [{ ...good, doctrine_hashes: [] }, /doctrine_hashes must list at least one hash; omit the member to pin no doctrine/],
      [{ ...good, keys: 'all' }, /keys must be an array/],
    ];
    for (const [value, message] of bad) expect(() => parseTrustFile(JSON.stringify(value))).toThrow(message);
    expect(() => parseTrustFile('{"format":"signet-trust/1","keys":[],"format":"signet-trust/1"}')).toThrow(/appears more than once/);
  });
});
