// `signet verify`: is this output (or attestation) valid, and signed by a key I trust? Uses the
// portable verifier (the same code as the verifier package and the browser page); what it prints
// and exits with is cli/verify-verdict.ts, shared with the verifier package's bin.
import { loadConfig } from '../config.js';
import { parseStrictJson } from '../signing/strict-json.js';
import type { VerifyReason } from '../signing/verify.js';
import { EXIT_USAGE, type PinOptions, pinnedTrust, printVerdict, readInput, verifyText } from './verify-verdict.js';

export interface VerifyCliOptions extends PinOptions {
  json?: boolean;
  recompute?: boolean;
  arguments?: string;
  doctrine?: string;
}

export async function verifyCommand(file: string | undefined, options: VerifyCliOptions): Promise<number> {
  if (options.recompute && !options.arguments) {
    process.stderr.write('signet verify: --recompute needs --arguments FILE (the arguments of the call, as JSON)\n');
    return EXIT_USAGE;
  }
  const config = loadConfig();
  const trust = pinnedTrust(options, config.trustFile);
  if ('usage' in trust) {
    process.stderr.write(`signet verify: ${trust.usage}\n`);
    return EXIT_USAGE;
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
  const verified = verifyText(readInput(file, 'output'), trust, recompute ? { recompute, recomputed: () => recomputed } : undefined);
  if (verified.attestation && options.recompute) {
    process.stderr.write(
      'signet verify: --recompute is for tool outputs; reproduce an attestation by running the same signet check again\n',
    );
    return EXIT_USAGE;
  }
  if (argumentsError !== null) {
    process.stderr.write(`signet verify: --arguments: ${argumentsError}\n`);
    return EXIT_USAGE;
  }
  return printVerdict(verified, {
    json: options.json,
    pinHint: 'Pin the signer: --trust FILE (a trust file from `signet trust export`, obtained out of band) or --public-key KEY.',
  });
}
