// `signet facts ...`: facts about a deployment, read from its files (docs/checking.md).
// `facts collect PATH...` prints what the files decide, with sources, as JSON (signet-facts/1).

import type { Command } from 'commander';

import type { DiskCollectOptions } from '../collect/disk.js';

interface CollectCliOptions extends DiskCollectOptions {
  doctrine?: string;
}

const repeat = (value: string, previous: string[] = []) => [...previous, value];

/** The options that say how files are read, shared by `signet facts collect` and `signet check`. */
export function addCollectOptions(command: Command, rootDefault: string): Command {
  return command
    .option('--root <dir>', `paths in the output are relative to this directory (default: ${rootDefault})`)
    .option(
      '--compose <files>',
      'one Compose project made of these files, merged in order (comma-separated, like docker compose -f a -f b); repeatable',
      repeat,
    )
    .option(
      '--env <KEY=VALUE>',
      'a variable for Compose interpolation, as if set in the shell; repeatable (the shell itself is never read)',
      repeat,
    )
    .option('--profile <name>', 'enable a Compose profile; repeatable', repeat)
    .option('--server <name>', 'the service, workload or client entry that is an MCP server (otherwise recognised); repeatable', repeat)
    .option('--kustomize', 'render each kustomization with kubectl kustomize first (else its resources are read as listed)');
}

export function registerFactsCommands(program: Command, exitWith: (code: number | undefined) => void): void {
  const facts = program.command('facts').description('facts about a deployment, read from its files');
  addCollectOptions(
    facts
      .command('collect')
      .description(
        'read deployment files (Compose, Kubernetes, Dockerfiles, nginx, Caddy, MCP client configs, lockfiles) and print the facts they decide',
      )
      .argument('<paths...>', 'files or directories (directories are walked for deployment files)'),
    'the one directory given, else the current directory',
  )
    .option('--doctrine <dir>', 'check the facts against this doctrine (SIGNET_DOCTRINE_DIR, default the bundled one)')
    .addHelpText('after', '\nExit codes: 0 collected, 2 bad input or usage.')
    .action(async (paths: string[], opts: CollectCliOptions) => exitWith(await collectCommand(paths, opts)));
}

async function collectCommand(paths: string[], opts: CollectCliOptions): Promise<number> {
  const { SignetError } = await import('../errors.js');
  try {
    const { collectFromDisk } = await import('../collect/disk.js');
    const { loadDoctrine } = await import('../doctrine/load.js');
    const { DEFAULT_DOCTRINE_DIR } = await import('../config.js');
    const doctrineDir = opts.doctrine ?? process.env['SIGNET_DOCTRINE_DIR'] ?? DEFAULT_DOCTRINE_DIR;
    const out = collectFromDisk(paths, opts, loadDoctrine(doctrineDir));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof SignetError && err.code !== 'internal_error') {
      process.stderr.write(`signet: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
