// The verifier for Signet's attestations (`signet check --attest`): a DSSE envelope holding an
// in-toto Statement v1 whose predicate is a check (docs/checking.md). Strict the way the output
// verifier is: one reading of the envelope and of the statement, or a reason; and trusting only
// a pinned signer. Portable: no Node built-ins.
import canonicalize from 'canonicalize';
import { isObject } from '../shared/json.js';
import { acceptPublicKey } from './acceptance.js';
import { IN_TOTO_PAYLOAD_TYPE, preAuthEncoding } from './dsse.js';
import { base64ToBytes, isSha256Tag } from './encoding.js';
import { isBytes, parseStrictJson } from './strict-json.js';
import { fingerprint } from './trust.js';
import { invalidReport, judgeSigner, portablePrimitives, type ReasonCode, type VerifyOptions, type VerifyReport } from './verify.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/**
 * Signet's predicate type, a TypeURI in the namespace Signet's JSON Schemas use for their $id
 * (in-toto: "MAY be unresolvable"): what the predicate holds is in docs/checking.md.
 */
export const CHECK_PREDICATE_TYPE = 'https://signet.invalid/predicates/check/v1';

export interface AttestationSummary {
  predicate_type: string | null;
  /** The check's overall verdict, as the predicate says. */
  verdict: string | null;
  /** The files the attestation is about, as `sha256:<hex>`. */
  subjects: { name: string; sha256: string }[];
}

export type AttestationReport = VerifyReport & { attestation: AttestationSummary | null };

const ENVELOPE_MEMBERS = ['payload', 'payloadType', 'signatures'];
const STATEMENT_MEMBERS = new Set(['_type', 'subject', 'predicateType', 'predicate']);

/** Whether a value parsed from JSON text looks like a DSSE envelope (what `signet verify` dispatches on). */
export function isDsseEnvelope(value: unknown): boolean {
  return isObject(value) && 'payloadType' in value && 'signatures' in value;
}

