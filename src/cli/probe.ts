// `signet probe URL`: the bounded live probe of an MCP endpoint (src/probe/, docs/checking.md).
// Exit 0 when it ran (facts it could not decide are listed, not an error), 1 when nothing
// answered at all, 2 for bad usage. A credential comes from --key/--token, a file or the
// environment, and is never printed: the evidence shows it as [credential].
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { SignetError } from '../errors.js';
import type { ProbeCredential, ProbeOptions, ProbeResult } from '../probe/types.js';
import { parseDuration } from '../shared/duration.js';

export const EXIT_USAGE = 2;

export interface ProbeCliOptions {
  key?: string;
  token?: string;
  keyFile?: string;
  tokenFile?: string;
  ca?: string;
  json?: boolean;
  timeout?: string;
  deadline?: string;
  maxRequests?: string;
  rateLimit?: boolean;
}

/** A bearer credential: visible characters only, as an Authorization header can carry it. */
const CREDENTIAL = /^[\x21-\x7e]{1,8192}$/;

function readFrom(path: string, option: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8').trim();
  } catch (err) {
    throw new SignetError('invalid_arguments', `${option}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/**
 * The credential the options name: --key/--token, --key-file/--token-file (`-` for stdin), or
 * SIGNET_PROBE_KEY / SIGNET_PROBE_TOKEN. At most one; its value is never quoted in an error.
 */
export function credentialFrom(opts: ProbeCliOptions, env: NodeJS.ProcessEnv = process.env): ProbeCredential | undefined {
  const given: { kind: 'key' | 'token'; from: string; read: () => string }[] = [];
  if (opts.key !== undefined) given.push({ kind: 'key', from: '--key', read: () => opts.key! });
  if (opts.token !== undefined) given.push({ kind: 'token', from: '--token', read: () => opts.token! });
  if (opts.keyFile !== undefined) given.push({ kind: 'key', from: '--key-file', read: () => readFrom(opts.keyFile!, '--key-file') });
  if (opts.tokenFile !== undefined)
    given.push({ kind: 'token', from: '--token-file', read: () => readFrom(opts.tokenFile!, '--token-file') });
  if (given.length === 0) {
    if (env['SIGNET_PROBE_KEY']) given.push({ kind: 'key', from: 'SIGNET_PROBE_KEY', read: () => env['SIGNET_PROBE_KEY']!.trim() });
    if (env['SIGNET_PROBE_TOKEN']) given.push({ kind: 'token', from: 'SIGNET_PROBE_TOKEN', read: () => env['SIGNET_PROBE_TOKEN']!.trim() });
  }
  if (given.length > 1) throw new SignetError('invalid_arguments', `give one credential, not ${given.map((g) => g.from).join(' and ')}`);
  const [one] = given;
  if (!one) return undefined;
  const value = one.read();
  if (!CREDENTIAL.test(value)) {
    throw new SignetError('invalid_arguments', `${one.from}: a credential is 1 to 8192 visible ASCII characters, without spaces`);
  }
  return { kind: one.kind, value };
}

function positive(text: string, option: string): number {
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1)
    throw new SignetError('invalid_arguments', `${option} takes a whole number from 1 to 9999`);
  return Number(text);
}

export function renderText(r: ProbeResult): string {
  const lines: string[] = [];
  const http = r.evidence.filter((e) => e.kind === 'http').length;
  const handshakes = r.evidence.length - http;
  lines.push(`probe ${r.target} (credential: ${r.credential})`);
  lines.push(
    `${http} requests${handshakes > 0 ? `, ${handshakes} TLS handshakes` : ''}; ${Object.keys(r.sources).length} facts decided, ${r.undecided.length} undecided`,
  );
  lines.push('', 'decided:');
  for (const [path, sources] of Object.entries(r.sources)) {
    const [group, name] = path.split('.') as [string, string];
    const value = (r.facts[group] as Record<string, unknown>)[name];
    lines.push(`  ${path} = ${JSON.stringify(value)}`);
    for (const s of sources) if ('probe' in s) lines.push(`      ${s.probe}: ${s.why}`);
  }
  lines.push('', 'undecided:');
  for (const path of r.undecided) lines.push(`  ${path}: ${r.notes[path]}`);
  for (const x of r.inexpressible) lines.push('', `not expressible as a fact (${x.facts.join(', ')}): ${x.what} [${x.probe}]`);
  return `${lines.join('\n')}\n`;
}

/** The probe's options from the CLI's: the credential, the CA, the bounds. Throws SignetError for usage errors. */
export async function probeOptionsFrom(url: string, opts: ProbeCliOptions): Promise<ProbeOptions> {
  const options: ProbeOptions = {
    credential: credentialFrom(opts),
    ca: opts.ca === undefined ? undefined : readFrom(opts.ca, '--ca'),
    timeoutMs: opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout'),
    deadlineMs: opts.deadline === undefined ? undefined : parseDuration(opts.deadline, '--deadline'),
    maxRequests: opts.maxRequests === undefined ? undefined : positive(opts.maxRequests, '--max-requests'),
    exerciseRateLimit: opts.rateLimit === true,
  };
  if (options.ca !== undefined && !options.ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new SignetError('invalid_arguments', `--ca: ${opts.ca} holds no PEM certificate`);
  }
  const { parseTarget } = await import('../probe/target.js');
  parseTarget(url);
  return options;
}

export async function probeCommand(url: string, opts: ProbeCliOptions): Promise<number> {
  let options: ProbeOptions;
  try {
    options = await probeOptionsFrom(url, opts);
  } catch (err) {
    if (err instanceof SignetError) {
      process.stderr.write(`signet probe: ${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
  const { probe } = await import('../probe/probe.js');
  const started = performance.now();
  const result = await probe(url, options);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderText(result));
  process.stderr.write(`signet probe: ${result.evidence.length} exchanges in ${seconds} s\n`);
  const answered = result.evidence.some((e) =>
    e.kind === 'http' ? e.response !== null : e.outcome === 'accepted' || e.outcome === 'refused',
  );
  return answered ? 0 : 1;
}

/** The options that say how to probe (credential, CA, bounds), shared by `signet probe` and `signet check --probe`. */
export function addProbeOptions(command: Command): Command {
  return command
    .option(
      '--key <key>',
      'an API key or static bearer token (visible to other users in the process list: prefer --key-file or SIGNET_PROBE_KEY)',
    )
    .option('--token <token>', 'an OAuth access token (prefer --token-file or SIGNET_PROBE_TOKEN)')
    .option('--key-file <file>', 'read the key from a file (- for stdin)')
    .option('--token-file <file>', 'read the token from a file (- for stdin)')
    .option('--ca <file>', 'PEM certificates to trust besides the system CAs (a private CA)')
    .option('--timeout <duration>', 'longest wait for one exchange (default 10s)')
    .option('--deadline <duration>', 'longest the whole probe may take (default 90s)')
    .option('--max-requests <n>', 'most connections to open (default 60)')
    .option('--rate-limit', 'also send up to 100 requests with an invalid credential, to see the refused-credential limit trip');
}

export function registerProbeCommand(program: Command, exitWith: (code: number | undefined) => void): void {
  addProbeOptions(
    program
      .command('probe')
      .description('probe a running MCP endpoint: the facts its answers decide, each with the request and response that decided it')
      .argument('<url>', 'the MCP endpoint, e.g. https://mcp.example.org/mcp'),
  )
    .option('--json', 'print the result (signet-probe/1) as JSON: facts, sources, undecided, evidence')
    .addHelpText('after', '\nExit codes: 0 probed, 1 nothing answered, 2 usage error. The credential is never printed.')
    .action(async (url: string, opts: ProbeCliOptions) => exitWith(await probeCommand(url, opts)));
}
