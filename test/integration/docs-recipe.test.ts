// The OpenSSL recipe of docs/output-format.md, run exactly as written against a real signed output.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testContext } from '../helpers/context.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const recipe = () => docRecipe('output-format.md', 'openssl');

describe('docs/output-format.md OpenSSL verification recipe', () => {
  const ctx = testContext();
  const output = ctx.tools.call('doctrine_evaluate', { facts: { transport: { kind: 'http' } } }).result.structuredContent;

  function runRecipe(structured: unknown): { ok: boolean; out: string } {
    const dir = tempDir('signet-recipe-');
    writeFileSync(join(dir, 'out.json'), JSON.stringify(structured, null, 2));
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

  it('verifies a genuine output', () => {
    const r = runRecipe(output);
    expect(r.out).toContain('output_hash matches');
    expect(r.out).toContain('Signature Verified Successfully');
    expect(r.ok).toBe(true);
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
    expect(r2.ok).toBe(false);
  }, 180_000);
});
