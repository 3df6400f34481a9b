// What a container fetches as it starts: the server a package runner launches (`npx -y pkg`,
// `uvx pkg==1.2`), or an install run before the server (`npm install --production && npm start`,
// pnparadise/fetch-mcp-server's pod, on a checkout mounted from the host). The image's tag or
// build then does not fix the server's release.
import { installStep, tooling } from './dockerfile/install-step.js';
import type { DockerfileInfo } from './dockerfile/read.js';
import { analyseLaunch } from './launch.js';
import { repository } from './roles.js';
import type { At, FactSheet } from './sheet.js';
import { commandsOf, shellScript, unwrap } from './shell.js';

/**
 * Language runtimes and distributions, which hold no MCP server of their own: a runner started
 * on one fetches the package. Any other image (a project's own base, `FROM mcp-base:latest`) may
 * have installed it, and npx and uvx then run that copy.
 */
const RUNTIME =
  /^((docker\.io\/)?(library\/)?(node|python|debian|ubuntu|alpine|busybox)|oven\/bun|denoland\/deno|ghcr\.io\/astral-sh\/uv|mcr\.microsoft\.com\/playwright|cgr\.dev\/chainguard\/(node|python|wolfi-base))$/;

/** `uv run` that installs what uv.lock holds or nothing: `--frozen`, `--locked`, `--no-sync`, or their variables. */
function uvRunKeepsLock(w: string[], env: ReadonlyMap<string, string> = new Map()): boolean {
  const own = w.slice(2, w.includes('--') ? w.indexOf('--') : undefined);
  if (own.some((a) => /^--(frozen|locked|no-sync|no-project|script)$/.test(a))) return true;
  return ['UV_FROZEN', 'UV_LOCKED', 'UV_NO_SYNC'].some((k) => /^(1|true|yes)$/i.test(env.get(k) ?? ''));
}

/** The commands a container's words run: the script of `sh -c '…'`, else the words themselves. */
function commandsRun(words: string[]): string[][] {
  const script = shellScript(words);
  if (script !== null) return commandsOf(script).map(unwrap);
  const w = unwrap(words);
  return w.length ? [w] : [];
}

/** The image a container starts from, as far as the files show it. */
export interface StartImage {
  /** The image the final stage starts from (or the image a workload names). */
  base: string | null;
  /** The registry packages the build installs into it. */
  installed: string[];
  /** uv's installs from uv.lock that do not check it against pyproject.toml (`uv sync --frozen`), none checking it. */
  uvFrozenOnly?: boolean;
  /** The image's ENV. */
  env?: ReadonlyMap<string, string>;
}

/**
 * The image a container starts from: its build's final base and installs, or the image it names.
 * `declared`: the packages the project's package.json files name, which a project install (`npm
 * install`, `npm ci`) puts in node_modules, where npx finds them (carlosjperez/SOLARIA-DFO's `npx tsx`).
 */
export function startImage(df: DockerfileInfo | null | undefined, image: string | null, declared: readonly string[] = []): StartImage {
  if (!df) return { base: image, installed: [] };
  const project = df.installs.some((i) => ['npm', 'yarn', 'pnpm', 'bun'].includes(i.tool) && !i.packages?.length);
  const uv = df.installs.filter((i) => i.tool === 'uv' && i.locked);
  return {
    base: df.base?.image ?? null,
    installed: [...df.installs.flatMap((i) => i.packages ?? []), ...(project ? declared : [])],
    uvFrozenOnly: uv.length > 0 && uv.every((i) => !/--locked\b/.test(i.text)),
    env: df.env,
  };
}

/**
 * Sets `supply_chain.deployed_release` from what the container runs as it starts, where that
 * fetches the server: an install whose versions are resolved then (undecided, unless it names each
 * package at an exact version), or a runner's package at its version (floating or exact, as in a
 * client entry) on a runtime image that does not hold it. `what` says whose words they are.
 */
export function startRelease(sheet: FactSheet, words: string[], at: At, what: string, image: StartImage): void {
  for (const w of commandsRun(words)) {
    // `uv run` syncs the project's environment first (inmydata/AgentMCP's `CMD ["uv", "run", …]` after
    // `uv sync --frozen`): a uv.lock the build never checked against pyproject.toml is locked anew
    // at start once they differ, as `uv sync` without --locked would.
    if (w[0] === 'uv' && w[1] === 'run' && image.uvFrozenOnly && !uvRunKeepsLock(w, image.env)) {
      const why = `${what} runs \`uv run\` as it starts, which syncs the environment to pyproject.toml: the uv.lock the build installed with --frozen (never checked against it) is resolved anew where they differ (uv run --frozen, or --locked in the build, makes that impossible)`;
      sheet.set('supply_chain.lockfile_enforced', false, at, why);
      // A release the build already floats stays floating: re-locking can only float it too.
      if (sheet.get('supply_chain.deployed_release') !== 'floating') sheet.reopen('supply_chain.deployed_release', why);
      return;
    }
    const step = installStep(w, at);
    if (step && step.tool !== 'script') {
      if (step.exact)
        sheet.set(
          'supply_chain.deployed_release',
          'exact_version',
          at,
          `${what} runs \`${step.text}\` as it starts: each package at an exact version`,
        );
      // Registry packages by name alone (ajoslin103/MCP-Servers' `npm install -g mcp-server-git &&
      // mcp-server-git`): the newest release each time the container starts, from no lockfile.
      else if (step.packages?.length && !step.locked && !step.projectOnly && !tooling(step)) {
        const why = `${what} runs \`${step.text}\` as it starts`;
        sheet.set('supply_chain.deployed_release', 'floating', at, `${why}: the newest release each time, no version named`);
        sheet.set('supply_chain.lockfile_enforced', false, at, `${why}: packages by name, held to no lockfile`);
        if (step.scriptsDisabled !== null)
          sheet.set(
            'supply_chain.install_scripts_disabled',
            step.scriptsDisabled,
            at,
            step.scriptsDisabled ? `${why}, its install scripts off` : `${why}: their install scripts run`,
          );
      } else
        sheet.reopen(
          'supply_chain.deployed_release',
          `${what} runs \`${step.text}\` as it starts: what it installs is resolved then, from files the image does not fix`,
        );
      return;
    }
    const launch = analyseLaunch(w[0] ?? '', w.slice(1));
    if (!launch.release || !launch.target || launch.docker) continue;
    const name = launch.target.replace(/(?<=.)@.*$|[=<>~!].*$/, '');
    if (image.base === null || !RUNTIME.test(repository(image.base)) || image.installed.includes(name)) return;
    sheet.set('supply_chain.deployed_release', launch.release, at, `${what} starts ${launch.releaseWhy}`);
    return;
  }
}
