// The OpenSSL recipe of docs/output-format.md, run exactly as written against a real signed output
// and the server's trust file: genuine, tampered, and a forgery re-signed with an attacker's key.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIGNED_MESSAGE } from '../../src/signing/format.js';
import { signOutput } from '../../src/signing/sign-output.js';
import { testContext } from '../helpers/context.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { testSigner } from '../helpers/signer.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const recipe = () => docRecipe('output-format.md', 'openssl');

describe('docs/output-format.md OpenSSL verification recipe', () => {
  const ctx = testContext();
  const output = ctx.tools.call('doctrine_evaluate', { facts: { transport: { kind: 'http' } } }).result.structuredContent;

  function runRecipe(structured: unknown, trust: unknown = ctx.keys.file): { ok: boolean; out: string } {
    const dir = tempDir('signet-recipe-');
    writeFileSync(join(dir, 'out.json'), JSON.stringify(structured, null, 2));
    writeFileSync(join(dir, 'signet-trust.json'), JSON.stringify(trust, null, 2));
    try {
      const out = execFileSync('bash', ['-e', '-o', 'pipefail', '-c', recipe()], {
        cwd: dir,
        encoding: 'utf8',
        stdio: 'pipe',
        timeout: 120_000,
      });
      return { ok: true, out };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  }

  it('verifies a genuine output of the pinned signer: both signatures', () => {
    const r = runRecipe(output);
    expect(r.out).toMatch(/^signer pinned\noutput_hash matches\nSignature Verified Successfully\nSignature Verified Successfully\n$/);
    expect(r.ok).toBe(true);
    // With the doctrine pinned too.
    expect(runRecipe(output, { ...ctx.keys.file, doctrine_hashes: [ctx.doctrine.hash] }).ok).toBe(true);
  }, 180_000);

  it("fails on a forgery re-signed with an attacker's key (consistent on its own), at the pin", () => {
    const { output_hash: _h, output_signature: _s, ...doctrineFooter } = (output as { footer: Record<string, string> }).footer;
    const body = structuredClone(output) as Record<string, any>;
    delete body['footer'];
    body['result'].summary.fail = 0;
    const attacker = testSigner();
    const forged = JSON.parse(
      signOutput(
        body as never,
        {
          ...doctrineFooter,
          doctrine_signature: attacker.sign(SIGNED_MESSAGE.doctrine(doctrineFooter['signature_format']!, doctrineFooter['doctrine_hash']!)),
          doctrine_public_key: attacker.publicKeySpki,
        } as never,
        attacker,
      ).text,
    ) as unknown;
    const r = runRecipe(forged);
    expect(r.out).toBe(`signer NOT PINNED: ${attacker.publicKeySpki} is not a trusted key of signet-trust.json\n`);
    expect(r.ok).toBe(false);
    // Its signatures are consistent: only the pin stops it (the same recipe with the attacker's key pinned passes).
    expect(
      runRecipe(forged, { format: 'signet-trust/1', keys: [{ name: 'x', public_key: attacker.publicKeySpki, status: 'active' }] }).ok,
    ).toBe(true);
    // A revoked key, another doctrine: refused too.
    const revoked = { ...ctx.keys.file, keys: ctx.keys.file.keys.map((k) => ({ ...k, status: 'revoked' })) };
    expect(runRecipe(output, revoked).out).toMatch(/^signer NOT PINNED/);
    const otherDoctrine = runRecipe(output, { ...ctx.keys.file, doctrine_hashes: [`sha256:${'0'.repeat(64)}`] });
    expect(otherDoctrine.out).toBe('signer pinned\ndoctrine NOT PINNED\n');
    expect(otherDoctrine.ok).toBe(false);
  }, 180_000);

  it('fails on a tampered output', () => {
    const tampered = structuredClone(output) as { result: { summary: { fail: number } } };
    tampered.result.summary.fail += 1;
    const r = runRecipe(tampered);
    expect(r.out).toContain('output_hash MISMATCH');
    expect(r.ok).toBe(false);
    // A forged signature fails at OpenSSL even when the hash is consistent.
    const forged = structuredClone(output) as { footer: { output_signature: string } };
    const sig = Buffer.from(forged.footer.output_signature.slice(8), 'base64');
    sig[5]! ^= 1;
    forged.footer.output_signature = `ed25519:${sig.toString('base64')}`;
    const r2 = runRecipe(forged);
    expect(r2.out).toContain('output_hash matches');
    expect(r2.out).toMatch(/Signature Verification Failure/);
    // So does a doctrine signature over another doctrine (the output signed over it all the same).
    const { footer, ...body } = structuredClone(output) as Record<string, any>;
    const { output_hash: _h, output_signature: _s, ...doctrineFooter } = footer;
    doctrineFooter.doctrine_signature = ctx.signer.sign(`sha256:${'1'.repeat(64)}`);
    const r3 = runRecipe(JSON.parse(signOutput(body as never, doctrineFooter, ctx.signer).text));
    expect(r3.out).toMatch(/^signer pinned\noutput_hash matches\nSignature Verified Successfully\nSignature Verification Failure/);
    expect(r3.ok).toBe(false);
    expect(r2.ok).toBe(false);
  }, 180_000);
});
