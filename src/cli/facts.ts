// `signet facts ...`: facts about a deployment, read from its files (docs/checking.md).
// `facts collect PATH...` prints what the files decide, with sources, as JSON (signet-facts/1).

import type { Command } from 'commander';

interface CollectCliOptions {
  root?: string;
  compose?: string[];
  env?: string[];
  profile?: string[];
  server?: string[];
  kustomize?: boolean;
  doctrine?: string;
}

const repeat = (value: string, previous: string[] = []) => [...previous, value];

export function registerFactsCommands(program: Command, exitWith: (code: number | undefined) => void): void {
  const facts = program.command('facts').description('facts about a deployment, read from its files');
  facts
    .command('collect')
    .description(
      'read deployment files (Compose, Kubernetes, Dockerfiles, nginx, Caddy, MCP client configs, lockfiles) and print the facts they decide',
    )
    .argument('<paths...>', 'files or directories (directories are walked for deployment files)')
    .option(
      '--root <dir>',
      'paths in the output are relative to this directory (default: the one directory given, else the current directory)',
    )
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
    .option('--kustomize', 'render each kustomization with kubectl kustomize first (else its resources are read as listed)')
    .option('--doctrine <dir>', 'check the facts against this doctrine (SIGNET_DOCTRINE_DIR, default the bundled one)')
    .addHelpText('after', '\nExit codes: 0 collected, 2 bad input or usage.')
    .action(async (paths: string[], opts: CollectCliOptions) => exitWith(await collectCommand(paths, opts)));
}

async function collectCommand(paths: string[], opts: CollectCliOptions): Promise<number> {
  const { SignetError } = await import('../errors.js');
  try {
    const { readPaths, renderKustomization } = await import('../collect/disk.js');
    const { collect } = await import('../collect/index.js');
    const { loadDoctrine } = await import('../doctrine/load.js');
    const { DEFAULT_DOCTRINE_DIR } = await import('../config.js');
    const env: Record<string, string> = {};
    for (const e of opts.env ?? []) {
      const eq = e.indexOf('=');
      if (eq <= 0) throw new SignetError('invalid_arguments', `--env ${e}: expected KEY=VALUE`);
      env[e.slice(0, eq)] = e.slice(eq + 1);
    }
    const read = readPaths(paths, opts.root);
    const rendered: Record<string, string> = {};
    const notes: { file: string; what: string }[] = [];
    if (opts.kustomize) {
      for (const dir of read.kustomizations) {
        const r = renderKustomization(read.root, dir, read.files);
        if (r.file) {
          read.files.push(r.file);
          rendered[dir] = r.file.path;
        }
        notes.push({ file: dir || '.', what: r.note });
      }
    }
    const doctrineDir = opts.doctrine ?? process.env['SIGNET_DOCTRINE_DIR'] ?? DEFAULT_DOCTRINE_DIR;
    const doctrine = loadDoctrine(doctrineDir);
    const compose = (opts.compose ?? []).map((c) =>
      c
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    const out = collect(read.files, {
      doctrine,
      compose,
      env,
      profiles: opts.profile ?? [],
      servers: opts.server ?? [],
      kustomizations: read.kustomizations,
      rendered,
      skipped: read.skipped,
      notes,
    });
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
