import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/signing/canonical.js';
import { SIGNED_MESSAGE, unsignedView } from '../../../src/signing/format.js';
import { signOutput } from '../../../src/signing/sign-output.js';
import { trustSet } from '../../../src/signing/trust.js';
import { verifyOutput } from '../../../src/signing/verify.js';
import { opensslSha256, opensslVerify } from '../../helpers/openssl.js';
import { testFooter, testSigner } from '../../helpers/signer.js';

const signer = testSigner();
const footer = testFooter(signer);
const body = {
  tool: 'doctrine_evaluate',
  input_hash: `sha256:${'01'.repeat(32)}`,
  ok: true,
  result: { findings: [{ rule_id: 'AUTH-001', status: 'fail', note: 'unicode ü € 😀', n: 1.5 }], summary: { fail: 1 } },
};
const signed = signOutput(body, footer, signer);

function nodeVerifies(spki: string, message: string, sig: string): boolean {
  const key = createPublicKey({ key: Buffer.from(spki, 'base64'), format: 'der', type: 'spki' });
  return nodeVerify(null, Buffer.from(message, 'utf8'), key, Buffer.from(sig.replace(/^ed25519:/, ''), 'base64'));
}

describe('signed outputs', () => {
  it('binds everything but the two output fields into output_hash, and text is exactly JCS(structuredContent)', () => {
    const s = signed.structured;
    expect(s.footer.output_hash).toBe(opensslSha256(canonicalJson(unsignedView(s as unknown as Record<string, unknown>))));
    expect(signed.text).toBe(canonicalJson(s));
    expect(JSON.stringify(s)).toBe(signed.text);
    expect(s.footer.doctrine_public_key).toMatch(/^[A-Za-z0-9+/]{59}=$/);
    expect(Buffer.from(s.footer.doctrine_public_key, 'base64')).toHaveLength(44);
    expect(Buffer.from(s.footer.output_signature.slice(8), 'base64')).toHaveLength(64);
  });

  it('is accepted by node:crypto, @noble/ed25519 and the OpenSSL CLI alike', () => {
    const f = signed.structured.footer;
    expect(nodeVerifies(f.doctrine_public_key, SIGNED_MESSAGE.doctrine(f.signature_format, f.doctrine_hash), f.doctrine_signature)).toBe(
      true,
    );
    expect(nodeVerifies(f.doctrine_public_key, SIGNED_MESSAGE.output(f.signature_format, f.output_hash), f.output_signature)).toBe(true);
    expect(opensslVerify(f.doctrine_public_key, SIGNED_MESSAGE.doctrine(f.signature_format, f.doctrine_hash), f.doctrine_signature)).toBe(
      true,
    );
    expect(opensslVerify(f.doctrine_public_key, SIGNED_MESSAGE.output(f.signature_format, f.output_hash), f.output_signature)).toBe(true);
    const report = verifyOutput(signed.structured, { trust: trustSet({ publicKeys: [signer.publicKeySpki] }) }); // portable: @noble/ed25519
    expect(report.valid).toBe(true);
    expect(report.reasons).toEqual([]);
    expect(report.signature_valid).toBe(true);
  });

  it('is deterministic: same body, doctrine and key give the same bytes', () => {
    expect(signOutput(structuredClone(body), footer, signer).text).toBe(signed.text);
    const reordered = { result: body.result, ok: true, input_hash: body.input_hash, tool: body.tool };
    expect(signOutput(reordered, footer, signer).text).toBe(signed.text);
  });

  it('detects a flip of any single byte of the signed text', () => {
    const text = signed.text;
    let undetected = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const flipped = text.slice(0, i) + String.fromCharCode(code ^ 0x01) + text.slice(i + 1);
      const report = verifyOutput(flipped);
      if (report.signature_valid) undetected++;
    }
    expect(undetected).toBe(0);
  });

  it('detects a flip of any bit of either signature, with all three verifiers', () => {
    const f = signed.structured.footer;
    for (const field of ['output_signature', 'doctrine_signature'] as const) {
      const raw = Buffer.from(f[field].slice(8), 'base64');
      for (let i = 0; i < raw.length; i++) {
        const bad = Buffer.from(raw);
        bad[i]! ^= 1 << (i % 8);
        const sig = `ed25519:${bad.toString('base64')}`;
        const tampered = structuredClone(signed.structured);
        tampered.footer[field] = sig;
        expect(verifyOutput(tampered).signature_valid).toBe(false);
        const message =
          field === 'output_signature'
            ? SIGNED_MESSAGE.output(f.signature_format, f.output_hash)
            : SIGNED_MESSAGE.doctrine(f.signature_format, f.doctrine_hash);
        expect(nodeVerifies(f.doctrine_public_key, message, sig)).toBe(false);
        if (i % 16 === 0) expect(opensslVerify(f.doctrine_public_key, message, sig)).toBe(false);
      }
    }
  });

  it('explains why an output is invalid', () => {
    const tampered = structuredClone(signed.structured) as unknown as { result: { summary: { fail: number } } };
    tampered.result.summary.fail = 0;
    const report = verifyOutput(tampered);
    expect(report.valid).toBe(false);
    expect(report.reasons.map((r) => r.code)).toContain('output_hash_mismatch');

    const otherKey = testSigner();
    const resigned = signOutput(body, testFooter(otherKey), otherKey);
    expect(verifyOutput(resigned.structured).status).toBe('unpinned');
    const pinned = verifyOutput(resigned.structured, { trust: trustSet({ publicKeys: [signer.publicKeySpki] }) });
    expect(pinned.valid).toBe(false);
    expect(pinned.reasons.map((r) => r.code)).toEqual(['signer_untrusted']);

    // Swapping in another signer's key breaks both signatures.
    const swapped = structuredClone(signed.structured);
    swapped.footer.doctrine_public_key = otherKey.publicKeySpki;
    expect(verifyOutput(swapped).reasons.map((r) => r.code)).toContain('output_signature_invalid');

    expect(verifyOutput('not json').reasons.map((r) => r.code)).toEqual(['not_json']);
    expect(verifyOutput({ hello: 1 }).valid).toBe(false);
    const wrongFormat = structuredClone(signed.structured);
    wrongFormat.footer.signature_format = 'other/9';
    expect(verifyOutput(wrongFormat).reasons[0]!.code).toBe('unsupported_signature_format');
  });

  it('accepts a JSON-RPC response, a CallToolResult, the structuredContent or its text', () => {
    const result = { content: [{ type: 'text', text: signed.text }], structuredContent: signed.structured, isError: false };
    const trust = trustSet({ publicKeys: [signer.publicKeySpki] });
    expect(verifyOutput({ jsonrpc: '2.0', id: 7, result }, { trust }).valid).toBe(true);
    expect(verifyOutput(result, { trust }).valid).toBe(true);
    expect(verifyOutput(JSON.stringify(result), { trust }).valid).toBe(true);
    expect(verifyOutput({ content: result.content, isError: false }, { trust }).valid).toBe(true);
    expect(verifyOutput(signed.text, { trust }).valid).toBe(true);
    const mismatch = { ...result, content: [{ type: 'text', text: signed.text.replace('AUTH-001', 'AUTH-002') }] };
    const report = verifyOutput(mismatch);
    expect(report.valid).toBe(false);
    expect(report.reasons.map((r) => r.code)).toContain('text_mismatch');
  });

  it('never exposes the private key through the signer object', () => {
    expect(JSON.stringify({ signer })).not.toMatch(/PRIVATE/);
    expect(Object.keys(signer).sort()).toEqual(['onSign', 'publicKeySpki']);
    expect(Object.values(signer).some((v) => typeof v === 'object' && v !== null)).toBe(false);
  });
});

