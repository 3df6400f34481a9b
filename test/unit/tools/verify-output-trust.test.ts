// Pen test M5: verify_output signed "trusted" verdicts for forged outputs when the caller
// supplied the forger's key under the real key's name. The signed report must say whose keys
// made the verdict, and never "trusted" on keys it was handed.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/signing/trust.js';
import { verifyOutput } from '../../../src/signing/verify.js';
import { testContext } from '../../helpers/context.js';
import { CLI } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

const server = testContext();
const attacker = testContext();
type Report = { status: string; valid: boolean; trust: { source: string; keys_sha256?: string }; signer: { name?: string } | null };
const report = (r: { structuredContent: unknown }) => (r.structuredContent as { result: Report }).result;

describe('verify_output never signs borrowed trust (M5)', () => {
  const forged = attacker.tools.call('doctrine_info', {}).result;
  // The attacker's key, named like the real one (its fingerprint's first characters).
  const realName = `signet-${fingerprint(server.signer.publicKeySpki).slice(7, 15)}`;
  const trust = { format: 'signet-trust/1', keys: [{ name: realName, public_key: attacker.signer.publicKeySpki, status: 'active' }] };

  it('says trusted_by_caller, not trusted, and names the caller trust by its hash, for trust and for trusted_keys', () => {
    const viaFile = server.tools.call('verify_output', { output: forged, trust }).result;
    expect(report(viaFile)).toMatchObject({
      status: 'trusted_by_caller',
      valid: true,
      signer: { name: realName },
      trust: { source: 'caller' },
    });
    const viaKeys = report(server.tools.call('verify_output', { output: forged, trusted_keys: [attacker.signer.publicKeySpki] }).result);
    expect(viaKeys.status).toBe('trusted_by_caller');
    // Different caller trust, different hash; the same trust, the same hash (deterministic).
    expect(viaKeys.trust.keys_sha256).not.toBe(report(viaFile).trust.keys_sha256);
    expect(report(server.tools.call('verify_output', { output: forged, trust }).result).trust).toEqual(report(viaFile).trust);
    // The report itself is a genuine, signed output of this server: the trust source is signed with it.
    expect(verifyOutput(viaFile).signature_valid).toBe(true);
  });

  it("says trusted, with the server's own keys as the source, only for this server's outputs", () => {
    const own = server.tools.call('doctrine_info', {}).result;
    expect(report(server.tools.call('verify_output', { output: own }).result)).toMatchObject({
      status: 'trusted',
      trust: { source: 'server' },
    });
    expect(report(server.tools.call('verify_output', { output: forged }).result)).toMatchObject({
      status: 'invalid',
      trust: { source: 'server' },
    });
  });

  it('signet verify on the signed report says the verdict rests on keys the caller supplied', () => {
    const dir = tempDir('signet-m5-');
    const signed = server.tools.call('verify_output', { output: forged, trust }).result;
    writeFileSync(join(dir, 'report.json'), JSON.stringify(signed));
    const r = spawnSync(process.execPath, [CLI, 'verify', '--public-key', server.signer.publicKeySpki, join(dir, 'report.json')], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
    // The report is the server's (exit 0 for the report's own signature), and the line under it
    // says whose keys its verdict rests on.
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^trusted: verify_output signed by /);
    expect(r.stdout).toMatch(
      /the report's verdict on the output it checked: trusted_by_caller, by keys the caller supplied \(sha256:[0-9a-f]{64}\), not the signing server's/,
    );
    const json = spawnSync(
      process.execPath,
      [CLI, 'verify', '--json', '--public-key', server.signer.publicKeySpki, join(dir, 'report.json')],
      {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '' },
      },
    );
    expect(JSON.parse(json.stdout).reported_verdict).toMatchObject({ status: 'trusted_by_caller', trust: { source: 'caller' } });
  });
});
