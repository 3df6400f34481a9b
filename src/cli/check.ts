// `signet check`: the CI gate (docs/checking.md). Collects facts from the files, merges the
// declared facts, evaluates each deployment with the doctrine, prints text, JSON, SARIF or
// JUnit, and with --attest writes the signed in-toto attestation. Exit codes: 0 pass, 1 fail,
// 2 bad input or usage, 3 incomplete or limited scope (nothing failed, but not enough to pass).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CheckInput } from '../check/run.js';
import type { DiskCollectOptions } from '../collect/disk.js';
import type { Collection } from '../collect/types.js';
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import type { ProbeCliOptions } from './probe.js';

export const CHECK_FORMATS = ['text', 'json', 'sarif', 'junit'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];
export const EXIT_USAGE = 2;

export interface CheckCliOptions extends DiskCollectOptions, ProbeCliOptions {
  probe?: string;
  probeDeployment?: string;
  facts?: string;
  format?: string;
  output?: string;
  attest?: string;
  doctrine?: string;
  declareTemplate?: string;
}

/** A path as the report names it: relative to the working directory, POSIX separators. */
export function reportPath(path: string, cwd = process.cwd()): string {
  const rel = isAbsolute(path) ? relative(cwd, path) : relative(cwd, `${cwd}${sep}${path}`);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

/** A declared-facts file: a regular file of at most MAX_DECLARED_BYTES, checked before it is read (never /dev/zero or a FIFO). */
function readBytes(path: string, what: string, max: number): Uint8Array {
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new SignetError('invalid_arguments', `${what} ${path} is not a regular file`);
    if (st.size > max)
      throw new SignetError('invalid_arguments', `${what} ${path} is larger than ${max} bytes: a declared-facts file states a few facts`);
    return readFileSync(path);
  } catch (err) {
    if (err instanceof SignetError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    // A first run in CI has no declared-facts file yet: say which command writes one.
    const hint =
      code === 'ENOENT' && what === '--facts' ? ` (no such file: write one with signet check PATH... --declare-template ${path})` : '';
    throw new SignetError('invalid_arguments', `cannot read ${what} ${path}: ${code}${hint}`);
  }
}

function write(path: string, text: string, what: string): void {
  try {
    writeFileSync(path, text);
  } catch (err) {
    throw new SignetError('invalid_arguments', `cannot write ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

function usage(message: string): number {
  process.stderr.write(
    `signet check: ${message}\nUsage: signet check [PATH...] [--facts FILE] [--probe URL [--key K|--token T]] [--format text|json|sarif|junit] [--output FILE] [--attest FILE]\n`,
  );
  return EXIT_USAGE;
}

export async function checkCommand(paths: string[], options: CheckCliOptions): Promise<number> {
  const format = (options.format ?? 'text') as CheckFormat;
  if (!CHECK_FORMATS.includes(format))
    return usage(`--format must be one of ${CHECK_FORMATS.join(', ')}, not ${JSON.stringify(options.format)}`);
  if (paths.length === 0 && !options.facts && !options.probe)
    return usage(
      'give the deployment to check: its files (PATH...), declared facts (--facts FILE), a running endpoint (--probe URL), or several',
    );
  if (options.probeDeployment && !options.probe)
    return usage('--probe-deployment names the deployment --probe URL serves: give --probe too');
  try {
    const config = loadConfig();
    const { loadDoctrine } = await import('../doctrine/load.js');
    const { checkPinnedHash, checkPublisher } = await import('../doctrine/publisher.js');
    const { MAX_DECLARED_BYTES, parseDeclared } = await import('../check/declared.js');
    const { refuseNamedSkips, runCheck } = await import('../check/run.js');
    const { exitCodeOf } = await import('../check/report.js');
    // The doctrine the server would serve, held to the same pins.
    const doctrine = loadDoctrine(options.doctrine ?? config.doctrineDir);
    checkPublisher(doctrine, config.doctrinePublisherKey);
    checkPinnedHash(doctrine, config.doctrineHash);
    // Paths in the report are relative to the root: the working directory by default (the
    // repository's root in CI), so SARIF results land on the files a code scanner shows.
    const root = resolve(options.root ?? '.');
    const { collection, named }: { collection: Collection; named: string[] } =
      paths.length > 0
        ? (await import('../collect/disk.js')).readAndCollect(paths, { ...options, root }, doctrine)
        : { collection: { format: 'signet-facts/1', files: [], deployments: [] }, named: [] };
    // Before the probe: a file named that cannot be read stops the check (exit 2) without a request sent.
    refuseNamedSkips(collection, named);
    const declared = options.facts
      ? parseDeclared(doctrine, reportPath(resolve(options.facts), root), readBytes(options.facts, '--facts', MAX_DECLARED_BYTES))
      : null;
    // The probe last: it is the only step that talks to the network, and only to that origin.
    let probe: CheckInput['probe'] = null;
    if (options.probe) {
      const { probeOptionsFrom } = await import('./probe.js');
      const probeOptions = await probeOptionsFrom(options.probe, options);
      const result = await (await import('../probe/probe.js')).probe(options.probe, probeOptions);
      probe = {
        deployment: options.probeDeployment ?? null,
        layer: { facts: result.facts, sources: result.sources, undecided: result.undecided, notes: result.notes },
        evidence: result,
      };
    }
    const report = runCheck(doctrine, { collection, declared, probe, named });

    let out: string;
    if (format === 'json') out = `${(await import('../signing/canonical.js')).canonicalJson(report)}\n`;
    else if (format === 'sarif')
      out = `${JSON.stringify((await import('../check/format/sarif.js')).toSarif(report, doctrine, declared), null, 2)}\n`;
    else if (format === 'junit') out = (await import('../check/format/junit.js')).toJunit(report, doctrine, declared);
    else out = (await import('../check/format/text.js')).toText(report, doctrine, declared);

    if (options.attest) {
      const { attest, attestationSigner } = await import('../check/attestation.js');
      const { loadOrCreateSigningKey } = await import('../signing/signing-key.js');
      const { loadServerKeys } = await import('../signing/keyring.js');
      const { Signer } = await import('../signing/signer.js');
      // The server's own key, found the way the server finds it (and refused when revoked, as it is at start).
      const signer = new Signer(loadOrCreateSigningKey({ keyFile: config.signingKeyFile, dataDir: config.dataDir }).key);
      loadServerKeys(signer.publicKeySpki, { dataDir: config.dataDir, trustFile: config.trustFile });
      write(options.attest, attest(report, attestationSigner(signer)), '--attest');
    }
    if (options.declareTemplate) {
      const { declareTemplate } = await import('../check/template.js');
      const t = declareTemplate(report, doctrine, declared);
      write(options.declareTemplate, t.text, '--declare-template');
      const n = new Set([...t.asked.values()].flat()).size;
      process.stderr.write(
        `signet check: ${n === 0 ? 'nothing left to declare' : `${n} fact${n === 1 ? '' : 's'} to declare`} (template written to ${options.declareTemplate})\n`,
      );
    }
    if (options.output) {
      write(options.output, out, '--output');
      process.stderr.write(`signet check: ${report.verdict} (${format} written to ${options.output})\n`);
    } else process.stdout.write(out);
    return exitCodeOf(report.verdict);
  } catch (err) {
    if (!(err instanceof SignetError)) throw err;
    process.stderr.write(`signet check: ${err.message}\n`);
    for (const d of err.details.slice(0, 50)) process.stderr.write(`  ${d.where ? `${d.where}: ` : ''}${d.message}\n`);
    return EXIT_USAGE;
  }
}
