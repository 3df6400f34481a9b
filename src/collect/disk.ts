// Reading a collection's files from disk for the CLI: named files always, directories walked
// for the names a collector reads, with bounds (depth, count, size), symbolic links followed
// only inside the root, and `kubectl kustomize` as an optional pre-step.
import { execFileSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Doctrine } from '../doctrine/types.js';
import { SignetError } from '../errors.js';
import { isDockerfileName } from './classify.js';
import { collect, type InputFile, LIMITS } from './index.js';
import { Inputs } from './inputs.js';
import { kustomizationIn } from './kubernetes/load.js';
import type { CollectionOut, SkippedFile } from './types.js';

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'vendor',
  '.venv',
  'venv',
  '__pycache__',
  'target',
  '.terraform',
  'coverage',
  '.next',
]);
/**
 * Directories of tests, left out of a walk as Semgrep's default ignore leaves out test/ and
 * tests/ (plus Go's testdata and Jest's __tests__): their Compose files and manifests are
 * fixtures, often unsafe on purpose, and no deployment. A note names each; naming a file or the
 * directory itself checks it.
 */
const TEST_DIRS = new Set(['test', 'tests', 'testdata', '__tests__']);
const MAX_DEPTH = 16;

/** Editors and agents whose `settings.json` may hold MCP servers: VS Code (`mcp.servers`), Zed (`context_servers`), Gemini CLI. */
// `zed`: Zed's own settings in a dotfiles repository (`config/zed/settings.json`, `.config/zed/`).
const SETTINGS_DIRS = new Set(['.vscode', '.zed', 'zed', '.gemini', '.cursor', '.qwen']);

/**
 * JSON files that may list MCP servers in the `mcpServers` format the clients share: the
 * clients' own names, and those projects give theirs: `mcp_settings.json` (samanhappy/mcphub),
 * `mcp-config.json` (Klavis-AI/klavis), `claude_config_example.json`
 * (BeehiveInnovations/zen-mcp-server), Gemini CLI's `gemini-extension.json`, and a gateway's
 * `config.json` (TBXark/mcp-proxy), and an MCP Bundle's `manifest.json`. What they hold decides
 * whether they are one (classify.ts).
 */
const MAY_CONFIGURE_CLIENT =
  /^(.*mcp.*|.*claude.*|.*(gemini|zed).*settings.*)\.jsonc?$|^(gemini-extension|config|manifest)\.json$|^opencode\.jsonc?$|^(cursor|windsurf|cline|roo|vscode|codex|continue|goose|universal)[\w.-]*\.jsonc?$/;

