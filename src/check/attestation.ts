// `signet check --attest FILE`: the check as an in-toto Statement v1 (subjects: the files read,
// by sha256) in a DSSE envelope signed with the server's Ed25519 key. Both layers are canonical
// JSON (RFC 8785) and Ed25519 is deterministic, so the same files, doctrine and key give the
// same bytes, from the CLI and from the deployment_check tool alike (docs/checking.md).
import { SignetError } from '../errors.js';
import { canonicalJson } from '../signing/canonical.js';
import { type DsseEnvelope, IN_TOTO_PAYLOAD_TYPE, preAuthEncoding } from '../signing/dsse.js';
import { bytesToBase64, utf8Bytes } from '../signing/encoding.js';
import type { Signer } from '../signing/signer.js';
import { fingerprint } from '../signing/trust.js';
import { CHECK_PREDICATE_TYPE, STATEMENT_TYPE } from '../signing/verify-attestation.js';
import { VERSION } from '../version.js';
import type { CheckReport } from './report.js';

export { CHECK_PREDICATE_TYPE, STATEMENT_TYPE };

/** What signs an attestation: the server's key (Signer), or in a recomputation the signature it carries. */
export interface AttestationSigner {
  /** base64 DER SPKI, as a signed output's doctrine_public_key. */
  publicKey: string;
  /** SHA256:… fingerprint (OpenSSH style): the DSSE keyid. */
  keyid: string;
  sign(pae: Uint8Array): Uint8Array;
}

/** The server's signer as an attestation signer: its key, and the key's fingerprint as keyid. */
export function attestationSigner(signer: Signer): AttestationSigner {
  return { publicKey: signer.publicKeySpki, keyid: fingerprint(signer.publicKeySpki), sign: (pae) => signer.signBytes(pae) };
}

/** The in-toto Statement of a check, as a plain object. */
export function checkStatement(report: CheckReport, signer: { publicKey: string; keyid: string }): Record<string, unknown> {
  if (report.files.length === 0) {
    throw new SignetError('invalid_arguments', 'an attestation is about files: this check read none (give the files, or drop --attest)');
  }
  return {
    _type: STATEMENT_TYPE,
    subject: report.files.map((f) => ({
      name: f.path,
      digest: { sha256: f.sha256.replace(/^sha256:/, '') },
      annotations: { kind: f.kind },
    })),
    predicateType: CHECK_PREDICATE_TYPE,
    predicate: {
      verdict: report.verdict,
      doctrine: report.doctrine,
      deployments: report.deployments.map((d) => ({
        name: d.name,
        verdict: d.verdict,
        facts: d.facts,
        sources: d.sources,
        undecided: d.undecided,
        reasons: d.reasons,
        inexpressible: d.inexpressible,
        counts: d.counts,
        summary: d.summary,
      })),
      skipped: report.skipped,
      notes: report.notes,
      probe: report.probe,
      signer: { public_key: signer.publicKey, keyid: signer.keyid },
      generator: { name: 'signet', version: VERSION },
    },
  };
}

/** The signed DSSE envelope of a check, as canonical JSON text (the attestation file's bytes, without a newline). */
export function attest(report: CheckReport, signer: AttestationSigner): string {
  const payload = utf8Bytes(canonicalJson(checkStatement(report, signer)));
  const sig = signer.sign(preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload));
  const envelope: DsseEnvelope = {
    payload: bytesToBase64(payload),
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    signatures: [{ keyid: signer.keyid, sig: bytesToBase64(sig) }],
  };
  return canonicalJson(envelope);
}
