// `signet verify`: is this output valid, and signed by a key I trust? Uses the portable
// verifier (the same code as `signet/verify` and the browser page). Exit codes:
// 0 trusted, 1 invalid or untrusted, 2 usage error, 3 consistent but nothing pinned. The same
// for an attestation (a DSSE envelope from `signet check --attest`).
// For a signed verify_output report they are about the report itself; a line under the verdict
// (reported_verdict in --json) says the verdict the report carries and whose keys it rests on.
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { readTrustFile } from '../signing/keyring.js';
import { parseStrictJson } from '../signing/strict-json.js';
import { TrustFileError, trustSet } from '../signing/trust.js';
import { type VerifyReason, type VerifyReport, verifySigned } from '../signing/verify.js';
import { type AttestationReport, isDsseEnvelope, verifyAttestation } from '../signing/verify-attestation.js';

export const EXIT_TRUSTED = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNPINNED = 3;

export interface VerifyCliOptions {
  trust?: string;
  publicKey?: string[];
  doctrineHash?: string[];
  json?: boolean;
  recompute?: boolean;
  arguments?: string;
  doctrine?: string;
}

function readInput(file: string | undefined, what: string): string {
  try {
    return readFileSync(!file || file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new SignetError('invalid_arguments', `cannot read ${what} ${file ?? 'stdin'}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/**
 * An output's own text (a doctrine name, a member name in a reason) with control, zero-width and
 * direction characters shown as \u{…}, as the verification page shows them: an output cannot
 * send escape sequences to the terminal or reorder the line its verdict is on (pen test L4).
 */
function visible(value: string): string {
  return value.replace(
    /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g,
    (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`,
  );
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

export async function verifyCommand(file: string | undefined, options: VerifyCliOptions): Promise<number> {
  if (options.recompute && !options.arguments) {
    process.stderr.write('signet verify: --recompute needs --arguments FILE (the arguments of the call, as JSON)\n');
    return EXIT_USAGE;
  }
  const config = loadConfig();
  const trustPath = options.trust ?? config.trustFile;
  let trust: ReturnType<typeof trustSet>;
  try {
    trust = trustSet({
      files: trustPath ? [readTrustFile(trustPath, options.trust ? '--trust' : 'SIGNET_TRUST_FILE')] : [],
      publicKeys: options.publicKey ?? [],
      doctrineHashes: options.doctrineHash ?? [],
    });
  } catch (err) {
    if (err instanceof TrustFileError || err instanceof SignetError) {
      process.stderr.write(`signet verify: ${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
  // --recompute: the verifier re-derives the signed result once the signatures verify, and
  // decides the verdict with it (signing/verify.ts); here only its inputs are prepared.
  let recompute: ((output: Record<string, unknown>) => VerifyReason[]) | undefined;
  let recomputed = false;
  let argumentsError: string | null = null;
  if (options.recompute) {
    const { loadDoctrine } = await import('../doctrine/load.js');
    const tools = await import('../tools/recompute.js');
    recompute = (output) => {
      // Read only for an output whose signatures verify, as before the verifier decided alone.
      const args = parseStrictJson(readInput(options.arguments, 'arguments'));
      if (!args.ok) {
        argumentsError = args.message;
        return [];
      }
      const differences = tools.recompute(loadDoctrine(options.doctrine ?? config.doctrineDir), output, args.value, {
        maxArgumentBytes: config.maxArgumentBytes,
        maxArgumentDepth: config.maxArgumentDepth,
      });
      recomputed = !differences.some((d) => d.code === 'recompute_unsupported');
      return differences;
    };
  }
  const text = readInput(file, 'output');
  // A DSSE envelope is an attestation (`signet check --attest`): same trust, same exit codes.
  const parsed = parseStrictJson(text);
  if (parsed.ok && isDsseEnvelope(parsed.value)) {
    if (options.recompute) {
      process.stderr.write(
        'signet verify: --recompute is for tool outputs; reproduce an attestation by running the same signet check again\n',
      );
      return EXIT_USAGE;
    }
    return printReport(verifyAttestation(text, { trust }), options, { recomputed: false }, attestationLine);
  }
  const { report, output } = verifySigned(text, { trust, ...(recompute ? { recompute } : {}) });
  if (argumentsError !== null) {
    process.stderr.write(`signet verify: --arguments: ${argumentsError}\n`);
    return EXIT_USAGE;
  }

  const inner = reportedVerdict(report, output);
  return printReport(report, options, { recomputed, ...(inner ? { reported_verdict: inner } : {}) }, () =>
    inner ? describeVerdict(inner) : null,
  );
}

/** Said under an attestation's own verdict: what it attests, about which files. */
function attestationLine(report: VerifyReport): string | null {
  const a = (report as AttestationReport).attestation;
  if (!a) return null;
  const names = a.subjects.map((s) => s.name);
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')}, … (${names.length} files)` : names.join(', ');
  return visible(`  the attestation's verdict: ${a.verdict ?? '?'}, about ${shown}`);
}

/** The verdict line(s), the --json report and the exit code: one shape for outputs and attestations. */
function printReport(
  report: VerifyReport,
  options: VerifyCliOptions,
  extra: { recomputed: boolean; reported_verdict?: unknown },
  under: (report: VerifyReport) => string | null,
): number {
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
          'Pin the signer: --trust FILE (a trust file from `signet trust export`, obtained out of band) or --public-key KEY.\n',
      );
    }
    return EXIT_UNPINNED;
  }
  if (!options.json) process.stderr.write(`invalid:\n${report.reasons.map((r) => `  - ${r.code}: ${visible(r.message)}`).join('\n')}\n`);
  return EXIT_INVALID;
}
