// The portable verifier as a library (the signet-mcp-verify package), for Node, browsers, Deno and edge
// runtimes. No Node built-ins (a test checks the bundle). Semantics: docs/trust.md.

export { parseStrictJson, strictUtf8 } from './strict-json.js';
export {
  fingerprint,
  type KeyStatus,
  parseTrustFile,
  TRUST_FORMAT,
  type TrustedKey,
  type TrustFile,
  TrustFileError,
  type TrustSet,
  trustSet,
} from './trust.js';
export {
  invalidReport,
  REASON_CODES,
  REPORT_FORMAT,
  type ReasonCode,
  type VerifyOptions,
  type VerifyReason,
  type VerifyReport,
  type VerifyStatus,
  verifyOutput,
} from './verify.js';
export {
  type AttestationReport,
  type AttestationSummary,
  CHECK_PREDICATE_TYPE,
  isDsseEnvelope,
  STATEMENT_TYPE,
  verifyAttestation,
} from './verify-attestation.js';
