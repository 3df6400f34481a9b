// What a verification says and exits with, for `signet verify` (cli/verify.ts) and the
// verifier package's own bin (cli/verify-bin.ts): one wording, one set of exit codes
// (docs/trust.md). Exit codes: 0 trusted, 1 invalid or untrusted, 2 usage error, 3 consistent
// but nothing pinned; the same for an attestation (a DSSE envelope from `signet check --attest`).
// For a signed verify_output report they are about the report itself; a line under the verdict
// (reported_verdict in --json) says the verdict the report carries and whose keys it rests on.
import { readFileSync } from 'node:fs';
import { SignetError } from '../errors.js';
import { visible } from '../shared/visible.js';
import { readTrustFile } from '../signing/keyring.js';
import { parseStrictJson } from '../signing/strict-json.js';
import { TrustFileError, type TrustSet, trustSet } from '../signing/trust.js';
import { type VerifyOptions, type VerifyReport, verifySigned } from '../signing/verify.js';
import { type AttestationReport, isDsseEnvelope, verifyAttestation } from '../signing/verify-attestation.js';

export const EXIT_TRUSTED = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNPINNED = 3;

/** The pins of a verification: `--trust` (or SIGNET_TRUST_FILE), `--public-key`, `--doctrine-hash`. */
export interface PinOptions {
  trust?: string | undefined;
  publicKey?: string[] | undefined;
  doctrineHash?: string[] | undefined;
}

