// Portable verifier for Signet outputs: @noble/ed25519 + @noble/hashes + a JCS
// implementation, no Node built-ins. It needs nothing from the server: every field it
// checks travels inside the output.
import * as ed from '@noble/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import canonicalize from 'canonicalize';
import { base64ToBytes, bytesToHex, rawKeyFromSpkiBase64, utf8Bytes } from './encoding.js';
import { ED25519_PREFIX, SHA256_PREFIX, SIGNATURE_FORMAT, unsignedView } from './format.js';

ed.hashes.sha512 = sha512;

/** Crypto primitives the checks need; the server may swap in node:crypto for speed. */
export interface VerifyPrimitives {
  /** Verify an Ed25519 signature; `publicKey` is the raw 32-byte key. */
  ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /** Lowercase hex SHA-256 of UTF-8 text. */
  sha256Hex(text: string): string;
}

export const portablePrimitives: VerifyPrimitives = {
  // zip215: false = strict RFC 8032 verification, the same acceptance rule as OpenSSL.
  ed25519Verify: (sig, msg, pub) => {
    try {
      return ed.verify(sig, msg, pub, { zip215: false });
    } catch {
      return false;
    }
  },
  sha256Hex: (text) => bytesToHex(sha256(utf8Bytes(text))),
};

export interface VerifyOptions {
  /** Require this signer (base64 SPKI). Without it, any self-consistent output is "valid". */
  expectedPublicKey?: string | undefined;
  /** Require this doctrine hash. */
  expectedDoctrineHash?: string | undefined;
  primitives?: VerifyPrimitives;
}

export interface VerifyReport {
  valid: boolean;
  /** Why it is not valid; empty when valid. */
  reasons: string[];
  checks: {
    footer_present: boolean;
    signature_format_supported: boolean;
    public_key_well_formed: boolean;
    doctrine_signature_valid: boolean;
    output_hash_matches: boolean;
    output_signature_valid: boolean;
    text_matches_structured_content: boolean | null;
    public_key_matches_expected: boolean | null;
    doctrine_hash_matches_expected: boolean | null;
  };
  tool: string | null;
  doctrine_hash: string | null;
  doctrine_version: string | null;
  public_key: string | null;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/**
 * Accepts what a consumer has in hand: a JSON-RPC response, a CallToolResult, the
 * structuredContent alone, or any of these as a JSON string.
 */
export function extractSignedOutput(input: unknown): { output: Json | null; text: string | null; error?: string } {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { output: null, text: null, error: 'input is not JSON' };
    }
  }
  if (!isObject(value)) return { output: null, text: null, error: 'input is not a JSON object' };
  if (isObject(value['result']) && value['jsonrpc'] === '2.0') value = value['result'];
  const v = value as Json;
  if (isObject(v['structuredContent'])) {
    const content = Array.isArray(v['content']) ? v['content'] : [];
    const textItem = content.find((c) => isObject(c) && c['type'] === 'text') as Json | undefined;
    return { output: v['structuredContent'] as Json, text: textItem ? str(textItem['text']) : null };
  }
  if (isObject(v['footer'])) return { output: v, text: null };
  // A CallToolResult that only has the text content.
  if (Array.isArray(v['content'])) {
    const textItem = v['content'].find((c) => isObject(c) && c['type'] === 'text') as Json | undefined;
    const text = textItem ? str(textItem['text']) : null;
    if (text !== null) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (isObject(parsed)) return { output: parsed, text };
      } catch {
        /* fall through */
      }
    }
  }
  return { output: null, text: null, error: 'no signed output found (expected structuredContent with a footer)' };
}

function decodeSignature(value: unknown): Uint8Array | null {
  const s = str(value);
  if (s === null || !s.startsWith(ED25519_PREFIX)) return null;
  const bytes = base64ToBytes(s.slice(ED25519_PREFIX.length));
  return bytes && bytes.length === 64 ? bytes : null;
}

