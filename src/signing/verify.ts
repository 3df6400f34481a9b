// The verifier for Signet outputs, shared by `signet verify`, the server's verify_output
// (with node:crypto primitives) and the browser page (docs/trust.md). Portable: no Node
// built-ins. Strict: every output has exactly one reading, or it is refused with a reason.
// Trusting: a consistent signature is not enough; the signer must be pinned.
import * as ed from '@noble/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import canonicalize from 'canonicalize';
import { isObject, type Json } from '../shared/json.js';
import { acceptPublicKey, decodeSignature } from './acceptance.js';
import { bytesToHex, isSha256Tag, utf8Bytes } from './encoding.js';
import { FOOTER_MEMBERS, SHA256_PREFIX, SIGNATURE_FORMAT, SIGNATURE_FORMATS, SIGNED_MESSAGE, unsignedView } from './format.js';
import { isBytes, parseStrictJson } from './strict-json.js';
import { fingerprint, type KeyStatus, type TrustSet } from './trust.js';
import { weakPublicKey } from './weak-key.js';

ed.hashes.sha512 = sha512;

export const REPORT_FORMAT = 'signet-verify-report/1';

/** Crypto primitives the checks need; the server swaps in node:crypto for speed. */
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

/** Every reason a verification can give, stable for machines (docs/trust.md lists them in this order). */
export const REASON_CODES = [
  'not_json',
  'duplicate_member',
  'number_inexact',
  'string_lone_surrogate',
  'not_an_object',
  'no_signed_output',
  'jsonrpc_malformed',
  'jsonrpc_error',
  'envelope_unknown_member',
  'content_not_single_text',
  'text_mismatch',
  'text_not_canonical',
  'is_error_mismatch',
  'result_type_unsupported',
  'unknown_member',
  'body_malformed',
  'footer_malformed',
  'footer_unknown_member',
  'footer_missing_member',
  'unsupported_signature_format',
  'public_key_malformed',
  'public_key_weak',
  'doctrine_hash_malformed',
  'doctrine_signature_malformed',
  'doctrine_signature_invalid',
  'output_hash_malformed',
  'output_hash_mismatch',
  'output_signature_malformed',
  'output_signature_invalid',
  'not_canonicalisable',
  'signer_untrusted',
  'signer_revoked',
  'doctrine_not_pinned',
  'not_pinned',
  'recompute_unsupported',
  'recompute_doctrine_mismatch',
  'recompute_input_hash_mismatch',
  'recompute_mismatch',
  'dsse_malformed',
  'statement_malformed',
  'predicate_type_unsupported',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

export interface VerifyReason {
  code: ReasonCode;
  message: string;
}

export type VerifyStatus = 'trusted' | 'unpinned' | 'invalid';

export interface VerifyReport {
  format: typeof REPORT_FORMAT;
  /** trusted: valid and signed by a pinned key; unpinned: consistent but nothing pinned; invalid: anything else. */
  status: VerifyStatus;
  /** status === 'trusted'. */
  valid: boolean;
  /** The output is well formed and both signatures verify with the key it names (trust aside). */
  signature_valid: boolean;
  /** Empty when trusted. For unpinned, the one reason not_pinned. */
  reasons: VerifyReason[];
  /** What the input was: a JSON-RPC response, a CallToolResult, a structuredContent, a DSSE envelope (an attestation), or null. */
  envelope: 'jsonrpc_response' | 'call_tool_result' | 'structured_content' | 'dsse_envelope' | null;
  tool: string | null;
  ok: boolean | null;
  input_hash: string | null;
  doctrine: { name: string | null; version: string | null; hash: string | null } | null;
  signer: { public_key: string; fingerprint: string; name: string | null; status: KeyStatus | null } | null;
}

export interface VerifyOptions {
  /** The signers (and doctrines) to accept. Without keys in it, a consistent output is "unpinned". */
  trust?: TrustSet | undefined;
  primitives?: VerifyPrimitives;
  /**
   * Re-derives the signed result (`signet verify --recompute`): called once the signatures
   * verify, with the signed output; the differences it returns decide the verdict with the rest.
   */
  recompute?: (output: Record<string, unknown>) => VerifyReason[];
}

const BODY_MEMBERS = new Set(['tool', 'input_hash', 'ok', 'result', 'error', 'footer']);
const RESULT_MEMBERS = new Set(['content', 'structuredContent', 'isError', '_meta', 'resultType']);
const RESPONSE_MEMBERS = new Set(['jsonrpc', 'id', 'result']);

function jcs(value: unknown): string | null {
  try {
    return canonicalize(value) ?? null;
  } catch {
    return null;
  }
}

// Decompressing a point costs more than a hash; outputs of one signer repeat its key.
const weakCache = new Map<string, string | null>();
function weakness(spkiB64: string, raw: Uint8Array): string | null {
  let found = weakCache.get(spkiB64);
  if (found === undefined) {
    found = weakPublicKey(raw);
    if (weakCache.size >= 64) weakCache.clear();
    weakCache.set(spkiB64, found);
  }
  return found;
}

/** An invalid report with these reasons and nothing read yet: where every verification starts. */
export function invalidReport(reasons: VerifyReason[]): VerifyReport {
  return {
    format: REPORT_FORMAT,
    status: 'invalid',
    valid: false,
    signature_valid: false,
    reasons,
    envelope: null,
    tool: null,
    ok: null,
    input_hash: null,
    doctrine: null,
    signer: null,
  };
}

/**
 * Verifies a Signet output: a JSON-RPC response, a CallToolResult, a structuredContent,
 * or the JSON text of any of these (or its bytes, decoded as strict UTF-8). Text is read strictly (duplicate members refused);
 * an object already parsed by someone else cannot show its duplicates any more.
 */
export function verifyOutput(input: unknown, options: VerifyOptions = {}): VerifyReport {
  return verifySigned(input, options).report;
}

/** verifyOutput, plus the signed structuredContent it found (for recomputation). */
export function verifySigned(
  input: unknown,
  options: VerifyOptions = {},
): { report: VerifyReport; output: Record<string, unknown> | null } {
  let found: Json | null = null;
  const report = check(input, options, (o) => (found = o));
  return { report, output: found };
}

function check(input: unknown, options: VerifyOptions, found: (output: Json) => void): VerifyReport {
  const p = options.primitives ?? portablePrimitives;
  const reasons: VerifyReason[] = [];
  const reason = (code: ReasonCode, message: string) => reasons.push({ code, message });
  const report = invalidReport(reasons);

  // 1. One reading of the input.
  let value = input;
  if (typeof input === 'string' || isBytes(input)) {
    const parsed = parseStrictJson(input);
    if (!parsed.ok) {
      reason(parsed.code, parsed.message);
      return report;
    }
    value = parsed.value;
  }
  if (!isObject(value)) {
    reason('not_an_object', 'input is not a JSON object');
    return report;
  }

  // 2. Unwrap the envelope; everything outside the signature must agree with what is inside.
  let output: Json | null = null;
  let text: string | null = null;
  let isError: unknown;
  let envelope = value;
  if ('jsonrpc' in value) {
    report.envelope = 'jsonrpc_response';
    if ('error' in value) reason('jsonrpc_error', 'the JSON-RPC response is an error, not a tool result');
    for (const k of Object.keys(value))
      if (!RESPONSE_MEMBERS.has(k) && k !== 'error')
        reason('jsonrpc_malformed', `unexpected member "${k.slice(0, 40)}" in the JSON-RPC response`);
    if (value['jsonrpc'] !== '2.0') reason('jsonrpc_malformed', 'jsonrpc must be "2.0"');
    const id = value['id'];
    if (!(typeof id === 'string' || typeof id === 'number' || id === null))
      reason('jsonrpc_malformed', 'the JSON-RPC response needs an id: a string, a number or null');
    if (!isObject(value['result'])) {
      if (reasons.length === 0) reason('jsonrpc_malformed', 'the JSON-RPC response has no result object');
      return report;
    }
    envelope = value['result'];
  }
  if ('content' in envelope || 'structuredContent' in envelope) {
    report.envelope ??= 'call_tool_result';
    for (const k of Object.keys(envelope))
      if (!RESULT_MEMBERS.has(k)) reason('envelope_unknown_member', `unexpected member "${k.slice(0, 40)}" in the tool result`);
    if ('resultType' in envelope && envelope['resultType'] !== 'complete')
      reason('result_type_unsupported', 'resultType must be "complete"');
    const content = envelope['content'];
    const item = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
    if (!isObject(item) || item['type'] !== 'text' || typeof item['text'] !== 'string' || Object.keys(item).length !== 2) {
      reason('content_not_single_text', 'content must be exactly one item {"type":"text","text":…} and nothing else');
    } else text = item['text'];
    isError = 'isError' in envelope ? envelope['isError'] : undefined;
    if (isObject(envelope['structuredContent'])) output = envelope['structuredContent'];
    else if ('structuredContent' in envelope) reason('body_malformed', 'structuredContent is not an object');
    else if (text !== null) {
      // Only the text: it is the signed output itself, and must be read strictly and be canonical.
      const parsed = parseStrictJson(text);
      if (!parsed.ok) reason(parsed.code, `content text: ${parsed.message}`);
      else if (!isObject(parsed.value)) reason('no_signed_output', 'content text is not a JSON object');
      else output = parsed.value;
    }
  } else if (report.envelope === 'jsonrpc_response') {
    // A tools/call response carries a tool result: content, not a bare structuredContent.
    reason('content_not_single_text', 'the JSON-RPC result is not a tool result: content must be exactly one text item');
  } else if (isObject(envelope['footer']) || 'footer' in envelope) {
    report.envelope = 'structured_content';
    output = envelope;
  }
  if (!output) {
    if (reasons.length === 0) reason('no_signed_output', 'no signed output found (expected structuredContent with a footer)');
    return report;
  }

  found(output);

  // 3. The body: exactly the members a Signet output has, consistent with each other.
  for (const k of Object.keys(output))
    if (!BODY_MEMBERS.has(k)) reason('unknown_member', `unexpected member "${k.slice(0, 40)}" in the signed output`);
  const tool = output['tool'];
  const ok = output['ok'];
  const inputHash = output['input_hash'];
  report.tool = typeof tool === 'string' ? tool : null;
  report.ok = typeof ok === 'boolean' ? ok : null;
  report.input_hash = typeof inputHash === 'string' ? inputHash : null;
  if (typeof tool !== 'string') reason('body_malformed', 'tool must be a string');
  if (typeof ok !== 'boolean') reason('body_malformed', 'ok must be true or false');
  if (inputHash !== null && !isSha256Tag(inputHash)) reason('body_malformed', 'input_hash must be null or sha256:<64 lowercase hex>');
  if (ok === true && (!('result' in output) || 'error' in output))
    reason('body_malformed', 'ok is true: the output must have a result and no error');
  if (ok === false) {
    const e = output['error'];
    if ('result' in output || !isObject(e) || typeof e['code'] !== 'string' || typeof e['message'] !== 'string') {
      reason('body_malformed', 'ok is false: the output must have an error {code, message, details} and no result');
    }
  }
  if (report.envelope !== 'structured_content' && typeof ok === 'boolean') {
    if (isError === undefined ? !ok : isError !== !ok)
      reason('is_error_mismatch', `isError must be ${!ok} for an output whose ok is ${ok}`);
  }

  // 4. The footer: exactly the members of the format, each in its one spelling.
  const footer = output['footer'];
  if (!isObject(footer)) {
    reason('footer_malformed', 'the output has no footer object');
    return finish(report);
  }
  for (const k of Object.keys(footer))
    if (!(FOOTER_MEMBERS as readonly string[]).includes(k)) reason('footer_unknown_member', `unexpected footer member "${k.slice(0, 40)}"`);
  for (const k of FOOTER_MEMBERS) {
    if (typeof footer[k] !== 'string') reason('footer_missing_member', `footer.${k} is missing or not a string`);
  }
  const str = (k: (typeof FOOTER_MEMBERS)[number]) => (typeof footer[k] === 'string' ? (footer[k] as string) : null);
  report.doctrine = { name: str('doctrine_name'), version: str('doctrine_version'), hash: str('doctrine_hash') };
  const format = footer['signature_format'];
  if (!(SIGNATURE_FORMATS as readonly unknown[]).includes(format)) {
    reason(
      'unsupported_signature_format',
      `unsupported signature_format ${JSON.stringify(format ?? null)} (this verifier reads ${SIGNATURE_FORMATS.join(', ')})`,
    );
  }
  // The bytes each signature is over, by format (SIGNED_MESSAGE; /1: the bare hashes).
  const signedFormat = typeof format === 'string' ? format : SIGNATURE_FORMAT;
  // The acceptance rule of acceptance.ts: a weak key is not used at all (whether a signature
  // "verifies" under it depends on the library).
  const publicKeyB64 = str('doctrine_public_key');
  const accepted = acceptPublicKey(publicKeyB64, (raw) => weakness(publicKeyB64 ?? '', raw));
  const publicKey = accepted instanceof Uint8Array ? accepted : null;
  if (!(accepted instanceof Uint8Array))
    reason(accepted.reason as 'public_key_malformed' | 'public_key_weak', `doctrine_public_key ${accepted.detail}`);
  else if (publicKeyB64) report.signer = { public_key: publicKeyB64, fingerprint: fingerprint(publicKeyB64), name: null, status: null };

  // 5. The two signatures and the hash that binds the output.
  const doctrineHash = str('doctrine_hash');
  if (!isSha256Tag(doctrineHash)) reason('doctrine_hash_malformed', 'doctrine_hash is not sha256:<64 lowercase hex>');
  const doctrineSig = decodeSignature(footer['doctrine_signature']);
  if (!doctrineSig) reason('doctrine_signature_malformed', 'doctrine_signature is not ed25519:<canonical base64 of 64 bytes>');
  if (
    publicKey &&
    isSha256Tag(doctrineHash) &&
    doctrineSig &&
    !p.ed25519Verify(doctrineSig, utf8Bytes(SIGNED_MESSAGE.doctrine(signedFormat, doctrineHash)), publicKey)
  ) {
    reason('doctrine_signature_invalid', 'doctrine_signature does not verify over doctrine_hash with doctrine_public_key');
  }
  const claimedHash = str('output_hash');
  if (!isSha256Tag(claimedHash)) reason('output_hash_malformed', 'output_hash is not sha256:<64 lowercase hex>');
  const canonicalUnsigned = jcs(unsignedView(output));
  if (canonicalUnsigned === null) reason('not_canonicalisable', 'the output cannot be canonicalised (RFC 8785)');
  else if (isSha256Tag(claimedHash) && claimedHash !== SHA256_PREFIX + p.sha256Hex(canonicalUnsigned)) {
    reason('output_hash_mismatch', 'output_hash does not match the canonical output: the output was modified');
  }
  const outputSig = decodeSignature(footer['output_signature']);
  if (!outputSig) reason('output_signature_malformed', 'output_signature is not ed25519:<canonical base64 of 64 bytes>');
  if (
    publicKey &&
    isSha256Tag(claimedHash) &&
    outputSig &&
    !p.ed25519Verify(outputSig, utf8Bytes(SIGNED_MESSAGE.output(signedFormat, claimedHash)), publicKey)
  ) {
    reason('output_signature_invalid', 'output_signature does not verify over output_hash with doctrine_public_key');
  }

  // 6. The text content is the signed bytes themselves: JCS(structuredContent), byte for byte.
  if (text !== null && report.envelope !== 'structured_content') {
    const canonical = jcs(output);
    if (isObject(envelope['structuredContent'])) {
      if (canonical !== text) reason('text_mismatch', 'the text content is not exactly JCS(structuredContent)');
    } else if (canonical !== text) reason('text_not_canonical', 'the text content is not canonical JSON (RFC 8785)');
  }
  return finish(report, options.trust, () => (options.recompute ? options.recompute(output) : []));
}

/**
 * Decides the status, the one place it is decided: invalid on any reason; otherwise trusted
 * only against a pin; and an output whose result does not recompute is invalid whatever the
 * pin says (its differences first, the signer's standing after them).
 */
function finish(report: VerifyReport, trust?: TrustSet, recompute: () => VerifyReason[] = () => []): VerifyReport {
  const reasons = report.reasons;
  report.signature_valid = reasons.length === 0;
  // Only what verified is recomputed: an invalid output is refused already, whatever it says.
  if (reasons.length > 0) return report;
  judgeSigner(report, trust);
  const differences = recompute();
  if (differences.length > 0) {
    reasons.splice(0, reasons.length, ...differences, ...reasons.filter((r) => r.code !== 'not_pinned'));
    report.status = 'invalid';
    report.valid = false;
  }
  return report;
}

/** The signer against the trust set: trusted, unpinned, or invalid with the reason (outputs and attestations alike). */
export function judgeSigner(report: VerifyReport, trust: TrustSet | undefined): void {
  const reasons = report.reasons;
  const signer = report.signer!;
  if (!trust || trust.keys.size === 0) {
    reasons.push({
      code: 'not_pinned',
      message:
        'the signatures are consistent, but no signer is pinned: any key could have made them. Pin the signer with a trust file (signet trust export) or its public key',
    });
    report.status = 'unpinned';
    return;
  }
  const known = trust.keys.get(signer.public_key);
  if (known) {
    signer.name = known.name;
    signer.status = known.status;
  }
  if (!known) reasons.push({ code: 'signer_untrusted', message: `signed by ${signer.fingerprint}, which is not a trusted key` });
  else if (known.status === 'revoked')
    reasons.push({ code: 'signer_revoked', message: `signed by ${signer.fingerprint} ("${known.name}"), which is revoked` });
  if (trust.doctrineHashes && !trust.doctrineHashes.has(report.doctrine?.hash ?? '')) {
    reasons.push({
      code: 'doctrine_not_pinned',
      message: `signed over doctrine ${report.doctrine?.hash ?? '?'}, which is not a pinned doctrine`,
    });
  }
  report.status = reasons.length === 0 ? 'trusted' : 'invalid';
  report.valid = report.status === 'trusted';
}