/** Names a walk reads: what some collector decides facts from. Files named on the command line are always read. */
export function wanted(name: string, parent = ''): boolean {
  const n = name.toLowerCase();
  if (n === 'settings.json' && SETTINGS_DIRS.has(parent)) return true;
  // mcphub.nvim's `~/.config/mcphub/servers.json` (mikedfunk/dots): the `mcpServers` format.
  if (n === 'servers.json' && parent === 'mcphub') return true;
  // The MCP Registry's server.json: how the server is published (registry-server.ts).
  if (n === 'server.json') return true;
  // Amazon Q Developer CLI's agents (`.amazonq/cli-agents/*.json`, `~/.aws/amazonq/cli-agents/`): `mcpServers` each.
  if (n.endsWith('.json') && parent === 'cli-agents') return true;
  // A Claude Code, Codex or Cursor plugin's manifest may list its servers inline (jmagar/unraid-mcp ships two;
  // wonderwhy-er/DesktopCommanderMCP's .cursor-plugin), as may a Claude Code marketplace's plugins.
  if (n === 'plugin.json' && (parent === '.claude-plugin' || parent === '.codex-plugin' || parent === '.cursor-plugin')) return true;
  if (n === 'marketplace.json' && parent === '.claude-plugin') return true;
  return (
    isDockerfileName(n) ||
    /\.ya?ml$/.test(n) ||
    n === '.env' ||
    // What a build context keeps out of the build: a lockfile listed there never reaches it.
    n === '.dockerignore' ||
    // Yarn Berry's settings: `enableScripts: false` turns dependency scripts off.
    n === '.yarnrc.yml' ||
    // npm's and pnpm's settings: `ignore-scripts=true` turns dependency scripts off.
    n === '.npmrc' ||
    /^\.env\.|\.env$/.test(n) ||
    /^(package|package-lock|npm-shrinkwrap)\.json$/.test(n) ||
    // Deno's manifest: whether it imports an MCP SDK.
    /^deno\.jsonc?$/.test(n) ||
    MAY_CONFIGURE_CLIENT.test(n) ||
    n === 'kustomization' ||
    // `nginx.conf.oauth.template` too (HarderBetterFasterStronger/config-1mcp mounts it as the nginx image's template).
    /\.conf(\.[\w-]+)?\.(template|tmpl)$|\.conf(\.(example|sample))?$/.test(n) ||
    n.startsWith('caddyfile') ||
    n.endsWith('.caddyfile') ||
    /\.toml$/.test(n) ||
    /^(go\.mod|go\.sum|yarn\.lock|uv\.lock|poetry\.lock|pnpm-lock\.yaml|cargo\.lock|packages\.lock\.json|bun\.lockb?)$/.test(n) ||
    /^requirements.*\.(txt|in)$/.test(n) ||
    // Java and .NET builds: whether they hold an MCP SDK.
    /^(pom\.xml|build\.gradle(\.kts)?)$|\.csproj$/.test(n) ||
    // Swift, Ruby, PHP and Elixir builds: whether they hold an MCP SDK.
    /^(package\.swift|gemfile|composer\.json|mix\.exs)$/.test(n) ||
    // An image's launcher script (`COPY docker/entrypoint.sh /entrypoint.sh`): the command it ends
    // in, and the user it drops to, decide facts of the image that starts it.
    // Named for what it is anywhere in its name too (nanobot's agent-entrypoint.sh).
    /^(docker-)?(entrypoint|start|run|launch|serve|boot)[\w.-]*\.sh$|[\w.-]entrypoint[\w.-]*\.sh$/.test(n) ||
    // What builds and publishes the project's images (2bytes-org/git-mcp-server's build-docker.sh script
    // runs `docker build -t mcp/git`): a client entry that runs that image runs this project's build.
    /^(build|release|publish|push)[\w.-]*\.sh$|^docker[-_](build|push|publish|release)[\w.-]*\.sh$/.test(n) ||
    n === 'makefile' ||
    // GitHub Copilot's custom agents: MCP servers under `mcp-servers:` in the front matter.
    n.endsWith('.agent.md')
  );
}

export interface DiskRead {
  root: string;
  files: InputFile[];
  skipped: SkippedFile[];
  /** Kustomization directories named on the command line (relative to the root). */
  kustomizations: string[];
  /** Files named on the command line (relative to the root), not found by a walk: one that cannot be read is bad input. */
  named: string[];
  /** How the walk went where it matters: directories of tests left out. */
  notes: { file: string; what: string }[];
}

