// The one rule by which Signet accepts an Ed25519 signature, wherever it checks one: outputs
// and resources (verify.ts), the doctrine publisher's signature (src/doctrine/publisher.ts). The
// key is the canonical base64 of a DER SPKI Ed25519 key that is a proper point (never one of
// small order, under which verifiers disagree); the signature is `ed25519:` and the canonical
// base64 of exactly 64 bytes; and it verifies under strict RFC 8032 (the primitives given:
// @noble/ed25519 with zip215 off, or node:crypto, which is OpenSSL). Portable: no Node built-ins.
import { base64ToBytes, rawKeyFromSpkiBase64, utf8Bytes } from './encoding.js';
import { ED25519_PREFIX } from './format.js';
import { weakPublicKey } from './weak-key.js';

/** Verifies an Ed25519 signature over a message with a raw 32-byte key (strict RFC 8032). */
export type Ed25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

export type Refusal =
  | { reason: 'public_key_malformed'; detail: string }
  | { reason: 'public_key_weak'; detail: string }
  | { reason: 'signature_malformed'; detail: string }
  | { reason: 'signature_invalid'; detail: string };

/** The raw key of an acceptable base64 DER SPKI Ed25519 public key, or why it is refused. */
export function acceptPublicKey(spkiB64: unknown, weakness: (raw: Uint8Array) => string | null = weakPublicKey): Uint8Array | Refusal {
  const raw = typeof spkiB64 === 'string' ? rawKeyFromSpkiBase64(spkiB64) : null;
  if (!raw) return { reason: 'public_key_malformed', detail: 'is not the canonical base64 of a DER SPKI Ed25519 public key' };
  const weak = weakness(raw);
  return weak ? { reason: 'public_key_weak', detail: weak } : raw;
}

/** The 64 bytes of an `ed25519:<canonical base64>` signature, or null. */
export function decodeSignature(value: unknown): Uint8Array | null {
  if (typeof value !== 'string' || !value.startsWith(ED25519_PREFIX)) return null;
  const bytes = base64ToBytes(value.slice(ED25519_PREFIX.length));
  return bytes && bytes.length === 64 ? bytes : null;
}

/** Checks a tagged signature over UTF-8 text: null when accepted, else why not. */
export function checkSignature(publicKeySpki: unknown, text: string, signature: unknown, verify: Ed25519Verify): Refusal | null {
  const key = acceptPublicKey(publicKeySpki);
  if (!(key instanceof Uint8Array)) return key;
  const sig = decodeSignature(signature);
  if (!sig) return { reason: 'signature_malformed', detail: 'is not ed25519:<canonical base64 of 64 bytes>' };
  return verify(sig, utf8Bytes(text), key) ? null : { reason: 'signature_invalid', detail: 'does not verify' };
}
