import { createHash, createPublicKey, verify as edVerify } from 'node:crypto';
import { ED25519_SPKI_PREFIX } from './encoding.js';
import type { VerifyPrimitives } from './verify.js';

/**
 * node:crypto primitives for the verifier: the same checks as the portable ones, about 20x
 * faster (shared/PERFORMANCE.md). Used where Node runs: the server's verify_output.
 */
export const nodePrimitives: VerifyPrimitives = {
  ed25519Verify(signature, message, publicKey) {
    try {
      const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
      return edVerify(null, message, key, signature);
    } catch {
      return false;
    }
  },
  sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
};

/** Verifies an ed25519:<base64> signature over UTF-8 text with a base64 SPKI key. */
export function verifyTagged(publicKeySpki: string, text: string, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeySpki, 'base64'), format: 'der', type: 'spki' });
    return edVerify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature.replace(/^ed25519:/, ''), 'base64'));
  } catch {
    return false;
  }
}