/** Read `paths` under `root` (absolute or relative to the current directory). Throws SignetError for usage errors. */
export function readPaths(paths: string[], rootOption?: string): DiskRead {
  const cwd = process.cwd();
  let root = resolve(rootOption ?? cwd);
  if (!rootOption && paths.length === 1 && safeIsDir(resolve(paths[0]!))) root = resolve(paths[0]!);
  root = realpathSync(root);
  const files: InputFile[] = [];
  const skipped: SkippedFile[] = [];
  const kustomizations: string[] = [];
  const named: string[] = [];
  const notes: DiskRead['notes'] = [];
  const seen = new Set<string>();
  let total = 0;
  const inside = (p: string) => p === root || p.startsWith(root + sep);
  const rel = (p: string) => relative(root, p).split(sep).join('/');

  const add = (abs: string, isNamed: boolean) => {
    const r = rel(abs);
    if (isNamed && !named.includes(r)) named.push(r);
    if (seen.has(r)) return;
    seen.add(r);
    let st = lstatSync(abs);
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(abs);
      } catch {
        skipped.push({ path: r, reason: 'a symbolic link to nothing' });
        return;
      }
      if (!inside(target)) {
        skipped.push({ path: r, reason: 'a symbolic link out of the root: not followed' });
        return;
      }
      st = statSync(target);
    }
    if (!st.isFile()) {
      if (isNamed) skipped.push({ path: r, reason: 'not a regular file' });
      return;
    }
    if (files.length >= LIMITS.files) throw new SignetError('input_too_large', `more than ${LIMITS.files} files: name fewer paths`);
    if (st.size > LIMITS.fileBytes) {
      skipped.push({ path: r, reason: `larger than ${LIMITS.fileBytes} bytes: not read` });
      return;
    }
    total += st.size;
    if (total > LIMITS.totalBytes)
      throw new SignetError('input_too_large', `the files exceed ${LIMITS.totalBytes} bytes in all: name fewer paths`);
    files.push({ path: r, bytes: readBounded(abs, LIMITS.fileBytes) });
  };

  // inTests: the walk is inside a directory of tests the caller named, so nested ones are read too.
  const walk = (dir: string, depth: number, inTests: boolean) => {
    if (depth > MAX_DEPTH) {
      skipped.push({ path: rel(dir), reason: `deeper than ${MAX_DEPTH} directories: not walked` });
      return;
    }
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (TEST_DIRS.has(e.name) && !inTests)
          notes.push({
            file: rel(abs),
            what: 'not walked: a directory of tests, whose deployments are fixtures; name it or its files to check them',
          });
        else if (e.name === '.devcontainer')
          // VS Code's and GitHub Codespaces' development container: a developer's workstation.
          notes.push({
            file: rel(abs),
            what: 'not walked: a development container (devcontainer.json), a workstation for developing the project and no deployment of it; name it or its files to check them',
          });
        else if (/\{\{.*\}\}|\{%.*%\}/.test(e.name))
          // cookiecutter's {{cookiecutter.project_slug}}, copier's {{ project_name }}: files not yet generated.
          notes.push({
            file: rel(abs),
            what: 'not walked: a project template (its name holds {{ … }}), whose files are no deployment until generated',
          });
        else if (!SKIP_DIRS.has(e.name)) walk(abs, depth + 1, inTests);
      } else if (e.isSymbolicLink()) {
        if (!wanted(e.name, basename(dir))) continue;
        // Another name for a file the walk reads at its own path (microsoft/azure-devops-mcp's
        // .vscode/mcp.json, a link to ../mcp.json): read there once, not as a second configuration.
        const target = realTarget(abs);
        const relTarget = target && inside(target) ? rel(target) : null;
        const walked =
          relTarget !== null &&
          safeIsFile(target!) &&
          wanted(basename(target!), basename(resolve(target!, '..'))) &&
          !relTarget.split('/').some((part) => SKIP_DIRS.has(part) || (TEST_DIRS.has(part) && !inTests));
        if (walked) notes.push({ file: rel(abs), what: `a symbolic link to ${relTarget}, read at its own path` });
        else add(abs, false);
      } else if (e.isFile() && wanted(e.name, basename(dir))) add(abs, false);
    }
  };

  // A directory the caller named that is, or is inside, a directory of tests (`signet check tests/e2e`, say).
  const namedTests = (real: string) => {
    const fromCwd = relative(cwd, real);
    const parts = (fromCwd.startsWith('..') ? relative(root, real) : fromCwd).split(sep);
    return [...parts, basename(real)].some((part) => TEST_DIRS.has(part));
  };
  for (const p of paths) {
    const abs = resolve(cwd, p);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw new SignetError('invalid_arguments', `${p}: no such file or directory`);
    }
    if (!inside(abs) || !inside(real)) throw new SignetError('invalid_arguments', `${p} is outside the root ${root} (set --root)`);
    if (statSync(real).isDirectory()) {
      walk(abs, 0, namedTests(real));
      const r = rel(abs);
      if (r && kustomizationIn(new Inputs(files.map((f) => ({ path: f.path, text: '' }))), r)) kustomizations.push(r);
    } else add(abs, true);
  }
  return { root, files, skipped, kustomizations, named, notes };
}