export function verifyAttestation(input: unknown, options: Omit<VerifyOptions, 'recompute'> = {}): AttestationReport {
  const p = options.primitives ?? portablePrimitives;
  const report: AttestationReport = { ...invalidReport([]), envelope: 'dsse_envelope', attestation: null };
  const reason = (code: ReasonCode, message: string) => report.reasons.push({ code, message });
  const done = () => {
    report.signature_valid = report.reasons.length === 0;
    if (report.reasons.length === 0) judgeSigner(report, options.trust);
    return report;
  };

  // 1. The envelope: exactly DSSE's members, one signature, canonical base64.
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
  for (const k of Object.keys(value))
    if (!ENVELOPE_MEMBERS.includes(k)) reason('dsse_malformed', `unexpected member "${k.slice(0, 40)}" in the DSSE envelope`);
  if (value['payloadType'] !== IN_TOTO_PAYLOAD_TYPE) reason('dsse_malformed', `payloadType must be "${IN_TOTO_PAYLOAD_TYPE}"`);
  const payload = typeof value['payload'] === 'string' ? base64ToBytes(value['payload']) : null;
  if (!payload) reason('dsse_malformed', 'payload is not canonical standard base64');
  const sigs = value['signatures'];
  const sig = Array.isArray(sigs) && sigs.length === 1 && isObject(sigs[0]) ? sigs[0] : null;
  if (!sig || Object.keys(sig).some((k) => k !== 'keyid' && k !== 'sig') || typeof sig['keyid'] !== 'string') {
    reason('dsse_malformed', 'signatures must hold exactly one {"keyid", "sig"}: a Signet attestation has one signer');
  }
  const signature = sig && typeof sig['sig'] === 'string' ? base64ToBytes(sig['sig']) : null;
  if (signature?.length !== 64) reason('output_signature_malformed', 'the signature is not the canonical base64 of 64 bytes');
  if (!payload) return report;

  // 2. The statement: strict JSON, canonical, in-toto v1, Signet's predicate.
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(payload);
  } catch {
    reason('statement_malformed', 'the payload is not UTF-8');
    return report;
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) {
    reason(parsed.code, `payload: ${parsed.message}`);
    return report;
  }
  const statement = parsed.value;
  if (!isObject(statement)) {
    reason('statement_malformed', 'the payload is not a JSON object');
    return report;
  }
  if (canonicalize(statement) !== text) reason('text_not_canonical', 'the payload is not canonical JSON (RFC 8785)');
  for (const k of Object.keys(statement))
    if (!STATEMENT_MEMBERS.has(k)) reason('statement_malformed', `unexpected statement member "${k.slice(0, 40)}"`);
  if (statement['_type'] !== STATEMENT_TYPE) reason('statement_malformed', `_type must be "${STATEMENT_TYPE}"`);
  const subjects = Array.isArray(statement['subject']) ? statement['subject'] : null;
  const summary: AttestationSummary = {
    predicate_type: typeof statement['predicateType'] === 'string' ? statement['predicateType'] : null,
    verdict: null,
    subjects: [],
  };
  report.attestation = summary;
  if (!subjects || subjects.length === 0) reason('statement_malformed', 'subject must be a non-empty array');
  for (const s of subjects ?? []) {
    const hex = isObject(s) && isObject(s['digest']) ? s['digest']['sha256'] : undefined;
    if (!isObject(s) || typeof s['name'] !== 'string' || !isSha256Tag(`sha256:${String(hex)}`)) {
      reason('statement_malformed', 'each subject needs a name and digest.sha256 (64 lowercase hex)');
      break;
    }
    summary.subjects.push({ name: s['name'], sha256: `sha256:${hex as string}` });
  }
  if (statement['predicateType'] !== CHECK_PREDICATE_TYPE) {
    reason(
      'predicate_type_unsupported',
      `predicateType ${JSON.stringify(statement['predicateType'] ?? null)} is not ${CHECK_PREDICATE_TYPE}`,
    );
  }
  const predicate = isObject(statement['predicate']) ? statement['predicate'] : null;
  const doctrine = predicate && isObject(predicate['doctrine']) ? predicate['doctrine'] : null;
  const signer = predicate && isObject(predicate['signer']) ? predicate['signer'] : null;
  if (!predicate || !doctrine || !signer) {
    reason('statement_malformed', 'the predicate needs doctrine {name, version, hash} and signer {public_key, keyid}');
    return done();
  }
  summary.verdict = typeof predicate['verdict'] === 'string' ? predicate['verdict'] : null;
  const str = (o: Record<string, unknown>, k: string) => (typeof o[k] === 'string' ? (o[k] as string) : null);
  report.doctrine = { name: str(doctrine, 'name'), version: str(doctrine, 'version'), hash: str(doctrine, 'hash') };
  if (!isSha256Tag(report.doctrine.hash)) reason('doctrine_hash_malformed', 'predicate.doctrine.hash is not sha256:<64 lowercase hex>');

  // 3. The key the predicate names, the keyid that must be its fingerprint, and the signature over PAE.
  const publicKeyB64 = str(signer, 'public_key');
  const accepted = acceptPublicKey(publicKeyB64);
  if (!(accepted instanceof Uint8Array)) {
    reason(accepted.reason as 'public_key_malformed' | 'public_key_weak', `predicate.signer.public_key ${accepted.detail}`);
    return done();
  }
  const print = fingerprint(publicKeyB64!);
  report.signer = { public_key: publicKeyB64!, fingerprint: print, name: null, status: null };
  if (signer['keyid'] !== print || (sig && sig['keyid'] !== print)) {
    reason('dsse_malformed', `the keyid must be the signer's fingerprint ${print}, in the signature and in predicate.signer`);
  }
  if (signature?.length === 64 && !p.ed25519Verify(signature, preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload), accepted)) {
    reason('output_signature_invalid', 'the DSSE signature does not verify over the payload with predicate.signer.public_key');
  }
  return done();
}
