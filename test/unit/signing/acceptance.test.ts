// One Ed25519 acceptance rule for every signature Signet checks (issue 18): the same malformed
// signatures and the same weak key fed to each entry point (the rule itself, an output's two
// signatures, the doctrine publisher's signature) meet the same refusal. The publisher check
// used to decode base64 leniently (Buffer) and run no weak-key check: the non-canonical and
// unpadded forms below passed it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_FILE } from '../../../src/doctrine/files.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { checkPublisher, publisherSignature } from '../../../src/doctrine/publisher.js';
import { checkSignature } from '../../../src/signing/acceptance.js';
import { ED25519_SPKI_PREFIX } from '../../../src/signing/encoding.js';
import { nodePrimitives } from '../../../src/signing/node-primitives.js';
import { signOutput } from '../../../src/signing/sign-output.js';
import { portablePrimitives, verifyOutput } from '../../../src/signing/verify.js';
import { MINI_DOCTRINE } from '../../helpers/paths.js';
import { testFooter, testSigner } from '../../helpers/signer.js';
import { copyDoctrine } from '../../helpers/tmp-doctrine.js';

const signer = testSigner();
const doctrine = loadDoctrine(MINI_DOCTRINE);
const good = publisherSignature(doctrine.hash, signer).signature; // ed25519:<88 characters, ending ==>
const b64 = good.slice('ed25519:'.length);

/** The same 64 bytes with a padding bit set: lenient decoders (Buffer, atob) read them alike. */
function paddingBitSet(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const i = text.length - 3; // the last data character before "=="
  return text.slice(0, i) + alphabet[alphabet.indexOf(text[i]!) + 1] + text.slice(i + 1);
}

const MALFORMED: [string, string][] = [
  ['no ed25519: prefix', b64],
  ['an upper-case prefix', `ED25519:${b64}`],
  ['a padding bit set (non-canonical base64)', `ed25519:${paddingBitSet(b64)}`],
  ['no padding', `ed25519:${b64.replace(/=+$/, '')}`],
  ['base64url', `ed25519:${b64.replace(/\+/g, '-').replace(/\//g, '_')}${/[+/]/.test(b64) ? '' : '-'}`],
  ['a trailing newline', `${good}\n`],
  ['63 bytes', `ed25519:${Buffer.from(b64, 'base64').subarray(0, 63).toString('base64')}`],
  ['65 bytes', `ed25519:${Buffer.concat([Buffer.from(b64, 'base64'), Buffer.from([0])]).toString('base64')}`],
];
// The identity point: a key of small order, under which a signature can match any message.
const WEAK_KEY = Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from([1, ...new Array(31).fill(0)])]).toString('base64');

describe('one Ed25519 acceptance rule', () => {
  it('accepts the proper signature at every entry point (the control)', () => {
    expect(checkSignature(signer.publicKeySpki, doctrine.hash, good, portablePrimitives.ed25519Verify)).toBeNull();
    expect(checkSignature(signer.publicKeySpki, doctrine.hash, good, nodePrimitives.ed25519Verify)).toBeNull();
    const out = signOutput(
      { tool: 'doctrine_info', input_hash: `sha256:${'00'.repeat(32)}`, ok: true, result: {} },
      testFooter(signer),
      signer,
    );
    expect(verifyOutput(out.structured).signature_valid).toBe(true);
    const dir = copyDoctrine(MINI_DOCTRINE);
    writeFileSync(
      join(dir, SIGNATURE_FILE),
      JSON.stringify({ doctrine_hash: doctrine.hash, signature: good, public_key: signer.publicKeySpki }),
    );
    expect(() => checkPublisher(loadDoctrine(dir))).not.toThrow();
  });

  it.each(MALFORMED)('refuses a signature with %s everywhere', (_why, signature) => {
    // The rule, with either set of primitives.
    for (const p of [portablePrimitives, nodePrimitives]) {
      expect(checkSignature(signer.publicKeySpki, doctrine.hash, signature, p.ed25519Verify)?.reason).toBe('signature_malformed');
    }
    // An output's doctrine signature and output signature (the verifier of outputs and resources).
    const out = signOutput(
      { tool: 'doctrine_info', input_hash: `sha256:${'00'.repeat(32)}`, ok: true, result: {} },
      testFooter(signer),
      signer,
    );
    const withDoctrineSig = { ...out.structured, footer: { ...out.structured.footer, doctrine_signature: signature } };
    expect(verifyOutput(withDoctrineSig).reasons.map((r) => r.code)).toContain('doctrine_signature_malformed');
    const withOutputSig = { ...out.structured, footer: { ...out.structured.footer, output_signature: signature } };
    expect(verifyOutput(withOutputSig).reasons.map((r) => r.code)).toContain('output_signature_malformed');
    // The doctrine publisher's signature: refused when the doctrine is loaded (its schema) or checked.
    const dir = copyDoctrine(MINI_DOCTRINE);
    writeFileSync(join(dir, SIGNATURE_FILE), JSON.stringify({ doctrine_hash: doctrine.hash, signature, public_key: signer.publicKeySpki }));
    expect(() => checkPublisher(loadDoctrine(dir))).toThrow(/doctrine\.sig/);
  });

  it('refuses a key of small order everywhere, before any signature is looked at', () => {
    for (const p of [portablePrimitives, nodePrimitives]) {
      expect(checkSignature(WEAK_KEY, doctrine.hash, good, p.ed25519Verify)?.reason).toBe('public_key_weak');
    }
    const out = signOutput(
      { tool: 'doctrine_info', input_hash: `sha256:${'00'.repeat(32)}`, ok: true, result: {} },
      testFooter(signer),
      signer,
    );
    const weak = { ...out.structured, footer: { ...out.structured.footer, doctrine_public_key: WEAK_KEY } };
    expect(verifyOutput(weak).reasons.map((r) => r.code)).toContain('public_key_weak');
    const dir = copyDoctrine(MINI_DOCTRINE);
    writeFileSync(join(dir, SIGNATURE_FILE), JSON.stringify({ doctrine_hash: doctrine.hash, signature: good, public_key: WEAK_KEY }));
    expect(() => checkPublisher(loadDoctrine(dir))).toThrow(/doctrine\.sig public_key is a point of small order/);
  });
});