/** The bytes of a file (or stdin), as they are: the strict reader decides whether they are UTF-8. */
export function readInput(file: string | undefined, what: string): Uint8Array {
  try {
    return readFileSync(!file || file === '-' ? 0 : file);
  } catch (err) {
    throw new SignetError('invalid_arguments', `cannot read ${what} ${file ?? 'stdin'}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** The trust set the options pin, or the usage error to print (exit 2). */
export function pinnedTrust(options: PinOptions, defaultTrustFile: string | undefined): TrustSet | { usage: string } {
  const trustPath = options.trust ?? defaultTrustFile;
  try {
    return trustSet({
      files: trustPath ? [readTrustFile(trustPath, options.trust ? '--trust' : 'SIGNET_TRUST_FILE')] : [],
      publicKeys: options.publicKey ?? [],
      doctrineHashes: options.doctrineHash ?? [],
    });
  } catch (err) {
    if (err instanceof TrustFileError || err instanceof SignetError) return { usage: err.message };
    throw err;
  }
}

function describe(report: VerifyReport): string {
  const s = report.signer;
  const d = report.doctrine;
  return visible(
    `${report.envelope === 'dsse_envelope' ? 'attestation (signet check)' : (report.tool ?? 'output')} signed by ${s?.name ? `"${s.name}" ` : ''}${s?.fingerprint ?? '?'}${s?.status ? ` (${s.status})` : ''} over ${d?.name ?? '?'} ${d?.version ?? '?'} (${d?.hash ?? '?'})`,
  );
}

type ReportTrust = { source: 'server' } | { source: 'caller'; keys_sha256: string } | { source: 'unknown' };

/**
 * The verdict a signed verify_output report carries, and whose keys it rests on; null for
 * other outputs and for reports whose signatures do not verify. Exit code and first line are
 * about the report (a genuine output of the pinned server, or not); this is what the report
 * says about the output it checked, which only the server's own keys make `trusted` (pen test
 * M5). A trust member of another shape is `unknown` (a report from before trust sources).
 */
function reportedVerdict(report: VerifyReport, output: Record<string, unknown> | null): { status: string; trust: ReportTrust } | null {
  if (report.tool !== 'verify_output' || !report.signature_valid || !output) return null;
  const result = output['result'] as { status?: unknown; trust?: unknown } | undefined;
  if (typeof result?.status !== 'string') return null;
  const t = (result.trust ?? {}) as { source?: unknown; keys_sha256?: unknown };
  const trust: ReportTrust =
    t.source === 'server'
      ? { source: 'server' }
      : t.source === 'caller' && typeof t.keys_sha256 === 'string' && /^sha256:[0-9a-f]{64}$/.test(t.keys_sha256)
        ? { source: 'caller', keys_sha256: t.keys_sha256 }
        : { source: 'unknown' };
  return { status: result.status, trust };
}

/** Said under the report's own verdict: the report's verdict on the output it checked, and on whose keys. */
function describeVerdict(v: { status: string; trust: ReportTrust }): string {
  const whose =
    v.trust.source === 'server'
      ? "the signing server's own keys"
      : v.trust.source === 'caller'
        ? `keys the caller supplied (${v.trust.keys_sha256}), not the signing server's: it vouches for the check, not for them`
        : "keys it does not name (a report from before trust sources): treat them as the caller's";
  return `  the report's verdict on the output it checked: ${visible(v.status)}, by ${whose}`;
}

/** Said under an attestation's own verdict: what it attests, about which files. */
function attestationLine(report: VerifyReport): string | null {
  const a = (report as AttestationReport).attestation;
  if (!a) return null;
  const names = a.subjects.map((s) => s.name);
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')}, … (${names.length} files)` : names.join(', ');
  return visible(`  the attestation's verdict: ${a.verdict ?? '?'}, about ${shown}`);
}

export interface VerdictOptions {
  json?: boolean | undefined;
  /** What to say after "unpinned": how to pin, in this program's options. */
  pinHint: string;
}

/** A verification, ready to print: the report, what --json adds, and the line said under the verdict. */
export interface Verified {
  attestation: boolean;
  report: VerifyReport;
  extra: { recomputed: boolean; reported_verdict?: unknown };
  under: (report: VerifyReport) => string | null;
}

/**
 * Verifies the text of a signed output or of an attestation (a DSSE envelope, told apart by its
 * members). `recompute` (outputs only; an attestation ignores it) re-derives the signed result
 * once the signatures verify, and `recomputed()` then says whether it compared.
 */
export function verifyText(
  text: string | Uint8Array,
  trust: TrustSet,
  recompute?: { recompute: NonNullable<VerifyOptions['recompute']>; recomputed: () => boolean },
): Verified {
  const parsed = parseStrictJson(text);
  if (parsed.ok && isDsseEnvelope(parsed.value))
    return { attestation: true, report: verifyAttestation(text, { trust }), extra: { recomputed: false }, under: attestationLine };
  const { report, output } = verifySigned(text, { trust, ...(recompute ? { recompute: recompute.recompute } : {}) });
  const inner = reportedVerdict(report, output);
  return {
    attestation: false,
    report,
    extra: { recomputed: recompute?.recomputed() ?? false, ...(inner ? { reported_verdict: inner } : {}) },
    under: () => (inner ? describeVerdict(inner) : null),
  };
}

/** The verdict line(s), the --json report and the exit code: one shape for outputs and attestations. */
export function printVerdict({ report, extra, under }: Verified, options: VerdictOptions): number {
  const recomputed = extra.recomputed;
  if (options.json) process.stdout.write(`${JSON.stringify({ ...report, ...extra }, null, 2)}\n`);
  if (report.status === 'trusted') {
    if (!options.json) {
      process.stdout.write(`trusted: ${describe(report)}${recomputed ? '; the result recomputes exactly from the doctrine' : ''}\n`);
      const line = under(report);
      if (line) process.stdout.write(`${line}\n`);
    }
    return EXIT_TRUSTED;
  }
  if (report.status === 'unpinned') {
    if (!options.json) {
      process.stderr.write(
        `unpinned: the signatures are consistent (${describe(report)})${recomputed ? ' and the result recomputes exactly from the doctrine' : ''}, ` +
          'but no signer is pinned, so any key could have made them.\n' +
          `${options.pinHint}\n`,
      );
    }
    return EXIT_UNPINNED;
  }
  if (!options.json) process.stderr.write(`invalid:\n${report.reasons.map((r) => `  - ${r.code}: ${visible(r.message)}`).join('\n')}\n`);
  return EXIT_INVALID;
}
