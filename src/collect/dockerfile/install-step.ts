// One install command read: which tool, held to a lockfile or not, install scripts on or off,
// which packages at which versions. Also installers fetched and piped to a shell.

import type { At } from '../sheet.js';

export interface InstallStep {
  at: At;
  /** `script`: an installer fetched and piped to a shell (`curl -fsSL https://get.pulumi.com | sh`). */
  tool: 'npm' | 'yarn' | 'pnpm' | 'pip' | 'uv' | 'poetry' | 'go' | 'bun' | 'cargo' | 'dotnet' | 'script';
  text: string;
  /**
   * Without a lockfile, resolves the lowest version each reference allows (NuGet), not the newest:
   * the same versions each build unless a reference floats (`1.*`) or a version leaves the feed.
   */
  resolvesLowest?: boolean;
  /** Installs exactly a committed lockfile and fails otherwise. */
  locked: boolean;
  /** Dependency install scripts cannot run in this step (true/false), or null where the tool has none to speak of. */
  scriptsDisabled: boolean | null;
  /** Not held to the lockfile, yet installs its versions while the manifest still matches it (`cargo build` without --locked). */
  followsLockfile?: boolean;
  /** Installs named packages, each at an exact version, their dependencies resolved (`npm install -g pkg@1.4.2`, `pip install pkg==1.4.2`). */
  exact?: boolean;
  /** The registry packages it names, without their versions (`supergateway`, `mcp-server-fetch`). */
  packages?: string[];
  /**
   * Installs only the project from a local path, upgrading nothing (`uv pip install .`): what an
   * earlier install put in the environment stays while it satisfies the project's requirements.
   */
  projectOnly?: boolean;
  /** What its stage (and the stages it is built on) copied from the context before it: the files it can see. */
  copiedBefore?: string[];
}

/** `pkg@1.4.2`, `@scope/pkg@1.4.2`: a registry package at one exact version (not a tag, range, path or URL). */
const npmExact = (spec: string) => /^(@[\w.-]+\/)?[\w.-]+@v?\d+\.\d+\.\d+(-[\w.]+)?(\+[\w.]+)?$/.test(spec);
/** `pkg==1.4.2`, `pkg[extra]==1.4.2` (not `===`, a range, a wildcard or a file). */
const pipExact = (spec: string) => /^[A-Za-z0-9_.-]+(\[[^\]]*\])?==\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?$/i.test(spec);

/**
 * Every package an install names is at an exact version; false when one is not, or when it
 * installs from a manifest or requirements file (what that holds is resolved, not written here).
 */
function exactSpecs(args: string[], exact: (spec: string) => boolean): boolean {
  const specs = specsOf(args);
  return specs !== null && specs.length > 0 && specs.every(exact);
}

/** The names of the registry packages an install names (`@scope/pkg@1.2.3` → `@scope/pkg`, `pkg[x]==1` → `pkg`). */
function packageNames(args: string[]): string[] {
  return (specsOf(args) ?? []).filter((s) => !/^[./]|:\/\//.test(s)).map((s) => s.replace(/^(@?[^@=<>~![\s]+).*$/, '$1'));
}

/** pip's and uv's install of local paths only, with no flag that upgrades or reinstalls what is there. */
function projectOnly(args: string[]): boolean {
  if (args.some((a) => /^(-U|--upgrade|--upgrade-strategy|--force-reinstall|--reinstall|--refresh|-r|--requirement)(=|$)/.test(a)))
    return false;
  // `-e .` is the project too; specsOf skips the flags that take a value (`--target /opt`).
  const specs = specsOf(args.filter((a) => a !== '-e' && a !== '--editable'));
  // A wheel or source archive the build made (`uv pip install dist/*.whl`, Arize-ai/phoenix) is the project too.
  return (
    !!specs?.length &&
    specs.every((s) => /^(\.{1,2}|\.{1,2}\/\S*|\/\S*|\.\[[^\]]*\])$/.test(s) || (!s.includes('://') && /\.(whl|tar\.gz)$/.test(s)))
  );
}

