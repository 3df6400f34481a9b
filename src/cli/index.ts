#!/usr/bin/env node
// `signet`: one entry point, one file per command group. Heavy modules are imported
// lazily so `signet` (stdio) starts fast and `signet verify` loads no server code.
import { Command, CommanderError } from 'commander';
import { SignetError } from '../errors.js';
import { VERSION } from '../version.js';
import type { VerifyCliOptions } from './verify.js';

// The V8 compile cache is enabled by the entry point (start.ts), before this module loads.

function exitWith(code: number | undefined): void {
  if (typeof code === 'number') process.exitCode = code;
}

async function main(argv: string[]): Promise<void> {
  const program = new Command()
    .name('signet')
    .description('MCP server that answers from a versioned doctrine and signs every output with Ed25519')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  const serveAction = async (opts: { http?: boolean; host?: string; port?: string; doctrine?: string }) => {
    const { serve } = await import('./serve.js');
    await serve(opts);
  };

  program
    .command('serve', { isDefault: true })
    .description('serve MCP on stdio (default) or over HTTP with --http / SIGNET_TRANSPORT=http')
    .option('--http', 'serve MCP over HTTP (POST /mcp) instead of stdio')
    .option('--host <host>', 'HTTP listen address (SIGNET_HTTP_HOST, default 127.0.0.1)')
    .option('--port <port>', 'HTTP listen port (SIGNET_HTTP_PORT, default 3000)')
    .option('--doctrine <dir>', 'doctrine folder (SIGNET_DOCTRINE_DIR)')
    .action(serveAction);

  program
    .command('auth-check')
    // The name it had when it checked tokens only.
    .alias('token-verifier')
    .description("the reference proxy's authenticator: API keys and OAuth access tokens for nginx's auth_request (docs/proxy.md)")
    .option('--check-config', 'check the settings and exit: 0 when they are accepted, 1 with the refusal (as nginx -t)')
    .action(async (opts: { checkConfig?: boolean }) => {
      const { authCheck } = await import('./auth-check.js');
      await authCheck(opts);
    });

  const collect = (value: string, previous: string[] = []) => [...previous, value];
  program
    .command('verify')
    .description(
      'verify a signed output (JSON-RPC response, tool result or structuredContent) or a check attestation (DSSE) against pinned signers',
    )
    .argument('[file]', 'file to read, or - for stdin', '-')
    .option('--trust <file>', 'trust file (signet-trust/1) naming the signers to accept (SIGNET_TRUST_FILE)')
    .option('--public-key <spki>', 'accept this signer (base64 DER SPKI); repeatable', collect)
    .option('--doctrine-hash <hash>', 'also require this doctrine hash; repeatable', collect)
    .option('--recompute', 're-run the tool on the doctrine and compare the signed result byte for byte')
    .option('--arguments <file>', 'with --recompute: the arguments of the call (JSON)')
    .option('--doctrine <dir>', 'with --recompute: the doctrine folder (SIGNET_DOCTRINE_DIR, default the bundled one)')
    .option('--json', 'print the report (signet-verify-report/1) as JSON')
    .option('--html', 'print the verification page as one HTML file that works offline (signet verify --html > verify.html)')
    .addHelpText(
      'after',
      '\nExit codes: 0 trusted, 1 invalid or untrusted signer, 2 usage error, 3 signature consistent but no signer pinned.',
    )
    .action(async (file: string, opts: VerifyCliOptions & { html?: boolean }) => {
      if (opts.html) {
        const { standalonePage } = await import('../verify-page/assets.js');
        process.stdout.write(standalonePage());
        return exitWith(0);
      }
      const { verifyCommand } = await import('./verify.js');
      exitWith(await verifyCommand(file, opts));
    });

  const { addCollectOptions } = await import('./facts.js');
  const { addProbeOptions } = await import('./probe.js');
  addProbeOptions(
    addCollectOptions(
      program
        .command('check')
        .description('check a deployment against the doctrine: a verdict per deployment, the worst overall (docs/checking.md)')
        .argument('[paths...]', 'deployment files or directories, read as signet facts collect reads them'),
      "the current directory, so SARIF results land on the repository's files",
    ),
  )
    .option('--facts <file>', 'declared facts (signet-declared/1): what the files cannot show, each with its reason')
    .option('--probe <url>', 'also probe this running MCP endpoint (signet probe) and add the facts its answers decide')
    .option('--probe-deployment <name>', 'the deployment the probed endpoint serves, when the files describe several')
    .option('--format <format>', 'text, json, sarif or junit', 'text')
    .option('--output <file>', 'write the report there instead of to stdout')
    .option('--attest <file>', "also write a signed in-toto attestation (DSSE envelope) with the server's signing key")
    .option('--doctrine <dir>', 'doctrine folder (SIGNET_DOCTRINE_DIR, default the bundled one)')
    .option(
      '--declare-template <file>',
      'also write a declared-facts skeleton with the facts the verdict still needs, their allowed values and descriptions',
    )
    .addHelpText('after', '\nExit codes: 0 pass, 1 fail, 2 bad input or usage, 3 incomplete or limited scope.')
    .action(async (paths: string[], opts: import('./check.js').CheckCliOptions) =>
      exitWith(await (await import('./check.js')).checkCommand(paths, opts)),
    );

  const doctrine = program.command('doctrine').description('inspect, check and sign doctrine folders');
  doctrine
    .command('hash')
    .argument('<dir>')
    .description('print the doctrine hash (sha256 over the manifest)')
    .action(async (dir: string) => exitWith((await import('./doctrine.js')).doctrineHash(dir)));
  doctrine
    .command('manifest')
    .argument('<dir>')
    .description('print the manifest the hash is computed over')
    .action(async (dir: string) => exitWith((await import('./doctrine.js')).doctrineManifest(dir)));
  doctrine
    .command('check')
    .argument('<dir>')
    .option('--publisher-key <spki>', 'require doctrine.sig from this key')
    .description('validate a doctrine folder; every problem is named by file and field')
    .action(async (dir: string, opts: { publisherKey?: string }) =>
      exitWith((await import('./doctrine.js')).doctrineCheck(dir, opts.publisherKey)),
    );
  doctrine
    .command('sign')
    .argument('<dir>')
    .requiredOption('--key <file>', 'publisher private key (PKCS#8 PEM)')
    .description('write DIR/doctrine.sig, the publisher signature the server checks at start')
    .action(async (dir: string, opts: { key: string }) => exitWith((await import('./doctrine.js')).doctrineSign(dir, opts.key)));

  program
    .command('keygen')
    .description('create an Ed25519 signing key (PKCS#8 PEM, mode 0600); refuses to overwrite')
    .requiredOption('--out <file>', 'where to write the key')
    .action(async (opts: { out: string }) => exitWith((await import('./keygen.js')).keygen(opts.out)));

  // Command groups, each registered by its own file the same way.
  (await import('./trust.js')).registerTrustCommands(program, exitWith);
  (await import('./signing-key.js')).registerSigningKeyCommands(program, exitWith);
  (await import('./keys.js')).registerKeyCommands(program, exitWith);
  (await import('./facts.js')).registerFactsCommands(program, exitWith);
  (await import('./probe.js')).registerProbeCommand(program, exitWith);

  await program.parseAsync(argv);
}

main(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
    return;
  }
  if (err instanceof SignetError) {
    process.stderr.write(`signet: ${err.message}\n`);
    for (const d of err.details.slice(0, 50)) process.stderr.write(`  ${d.where ? `${d.where}: ` : ''}${d.message}\n`);
    process.exitCode = 1;
    return;
  }
  process.stderr.write(`signet: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