describe('signature formats: /2 separates the kinds of signature, /1 still verifies', () => {
  const trust = trustSet({ publicKeys: [signer.publicKeySpki] });
  const ok = (output: unknown) => verifyOutput(output, { trust });

  it('signs signet-output/2 now, over its kind and the hash, never the bare hash', () => {
    const f = signed.structured.footer;
    expect(f.signature_format).toBe('signet-output/2');
    expect(nodeVerifies(f.doctrine_public_key, `signet-output/2\n${f.output_hash}`, f.output_signature)).toBe(true);
    expect(nodeVerifies(f.doctrine_public_key, `signet-doctrine/2\n${f.doctrine_hash}`, f.doctrine_signature)).toBe(true);
    expect(nodeVerifies(f.doctrine_public_key, f.output_hash, f.output_signature)).toBe(false);
    expect(nodeVerifies(f.doctrine_public_key, f.doctrine_hash, f.doctrine_signature)).toBe(false);
  });

  it('keeps verifying outputs signed in signet-output/1 (over the bare hashes)', () => {
    const old = signOutput(body, testFooter(signer, undefined, 'signet-output/1'), signer).structured;
    expect(old.footer.signature_format).toBe('signet-output/1');
    expect(nodeVerifies(old.footer.doctrine_public_key, old.footer.output_hash, old.footer.output_signature)).toBe(true);
    expect(ok(old)).toMatchObject({ status: 'trusted', reasons: [] });
  });

  it('refuses a signature of one kind presented as another', () => {
    // A /2 output relabelled /1: its hash changes with the footer, and nothing signed the bare hash.
    const relabelled = structuredClone(signed.structured);
    relabelled.footer.signature_format = 'signet-output/1';
    expect(ok(relabelled).signature_valid).toBe(false);
    // A signature over a resource's content (or a doctrine hash) put where an output's goes.
    const out = structuredClone(signed.structured);
    out.footer.output_signature = signer.sign(
      SIGNED_MESSAGE.resource('signet-resource/2', 'doctrine://manifest', 'text/plain', out.footer.output_hash),
    );
    expect(ok(out).reasons.map((r) => r.code)).toContain('output_signature_invalid');
    out.footer.output_signature = signer.sign(SIGNED_MESSAGE.doctrine('signet-output/2', out.footer.output_hash));
    expect(ok(out).reasons.map((r) => r.code)).toContain('output_signature_invalid');
  });

  it('binds a resource signature to its URI and media type', () => {
    const hash = `sha256:${'cd'.repeat(32)}`;
    const sig = signer.sign(SIGNED_MESSAGE.resource('signet-resource/2', 'doctrine://rules/AUTH-001', 'application/json', hash));
    const verifies = (uri: string, type: string) =>
      nodeVerifies(signer.publicKeySpki, SIGNED_MESSAGE.resource('signet-resource/2', uri, type, hash), sig);
    expect(verifies('doctrine://rules/AUTH-001', 'application/json')).toBe(true);
    expect(verifies('doctrine://rules/AUTH-002', 'application/json')).toBe(false);
    expect(verifies('doctrine://rules/AUTH-001', 'text/markdown')).toBe(false);
  });
});