/** What an install names, flags left out; null when it installs from a file list (`-r`, `-c`, `-e`). */
function specsOf(args: string[]): string[] | null {
  const specs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-(r|c|e)$|^--(requirement|constraint|editable)$/.test(a) || /^--(requirement|constraint|editable)=/.test(a)) return null;
    // Flags with a value as the next word (`--prefix /x`, `-i URL`); flags alone take none.
    // uv's `--build-constraints FILE` and `-b FILE` (stickerdaniel/linkedin-mcp-server), `--find-links DIR`, `--python 3.12`.
    if (
      /^(--(prefix|registry|target|index-url|extra-index-url|index|default-index|find-links|cache|userconfig|root|build-constraints?|override|python|python-version|platform|exclude-newer|resolution|prerelease|config-settings?)|-[itb])$/.test(
        a,
      )
    ) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    specs.push(a.replace(/^["']|["']$/g, ''));
  }
  return specs;
}

/**
 * Installers fetched and piped to a shell (`curl -fsSL https://get.pulumi.com | sh`, `wget -qO- URL
 * | sudo bash -s -- v2`): they install whatever the URL serves at build time. NodeSource's setup
 * script only adds an apt repository: what apt then installs is the OS layer, read as apt installs are.
 */
export function fetchedInstallers(shell: string, at: At): InstallStep[] {
  const PIPED =
    /\b(curl|wget)\b[^|;&\n]*?(https?:\/\/[^\s|;&"']+)[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:\/usr\/bin\/)?env\s+(?:-\S+\s+)*(?:\w+=\S*\s+)*)?(?:\/(?:usr\/)?bin\/)?(?:ba|da|z)?sh\b/g;
  return [...shell.replace(/\\\n/g, ' ').matchAll(PIPED)]
    .filter((m) => !/^https?:\/\/(deb|rpm)\.nodesource\.com\//.test(m[2]!))
    .map((m) => ({ at, tool: 'script' as const, text: m[0].replace(/\s+/g, ' ').trim(), locked: false, scriptsDisabled: null }));
}

/** `-mod=mod` or `-mod mod` among a go command's flags. */
const modMod = (args: string[]) =>
  args.some((a, i) => a === '-mod=mod' || a === '--mod=mod' || (/^--?mod$/.test(a) && args[i + 1] === 'mod'));

/** One install command: which tool, locked or not, install scripts on or off. */
export function installStep(w: string[], at: At): InstallStep | null {
  // A tool by its path (nanobot's `/opt/playwright-venv/bin/pip install playwright`) is that tool.
  const tool = /^\/\S*\/((pip|python)[\d.]*|npm|pnpm|yarn|uv|poetry|bun|go|cargo|dotnet)$/.exec(w[0] ?? '');
  if (tool) {
    const step = installStep([tool[1]!.replace(/^pip[\d.]+$/, 'pip3'), ...w.slice(1)], at);
    return step && { ...step, text: w.join(' ') };
  }
  // `python -m uv pip install .` is uv's install, `python -m poetry install` poetry's (pip's is read below).
  if (/^python[\d.]*$/.test(w[0] ?? '') && w[1] === '-m' && ['uv', 'poetry', 'pipx'].includes(w[2] ?? '')) {
    const step = installStep(w.slice(2), at);
    return step && { ...step, text: w.join(' ') };
  }
  // uv's global options before its command (oracle/mcp's `uv --no-cache sync --locked`): the command they precede.
  if (w[0] === 'uv' && /^-/.test(w[1] ?? '')) {
    let i = 1;
    while (i < w.length && w[i]!.startsWith('-')) i += /^--(directory|project|cache-dir|config-file|python|color)$/.test(w[i]!) ? 2 : 1;
    if (i < w.length) {
      const step = installStep(['uv', ...w.slice(i)], at);
      return step && { ...step, text: w.join(' ') };
    }
  }
  const [cmd, sub, ...rest] = w;
  const text = w.join(' ');
  const has = (...flags: string[]) => w.some((x) => flags.some((f) => x === f || x.startsWith(`${f}=`)));
  // `uv pip install -e . --no-deps` (pab1it0/prometheus-mcp-server, after `uv sync --frozen`): the
  // project's own code, with no dependency resolved; what is locked stays locked.
  const pipLike =
    cmd === 'pip' ||
    cmd === 'pip3' ||
    (cmd === 'uv' && sub === 'pip') ||
    (cmd?.startsWith('python') && sub === '-m' && rest[0]?.startsWith('pip'));
  if (pipLike && w.includes('install') && has('--no-deps', '--no-dependencies') && projectOnly(w.slice(w.indexOf('install') + 1)))
    return null;
  // `corepack prepare pnpm@9.15.0 --activate` (jmagar/pulse), `corepack install -g pnpm@9`, `corepack
  // use pnpm@10.1.0`: the package manager, fetched at that version; tooling, which fixes pnpm's policy.
  if (cmd === 'corepack' && (sub === 'prepare' || sub === 'install' || sub === 'use')) {
    const specs = rest.filter((x) => !x.startsWith('-'));
    if (specs.length)
      return {
        at,
        tool: 'npm',
        text,
        locked: false,
        scriptsDisabled: true,
        exact: specs.every((x) => /@\d+\.\d+\.\d+/.test(x)),
        packages: specs.map((x) => x.replace(/@[^@]*$/, '')),
      };
  }
  if (cmd === 'npm' && (sub === 'ci' || sub === 'clean-install' || sub === 'install-clean'))
    return { at, tool: 'npm', text, locked: true, scriptsDisabled: has('--ignore-scripts') };
  // `npm install -g .` (PJW2004/mcp-hub-helm-template, after `npm ci`): a folder outside the global root is
  // linked, its dependencies not installed (npm's install docs, `<folder>`): nothing is resolved.
  const globalFolders =
    has('-g', '--global') &&
    (specsOf(rest) ?? []).length > 0 &&
    (specsOf(rest) ?? []).every((x) => /^(\.{1,2}|\.{1,2}\/\S*|\/\S*)$/.test(x) && !/\.(tgz|tar(\.gz)?)$/.test(x));
  if (cmd === 'npm' && (sub === 'install' || sub === 'i' || sub === 'add') && globalFolders) return null;
  if (cmd === 'npm' && (sub === 'install' || sub === 'i' || sub === 'add'))
    return {
      at,
      tool: 'npm',
      text,
      locked: false,
      scriptsDisabled: has('--ignore-scripts'),
      exact: exactSpecs(rest, npmExact),
      packages: packageNames(rest),
      // `npm install` with no package named installs package-lock.json's versions while package.json still matches it.
      followsLockfile: (specsOf(rest) ?? []).length === 0 && !has('-g', '--global'),
    };
  // Yarn Berry's `yarn workspaces focus --production` (nuggylib/osrs-mcp's final stage) installs one
  // workspace's dependencies as `yarn install` does, and has no flag that holds it to yarn.lock.
  const focus = cmd === 'yarn' && sub === 'workspaces' && rest[0] === 'focus';
  if (cmd === 'yarn' && (sub === undefined || sub === 'install' || sub.startsWith('-') || focus))
    return {
      at,
      tool: 'yarn',
      text,
      locked: has('--frozen-lockfile', '--immutable'),
      scriptsDisabled: has('--ignore-scripts', '--mode=skip-build'),
      followsLockfile: true,
    };
  if (cmd === 'pnpm' && (sub === 'install' || sub === 'i'))
    // pnpm 10 and later run no dependency's scripts unless allowed; the version is not in the line.
    return {
      at,
      tool: 'pnpm',
      text,
      locked: has('--frozen-lockfile'),
      scriptsDisabled: has('--ignore-scripts') ? true : null,
      followsLockfile: (specsOf(rest) ?? []).length === 0,
    };
  // `bun ci` (timescale/pg-aiguide): Bun's `bun install --frozen-lockfile`.
  if (cmd === 'bun' && sub === 'ci') return { at, tool: 'bun', text, locked: true, scriptsDisabled: has('--ignore-scripts') };
  if (cmd === 'bun' && (sub === 'install' || sub === 'i'))
    // Bun runs the lifecycle scripts of the packages on its default trusted list (esbuild, sharp, …)
    // and of those package.json lists in trustedDependencies; --ignore-scripts runs none.
    // Without --frozen-lockfile it keeps bun.lock's versions while package.json still matches them, as npm install does.
    return { at, tool: 'bun', text, locked: has('--frozen-lockfile'), scriptsDisabled: has('--ignore-scripts'), followsLockfile: true };
  if (
    (cmd === 'pip' || cmd === 'pip3' || (cmd?.startsWith('python') && sub === '-m' && rest[0]?.startsWith('pip'))) &&
    w.includes('install')
  )
    return {
      at,
      tool: 'pip',
      text,
      locked: has('--require-hashes'),
      // Building a source distribution runs its build backend: only a wheels-only install runs no dependency code.
      scriptsDisabled: has('--only-binary=:all:', '--only-binary'),
      exact: exactSpecs(w.slice(w.indexOf('install') + 1), pipExact),
      packages: packageNames(w.slice(w.indexOf('install') + 1)),
      projectOnly: projectOnly(w.slice(w.indexOf('install') + 1)),
    };
  // Adding a package resolves its newest release and writes it into the lockfile: whatever was
  // locked before, what this step installs is not (deslicer/mcp-for-splunk's `uv sync --frozen && uv add …`).
  if ((cmd === 'uv' || cmd === 'poetry' || cmd === 'yarn' || cmd === 'pnpm' || cmd === 'bun') && sub === 'add')
    return {
      at,
      tool: cmd === 'poetry' ? 'poetry' : cmd === 'yarn' ? 'yarn' : cmd === 'pnpm' ? 'pnpm' : cmd === 'bun' ? 'bun' : 'uv',
      text,
      locked: false,
      scriptsDisabled:
        cmd === 'bun' ? true : cmd === 'uv' ? has('--no-build') : has('--ignore-scripts') ? true : cmd === 'pnpm' ? null : false,
      packages: packageNames(rest),
    };
  // `uv lock` and `poetry lock` resolve and write the lockfile the install after them follows:
  // the versions a committed one fixes while the manifest still matches it, the newest where none
  // is committed (mindset-dev/bigtorig-mcp-hub's `uv lock && uv sync --frozen`). `--locked` or
  // `--check` only verifies it.
  if ((cmd === 'uv' || cmd === 'poetry') && sub === 'lock')
    return {
      at,
      tool: cmd,
      text,
      locked: has('--locked', '--check', '--frozen'),
      scriptsDisabled: cmd === 'uv' ? has('--no-build') : false,
      followsLockfile: true,
    };
  if (cmd === 'uv' && sub === 'sync')
    return { at, tool: 'uv', text, locked: has('--locked', '--frozen'), scriptsDisabled: has('--no-build'), followsLockfile: true };
  if (cmd === 'uv' && sub === 'pip' && rest[0] === 'install')
    return {
      at,
      tool: 'uv',
      text,
      locked: has('--require-hashes'),
      scriptsDisabled: has('--no-build', '--only-binary'),
      exact: exactSpecs(rest.slice(1), pipExact),
      packages: packageNames(rest.slice(1)),
      projectOnly: projectOnly(rest.slice(1)),
    };
  // A tool installed into its own environment (samanhappy/mcphub's `uv tool install mcp-server-fetch`):
  // resolved from the index like pip, with no lockfile.
  if ((cmd === 'uv' && sub === 'tool' && rest[0] === 'install') || (cmd === 'pipx' && sub === 'install')) {
    const args = cmd === 'uv' ? rest.slice(1) : rest;
    return {
      at,
      tool: cmd === 'uv' ? 'uv' : 'pip',
      text,
      locked: false,
      scriptsDisabled: has('--no-build'),
      exact: exactSpecs(args, pipExact),
      packages: packageNames(args),
    };
  }
  if (cmd === 'poetry' && sub === 'install') return { at, tool: 'poetry', text, locked: true, scriptsDisabled: false };
  // `cargo install --locked cargo-chef` (nicholaswilde/syncthing-mcp-rs): a tool from the registry,
  // built with its own published lockfile, fixed only by --version: a part of the build as a
  // package manager installed to install the rest is, never the project's lockfile.
  if (cmd === 'cargo' && sub === 'install' && !has('--path')) {
    const valued = new Set([
      '--version',
      '--vers',
      '--root',
      '--git',
      '--branch',
      '--tag',
      '--rev',
      '--features',
      '-F',
      '--target',
      '-j',
      '--jobs',
      '--profile',
      '--index',
      '--registry',
      '--bin',
      '--example',
      '--config',
      '-Z',
    ]);
    const crates = rest.filter((x, i) => !x.startsWith('-') && !valued.has(rest[i - 1] ?? '') && x !== '.');
    if (crates.length)
      return {
        at,
        tool: 'cargo',
        text,
        locked: has('--version', '--vers') && !has('--git'),
        exact: has('--version', '--vers') && !has('--git'),
        scriptsDisabled: false,
        packages: crates,
      };
  }
  // Cargo holds a build to Cargo.lock only with --locked (or --frozen); `cargo install` ignores the
  // crate's lockfile without it. Dependencies' build scripts and proc macros always run.
  if (cmd === 'cargo' && (sub === 'build' || sub === 'install' || sub === 'fetch' || sub === 'run'))
    return {
      at,
      tool: 'cargo',
      text,
      locked: has('--locked', '--frozen'),
      scriptsDisabled: false,
      followsLockfile: sub !== 'install' && !has('--locked', '--frozen'),
    };
  // `go mod tidy` rewrites go.mod and go.sum to what the code imports (tendant/postgres-mcp-sse runs it
  // before `go build`): the build that follows is no longer held to the committed go.sum.
  if (cmd === 'go' && sub === 'mod' && rest[0] === 'tidy')
    return { at, tool: 'go', text, locked: false, scriptsDisabled: true, followsLockfile: true };
  // `-mod=mod` turns off the default `-mod=readonly`: the build adds and upgrades requirements in
  // go.mod and go.sum instead of failing on a mismatch, so the committed go.sum no longer holds it.
  if (cmd === 'go' && (sub === 'build' || sub === 'install' || sub === 'run') && modMod(rest))
    return { at, tool: 'go', text, locked: false, scriptsDisabled: true, followsLockfile: true };
  if (cmd === 'go' && (sub === 'build' || sub === 'install' || (sub === 'mod' && rest[0] === 'download')))
    return { at, tool: 'go', text, locked: !/@(latest|master|main)\b/.test(text), scriptsDisabled: true };
  // NuGet: `dotnet restore`, and the restore `dotnet build` and `dotnet publish` run unless told
  // --no-restore, hold to packages.lock.json only in locked mode. Packages' MSBuild targets run in
  // the build, so dependency code runs whatever the flags (lauchacarro/LatinoNETOnline-MCP).
  if (cmd === 'dotnet' && (sub === 'restore' || ((sub === 'build' || sub === 'publish') && !has('--no-restore'))))
    return {
      at,
      tool: 'dotnet',
      text,
      locked: has('--locked-mode') || /RestoreLockedMode=true/i.test(text),
      scriptsDisabled: false,
      followsLockfile: true,
      resolvesLowest: true,
    };
  return null;
}

/** Package managers, build front-ends and backends, installed to install the rest. */
const PACKAGE_MANAGERS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'corepack',
  'bun',
  'pip',
  'uv',
  'poetry',
  'pipx',
  'pdm',
  'hatch',
  'setuptools',
  'wheel',
  // Build backends installed before `pip install -e .` (neo4j-contrib/mcp-neo4j's hatchling).
  'hatchling',
  'flit',
  'flit-core',
  'poetry-core',
  'pdm-backend',
  'build',
  // Cargo's build helpers, installed to build the server (cargo-chef caches its dependencies).
  'cargo-chef',
  'cargo-binstall',
  'sccache',
  // A compiler the build runs on the server's sources (stripe/agent-toolkit's `npm install -g typescript pnpm`).
  'typescript',
  // A monorepo's build runner (cloudflare/mcp-server-cloudflare's `pnpm install turbo --global`, to prune).
  'turbo',
]);

/** An install of package managers or build tools only (`npm install -g pnpm typescript`, `pip install uv`). */
export const tooling = (i: InstallStep) => !!i.packages?.length && i.packages.every((p) => PACKAGE_MANAGERS.has(p));
