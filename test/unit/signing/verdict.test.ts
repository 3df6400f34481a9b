// The verifier decides the verdict alone (issue 18): a recomputation's differences are part of
// its decision, not spliced into its report afterwards by the CLI.
import { describe, expect, it } from 'vitest';
import { signOutput } from '../../../src/signing/sign-output.js';
import { trustSet } from '../../../src/signing/trust.js';
import { verifyOutput } from '../../../src/signing/verify.js';
import { testFooter, testSigner } from '../../helpers/signer.js';

const signer = testSigner();
const out = signOutput(
  { tool: 'doctrine_info', input_hash: `sha256:${'00'.repeat(32)}`, ok: true, result: {} },
  testFooter(signer),
  signer,
);
const pinned = trustSet({ publicKeys: [signer.publicKeySpki] });
const difference = { code: 'recompute_mismatch' as const, message: 'the signed result differs' };

describe('the verdict', () => {
  it('is invalid when the recomputation differs, with the differences first, though the signatures verify and the signer is pinned', () => {
    const seen: unknown[] = [];
    const report = verifyOutput(out.structured, {
      trust: pinned,
      recompute: (o) => {
        seen.push(o);
        return [difference];
      },
    });
    expect(seen).toEqual([out.structured]);
    expect(report).toMatchObject({ status: 'invalid', valid: false, signature_valid: true });
    expect(report.reasons).toEqual([difference]);
    expect(report.signer?.name).not.toBeNull();
  });

  it('replaces "not pinned" with the differences for an unpinned output, and stays trusted when nothing differs', () => {
    expect(verifyOutput(out.structured, { recompute: () => [difference] }).reasons.map((r) => r.code)).toEqual(['recompute_mismatch']);
    expect(verifyOutput(out.structured, { trust: pinned, recompute: () => [] }).status).toBe('trusted');
  });

  it('never recomputes an output whose signatures do not verify', () => {
    let called = false;
    const tampered = { ...out.structured, result: { changed: true } };
    const report = verifyOutput(tampered, {
      trust: pinned,
      recompute: () => {
        called = true;
        return [difference];
      },
    });
    expect(called).toBe(false);
    expect(report.reasons.map((r) => r.code)).toContain('output_hash_mismatch');
  });
});