function realTarget(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function safeIsFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function safeIsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readBounded(path: string, max: number): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(max + 1);
    const n = readSync(fd, buf, 0, max + 1, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * `kubectl kustomize DIR` for each kustomization directory, as one more input file. kubectl is
 * run without a shell, without plugins or exec functions (its defaults), and not at all when a
 * kustomization names a remote resource (it would fetch it). Returns the file and a note.
 */
export function renderKustomization(root: string, dir: string, files: InputFile[]): { file?: InputFile; note: string } {
  const texts = files
    .filter((f) => /(^|\/)(kustomization\.ya?ml|Kustomization)$/.test(f.path))
    .map((f) => Buffer.from(f.bytes).toString('utf8'));
  if (texts.some((t) => /^\s*-\s*(https?:\/\/|git@|github\.com\/)/m.test(t)))
    return { note: 'not rendered: a kustomization names a remote resource, which kubectl would fetch; read from the resources listed' };
  try {
    const out = execFileSync('kubectl', ['kustomize', join(root, dir)], {
      timeout: 30_000,
      maxBuffer: LIMITS.fileBytes,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return {
      file: { path: `${dir ? `${dir}/` : ''}kubectl-kustomize.rendered.yaml`, bytes: out },
      note: 'rendered with kubectl kustomize',
    };
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer };
    const why = e.code === 'ENOENT' ? 'kubectl is not installed' : kubectlError(e.stderr?.toString('utf8') ?? '');
    return { note: `not rendered (${why}); read from the resources listed` };
  }
}

/**
 * Why kubectl refused, from its stderr: the error itself, not the deprecation warnings printed
 * before it (`# Warning: 'bases' is deprecated`), and the message klog wraps (`E1128 … err="…"`).
 */
export function kubectlError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() && !/^#?\s*warning:/i.test(l.trim()));
  const line = lines.find((l) => /^error:|\berr="/i.test(l.trim())) ?? lines[0] ?? 'kubectl failed';
  const wrapped = /\berr="(.*)"\s*$/.exec(line);
  return (wrapped ? wrapped[1]!.replace(/\\"/g, '"') : line.trim()).slice(0, 200);
}

export const isAbsolutePath = isAbsolute;
export const readText = (p: string) => readFileSync(p, 'utf8');

/** The reading options `signet facts collect` and `signet check` share (docs/checking.md). */
export interface DiskCollectOptions {
  root?: string | undefined;
  /** Comma-separated Compose files, one project each. */
  compose?: string[] | undefined;
  /** KEY=VALUE variables for Compose interpolation. */
  env?: string[] | undefined;
  profile?: string[] | undefined;
  server?: string[] | undefined;
  kustomize?: boolean | undefined;
}

/** Reads PATHs from disk (rendering kustomizations with --kustomize) and collects them: the CLI's one way in. */
export function collectFromDisk(paths: string[], opts: DiskCollectOptions, doctrine: Doctrine): CollectionOut {
  return readAndCollect(paths, opts, doctrine).collection;
}

/** collectFromDisk, and the files named on the command line (`signet check` refuses one it cannot read). */
export function readAndCollect(
  paths: string[],
  opts: DiskCollectOptions,
  doctrine: Doctrine,
): { collection: CollectionOut; named: string[] } {
  const env: Record<string, string> = {};
  for (const e of opts.env ?? []) {
    const eq = e.indexOf('=');
    if (eq <= 0) throw new SignetError('invalid_arguments', `--env ${e}: expected KEY=VALUE`);
    env[e.slice(0, eq)] = e.slice(eq + 1);
  }
  const read = readPaths(paths, opts.root);
  const rendered: Record<string, string> = {};
  const notes: { file: string; what: string }[] = [...read.notes];
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
  const compose = (opts.compose ?? []).map((c) =>
    c
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );
  const collection = collect(read.files, {
    doctrine,
    compose,
    env,
    profiles: opts.profile ?? [],
    servers: opts.server ?? [],
    kustomizations: read.kustomizations,
    rendered,
    skipped: read.skipped,
    notes,
    named: read.named,
  });
  return { collection, named: read.named };
}
