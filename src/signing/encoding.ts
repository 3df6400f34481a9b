// Byte/text helpers with no Node built-ins, so the portable verifier can run anywhere
// (browsers, Deno, edge runtimes). atob/btoa are web-standard globals.

const utf8 = new TextEncoder();

export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]!);
  return btoa(bin);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Canonical standard base64 (RFC 4648 §3.5): padding required, no whitespace, and the
 * unused bits of the last character zero, so one byte string has exactly one spelling.
 * null when the text is anything else.
 */
export function base64ToBytes(text: string): Uint8Array | null {
  if (typeof text !== 'string' || !BASE64.test(text)) return null;
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  // atob ignores non-zero padding bits ("AB==" and "AA==" decode alike): re-encode to refuse them.
  return bytesToBase64(out) === text ? out : null;
}

export { isSha256Tag } from '../shared/sha256-tag.js';

export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (let i = 0; i < bytes.length; i++) hex += bytes[i]!.toString(16).padStart(2, '0');
  return hex;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE, AlgorithmIdentifier 1.3.101.112, BIT STRING. */
export const ED25519_SPKI_PREFIX = new Uint8Array([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

/** Raw 32-byte key from base64 SPKI DER (44 bytes); null when it is not an Ed25519 SPKI. */
export function rawKeyFromSpkiBase64(spkiB64: string): Uint8Array | null {
  const der = base64ToBytes(spkiB64);
  if (der?.length !== 44) return null;
  if (!equalBytes(der.subarray(0, 12), ED25519_SPKI_PREFIX)) return null;
  return der.subarray(12);
}
