// `signet/verify`: the portable verifier as a library, for Node, browsers, Deno and edge
// runtimes. No Node built-ins (a test checks the bundle). Semantics: docs/trust.md.
export { REASON_CODES, REPORT_FORMAT, verifyOutput, type ReasonCode, type VerifyOptions, type VerifyReason, type VerifyReport, type VerifyStatus } from './verify.js';
export { TRUST_FORMAT, fingerprint, parseTrustFile, trustSet, TrustFileError, type KeyStatus, type TrustedKey, type TrustFile, type TrustSet } from './trust.js';
export { parseStrictJson } from './strict-json.js';