export function verifyOutput(input: unknown, options: VerifyOptions = {}): VerifyReport {
  const p = options.primitives ?? portablePrimitives;
  const reasons: string[] = [];
  const checks: VerifyReport['checks'] = {
    footer_present: false,
    signature_format_supported: false,
    public_key_well_formed: false,
    doctrine_signature_valid: false,
    output_hash_matches: false,
    output_signature_valid: false,
    text_matches_structured_content: null,
    public_key_matches_expected: null,
    doctrine_hash_matches_expected: null,
  };
  const report = (): VerifyReport => ({
    valid: reasons.length === 0,
    reasons,
    checks,
    tool: output ? str(output['tool']) : null,
    doctrine_hash: footer ? str(footer['doctrine_hash']) : null,
    doctrine_version: footer ? str(footer['doctrine_version']) : null,
    public_key: footer ? str(footer['doctrine_public_key']) : null,
  });

  const { output, text, error } = extractSignedOutput(input);
  const footer = output && isObject(output['footer']) ? (output['footer'] as Json) : null;
  if (!output || !footer) {
    reasons.push(error ?? 'output has no footer object');
    return report();
  }
  checks.footer_present = true;

  if (footer['signature_format'] === SIGNATURE_FORMAT) checks.signature_format_supported = true;
  else reasons.push(`unsupported signature_format ${JSON.stringify(footer['signature_format'] ?? null)} (expected ${SIGNATURE_FORMAT})`);

  const publicKeyB64 = str(footer['doctrine_public_key']);
  const publicKey = publicKeyB64 ? rawKeyFromSpkiBase64(publicKeyB64) : null;
  if (publicKey) checks.public_key_well_formed = true;
  else reasons.push('doctrine_public_key is not a base64 DER SPKI Ed25519 public key');

  const doctrineHash = str(footer['doctrine_hash']);
  if (!doctrineHash || !/^sha256:[0-9a-f]{64}$/.test(doctrineHash)) reasons.push('doctrine_hash is not sha256:<64 hex>');
  const doctrineSig = decodeSignature(footer['doctrine_signature']);
  if (!doctrineSig) reasons.push('doctrine_signature is not ed25519:<base64 of 64 bytes>');
  if (publicKey && doctrineHash && doctrineSig) {
    checks.doctrine_signature_valid = p.ed25519Verify(doctrineSig, utf8Bytes(doctrineHash), publicKey);
    if (!checks.doctrine_signature_valid) reasons.push('doctrine_signature does not verify over doctrine_hash with doctrine_public_key');
  }

  const claimedHash = str(footer['output_hash']);
  let recomputed: string | null = null;
  try {
    const canonical = canonicalize(unsignedView(output));
    if (canonical !== undefined) recomputed = SHA256_PREFIX + p.sha256Hex(canonical);
  } catch {
    /* reported below */
  }
  if (recomputed === null) reasons.push('output cannot be canonicalised (RFC 8785)');
  else if (claimedHash !== recomputed) reasons.push('output_hash does not match the canonical output: the output was modified');
  else checks.output_hash_matches = true;

  const outputSig = decodeSignature(footer['output_signature']);
  if (!outputSig) reasons.push('output_signature is not ed25519:<base64 of 64 bytes>');
  if (publicKey && claimedHash && outputSig) {
    checks.output_signature_valid = p.ed25519Verify(outputSig, utf8Bytes(claimedHash), publicKey);
    if (!checks.output_signature_valid) reasons.push('output_signature does not verify over output_hash with doctrine_public_key');
  }

  if (text !== null) {
    let canonicalFull: string | undefined;
    try {
      canonicalFull = canonicalize(output);
    } catch {
      canonicalFull = undefined;
    }
    checks.text_matches_structured_content = canonicalFull === text;
    if (!checks.text_matches_structured_content) reasons.push('text content differs from structuredContent');
  }

  if (options.expectedPublicKey !== undefined) {
    checks.public_key_matches_expected = publicKeyB64 === options.expectedPublicKey;
    if (!checks.public_key_matches_expected) reasons.push('signed by a different key than the expected one');
  }
  if (options.expectedDoctrineHash !== undefined) {
    checks.doctrine_hash_matches_expected = doctrineHash === options.expectedDoctrineHash;
    if (!checks.doctrine_hash_matches_expected) reasons.push('signed over a different doctrine than the expected one');
  }
  return report();
}
