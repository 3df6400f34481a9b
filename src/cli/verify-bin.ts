// The verifier package's bin (`npx signet-mcp-verify --trust signet-trust.json answer.json`):
// `signet verify` without the server, for a CI gate or an auditor that holds an output (or a
// `signet check` attestation) and a trust file and nothing else. Same verifier, same words, same exit codes (cli/verify-verdict.ts);
// no --recompute (that needs the doctrine and the tools: `signet verify`). Arguments are read
// with node:util, so the package has no dependency at all (docs/trust.md).
import { parseArgs } from 'node:util';
import { SignetError } from '../errors.js';
import { VERSION } from '../version.js';
import { EXIT_USAGE, pinnedTrust, printVerdict, readInput, verifyText } from './verify-verdict.js';

const NAME = 'signet-mcp-verify';
const USAGE = `Usage: ${NAME} [--trust FILE] [--public-key SPKI]... [--doctrine-hash H]... [--json] [FILE|-]

Verifies a signed Signet output (a JSON-RPC response, a tool result or its structuredContent)
or a \`signet check\` attestation (FILE, or stdin with - or nothing) against the signers you pinned.

  --trust FILE          trust file (signet-trust/1) naming the signers to accept (SIGNET_TRUST_FILE)
  --public-key SPKI     accept this signer (base64 DER SPKI); repeatable
  --doctrine-hash H     also require this doctrine hash; repeatable
  --json                print the report (signet-verify-report/1) as JSON
  -V, --version         print the version
  -h, --help            print this help

Exit codes: 0 trusted, 1 invalid or untrusted signer, 2 usage error, 3 signature consistent but no signer pinned.
`;

function main(argv: string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    process.stderr.write(`${NAME}: ${(err as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write(`${NAME}: one output at a time (got ${positionals.length} files)\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const trust = pinnedTrust(
    { trust: values.trust, publicKey: values['public-key'], doctrineHash: values['doctrine-hash'] },
    process.env['SIGNET_TRUST_FILE'] || undefined,
  );
  if ('usage' in trust) {
    process.stderr.write(`${NAME}: ${trust.usage}\n`);
    return EXIT_USAGE;
  }
  let input: Uint8Array;
  try {
    input = readInput(positionals[0], 'output');
  } catch (err) {
    if (!(err instanceof SignetError)) throw err;
    process.stderr.write(`${NAME}: ${err.message}\n`);
    return 1;
  }
  return printVerdict(verifyText(input, trust), {
    json: values.json,
    pinHint: 'Pin the signer: --trust FILE (the trust file its operator publishes, obtained out of band) or --public-key KEY.',
  });
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      trust: { type: 'string' },
      'public-key': { type: 'string', multiple: true },
      'doctrine-hash': { type: 'string', multiple: true },
      json: { type: 'boolean' },
      version: { type: 'boolean', short: 'V' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

process.exitCode = main(process.argv.slice(2));
