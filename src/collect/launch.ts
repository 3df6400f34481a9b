// What a client's command line launches, read without running it: the package and how its
// version is fixed (npx, pnpm dlx, bunx, uvx, pipx), a container and its `docker run` flags,
// a bridge to a remote server (mcp-remote, supergateway, mcp-proxy), or a local program.

import { repository } from './roles.js';
import { commandsOf, shellScript, unwrap, wordsOfLine } from './shell.js';

export type Release = 'floating' | 'exact_version' | 'locked' | 'digest';

export interface DockerRun {
  image: string;
  flags: Map<string, string[]>;
  /** Index in the argument list of each flag (for lines). */
  env: Map<string, string | null>;
}

export interface Launch {
  runner: string;
  /** The package or image launched, as written. */
  target: string | null;
  release: Release | null;
  releaseWhy: string;
  docker: DockerRun | null;
  /** A remote server this stdio process bridges to. */
  bridgeUrl: string | null;
  /** A stdio server re-exposed on a port (supergateway, mcp-proxy in server mode). */
  exposesPort: boolean;
  /**
   * A container the launch runs in that this entry does not start or configure: `docker exec -i
   * NAME cmd` (an existing container) or `docker compose run SERVICE` (a service of a compose file).
   */
  inContainer?: string;
  /** That container by the name the launch gives it, and whether the launch sets its own user (`docker exec -u`). */
  container?: { name: string; user: string | null };
}

/** Packages that run a script file rather than serve anything themselves. */
const SCRIPT_RUNNERS = /^(tsx|ts-node|ts-node-esm|esno|esrun|jiti|node)$/;
const EXACT_NPM = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const BRIDGES = /^(mcp-remote|@modelcontextprotocol\/mcp-remote|supergateway|mcp-proxy|@sparfenyuk\/mcp-proxy)$/;

export function npmSpec(spec: string): { name: string; version: string | null } {
  const at = spec.lastIndexOf('@');
  if (at > 0) return { name: spec.slice(0, at), version: spec.slice(at + 1) };
  return { name: spec, version: null };
}

export function pyPin(spec: string): { name: string; version: string | null } {
  const m = /^([A-Za-z0-9_.\-[\]]+?)(==|@)([^\s,;]+)$/.exec(spec);
  return m ? { name: m[1]!, version: m[3]! } : { name: spec.split(/[<>=~!;\s]/)[0]!, version: /[<>~!]=?|\*/.test(spec) ? 'range' : null };
}

/** How a Python package spec uv or pipx installs at launch is fixed; `what` names the launch in the reason. */
function pyRelease(spec: string, what: string): { release: Release; releaseWhy: string } {
  const { version } = pyPin(spec);
  // `pkg@latest` is uv's newest release, `pkg==1.*` a prefix match: neither is one version.
  const exact = version !== null && version !== 'range' && /^(\d+!)?\d/.test(version) && !version.includes('*');
  return exact
    ? { release: 'exact_version', releaseWhy: `${what}: an exact version, dependencies resolved at launch` }
    : { release: 'floating', releaseWhy: `${what}: no exact version, whatever is newest at launch` };
}

/** How an npm package a runner fetches at launch is fixed; `what` names the launch in the reason. */
function npmRelease(what: string, version: string | null): { release: Release; releaseWhy: string } {
  const exact = version !== null && EXACT_NPM.test(version);
  return exact
    ? { release: 'exact_version', releaseWhy: `${what}: an exact version, its dependencies resolved at launch` }
    : {
        release: 'floating',
        releaseWhy: `${what}: ${version ? `the range or tag "${version}"` : 'no version'}, whatever is newest at launch`,
      };
}

/** The user `-u USER`, `--user=USER` names among a docker command's flags; null when none does. */
function userFlag(flags: string[]): string | null {
  const i = flags.findIndex((a) => /^(-u|--user)(=|$)/.test(a));
  if (i < 0) return null;
  return flags[i]!.includes('=') ? flags[i]!.slice(flags[i]!.indexOf('=') + 1) : (flags[i + 1] ?? null);
}

export function analyseLaunch(command: string, args: string[]): Launch {
  // Windows: `cmd /c npx ...` launches what follows, as words or as one command line
  // (taewook486/real-estate-mcp's `["/c", "npx -y @upstash/context7-mcp@latest"]`).
  if (/^cmd(\.exe)?$/i.test(command) && /^\/c$/i.test(args[0] ?? '') && args[1]) {
    const line = args.length === 2 && /\s/.test(args[1].trim()) ? wordsOfLine(args[1]) : args.slice(1);
    if (line[0]) return analyseLaunch(line[0], line.slice(1));
  }
  // `bash -c "npx -y @stripe/mcp --tools=all"` (derekslenk/airis-mcp-gateway): the script's last
  // command is the server, after what prepares it (`source ~/.env && exec uvx pkg`).
  const script = shellScript([command, ...args]);
  if (script !== null) {
    const last = unwrap(commandsOf(script).at(-1) ?? []);
    if (last[0]) return analyseLaunch(last[0], last.slice(1));
  }
  const runner = command
    .split(/[\\/]/)
    .pop()!
    .replace(/\.(cmd|exe)$/i, '');
  const none: Launch = { runner, target: null, release: null, releaseWhy: '', docker: null, bridgeUrl: null, exposesPort: false };
  // A secrets injector that runs the server after `--` with the secrets in its environment
  // (BartlettUSA/config's `infisical run --projectId=… -- npx -y figma-mcp`, 1Password's `op run --
  // …`, Doppler's, dotenvx's, aws-vault's `exec PROFILE --`): the server is what follows.
  const dash = args.indexOf('--');
  if (
    dash >= 0 &&
    args[dash + 1] !== undefined &&
    (((runner === 'infisical' || runner === 'op' || runner === 'doppler' || runner === 'dotenvx' || runner === 'teller') &&
      args[0] === 'run') ||
      (runner === 'aws-vault' && args[0] === 'exec') ||
      runner === 'dotenv')
  )
    return analyseLaunch(args[dash + 1]!, args.slice(dash + 2));
  const url = args.find((a) => /^https?:\/\//.test(a)) ?? null;
  // mcp-remote's first argument is the server's URL, written or a reference (`${SWAG_MCP_URL}`, jmagar/swag-mcp).
  const remoteUrl = (name: string) =>
    url ??
    (/^(@modelcontextprotocol\/)?mcp-remote$/.test(name) ? (args.find((a) => /^\$\{[^}]+\}|^\$[A-Za-z_]\w*$/.test(a)) ?? null) : null);
  // mcp-remote installed on the machine (`"command": "mcp-remote"`): a local program in front of a remote server.
  if (runner === 'mcp-remote') return { ...none, bridgeUrl: remoteUrl(runner) };
  // Or bundled and run by node (Skyvern-AI/skyvern's MCP Bundle: `node ${__dirname}/node_modules/mcp-remote/dist/proxy.js URL`).
  if (runner === 'node' && /(^|[\\/])node_modules[\\/]mcp-remote[\\/]/.test(args[0] ?? ''))
    return { ...none, bridgeUrl: remoteUrl('mcp-remote') };
  if (runner === 'npx' || runner === 'bunx' || (runner === 'pnpm' && args[0] === 'dlx') || (runner === 'yarn' && args[0] === 'dlx')) {
    const rest = runner === 'pnpm' || runner === 'yarn' ? args.slice(1) : args;
    // npx's own `-p pkg` comes before the command; after it, `-p typescript` is the command's
    // (growthspace-engineering's `npx -y @mizchi/lsmcp -p typescript`).
    const first = npxFirstWord(rest);
    const own = first === -1 ? rest : rest.slice(0, first);
    const p = own.findIndex((a) => a === '-p' || a === '--package');
    const pkgFlag = own.find((a) => a.startsWith('--package='))?.slice(10) ?? (p >= 0 ? own[p + 1] : undefined);
    const spec = pkgFlag ?? npxSpec(rest);
    if (!spec) return none;
    const { name, version } = npmSpec(spec);
    // `npx tsx /path/src/server.ts` (martians-sheep/remote-mcpserver-sample): a TypeScript runner
    // starting a file of the project, a local program whose release the runner does not fix; its
    // own options may come first (`npx -y ts-node --require tsconfig-paths/register` and the file).
    if (!pkgFlag && SCRIPT_RUNNERS.test(name) && /\.(m|c)?[jt]sx?$/.test(runnerScript(rest.slice(rest.indexOf(spec) + 1)))) return none;
    return {
      ...none,
      target: spec,
      ...npmRelease(`${runner} ${spec}`, version),
      bridgeUrl: BRIDGES.test(name) ? remoteUrl(name) : null,
      exposesPort: /^(supergateway)$/.test(name) && rest.some((a) => a === '--port' || a === '--outputTransport'),
    };
  }
  // `go run github.com/acme/mcp/cmd/server@latest` (SamMorrowDrums/mcp-go-starter's server.json): Go
  // fetches that module version at launch, as npx fetches a package; `go run ./cmd/stdio` is a local program.
  if (runner === 'go' && args[0] === 'run') {
    const rest = args.slice(1);
    const spec = rest.find(
      (a, i) => !a.startsWith('-') && !(i > 0 && /^-(C|exec|tags|ldflags|gcflags|asmflags|mod|modfile|overlay|pgo|p)$/.test(rest[i - 1]!)),
    );
    if (!spec?.includes('@') || /^[./]/.test(spec)) return none;
    const version = spec.slice(spec.lastIndexOf('@') + 1);
    // A release or pseudo-version, or a commit, names one module version; `latest`, a branch or a query moves.
    const exact = /^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+incompatible)?$/.test(version) || /^[0-9a-f]{12,40}$/.test(version);
    return {
      ...none,
      target: spec,
      release: exact ? 'exact_version' : 'floating',
      releaseWhy: exact
        ? `go run ${spec}: one module version, its dependencies held by its go.sum`
        : `go run ${spec}: "${version}" moves, whatever it names at launch`,
    };
  }
  // `deno run -A npm:@playwright/mcp@latest` (fredrikaverpil/dotfiles): Deno fetches the npm package
  // as npx does (`jsr:` a JSR one); a local script it runs is the user's program.
  if (runner === 'deno' && args[0] === 'run') {
    const spec = args.slice(1).find((a) => /^(npm|jsr):/.test(a));
    if (!spec) return none;
    const { name, version } = npmSpec(spec.replace(/^(npm|jsr):/, ''));
    return { ...none, target: spec, ...npmRelease(`deno run ${spec}`, version), bridgeUrl: BRIDGES.test(name) ? remoteUrl(name) : null };
  }
  if (runner === 'uvx' || runner === 'pipx' || (runner === 'uv' && args[0] === 'tool' && args[1] === 'run')) {
    let rest = runner === 'pipx' ? args.slice(args[0] === 'run' ? 1 : 0) : runner === 'uv' ? args.slice(2) : args;
    let from: string | undefined;
    const fi = rest.indexOf('--from');
    if (fi >= 0) {
      from = rest[fi + 1];
      rest = [...rest.slice(0, fi), ...rest.slice(fi + 2)];
    }
    // The first word that is neither a flag nor a flag's value (`uvx --with 'mcp<2' mcp-server-time`, av/harbor).
    const spec =
      from ??
      rest.find((a, i) => !a.startsWith('-') && !(i > 0 && (UV_VALUE_FLAGS.has(rest[i - 1]!) || UVX_VALUE_FLAGS.has(rest[i - 1]!))));
    if (!spec) return none;
    if (/^git\+|^https?:|^\.|^\//.test(spec))
      return {
        ...none,
        target: spec,
        release: /@[0-9a-f]{40}$/.test(spec) ? 'exact_version' : 'floating',
        releaseWhy: `${runner} from ${spec}`,
      };
    return { ...none, target: spec, ...pyRelease(spec, `${runner} ${spec}`), bridgeUrl: BRIDGES.test(pyPin(spec).name) ? url : null };
  }
  // .NET 10's `dnx NuGet.Mcp.Server@1.1.29 --yes` (`dotnet tool exec`): a NuGet tool fetched at launch, as npx fetches a package.
  if (runner === 'dnx' || (runner === 'dotnet' && args[0] === 'tool' && args[1] === 'exec')) {
    const rest = runner === 'dnx' ? args : args.slice(2);
    let spec: string | undefined;
    let flagVersion: string | undefined;
    // The tool's own options come before or after the package; its arguments only after `--`.
    for (let i = 0; i < rest.length && rest[i] !== '--'; i++) {
      const a = rest[i]!;
      if (a === '--version') flagVersion = rest[++i];
      else if (/^--(source|add-source|configfile|verbosity|framework|arch)$/.test(a) || a === '-v') i++;
      else if (!a.startsWith('-')) spec ??= a;
    }
    if (!spec) return none;
    const version = spec.includes('@') ? spec.slice(spec.indexOf('@') + 1) : flagVersion;
    const exact = version !== undefined && /^\d+\.\d+\.\d+(\.\d+)?(-[0-9A-Za-z.-]+)?$/.test(version);
    return {
      ...none,
      target: spec,
      release: exact ? 'exact_version' : 'floating',
      releaseWhy: exact
        ? `${runner} ${spec}${flagVersion && !spec.includes('@') ? ` --version ${flagVersion}` : ''}: an exact version, its dependencies resolved at launch`
        : `${runner} ${spec}: ${version ? `the range "${version}"` : 'no version'}, whatever is newest at launch`,
    };
  }
  // `uv run --with pkg pkg`: the program is the package uv installs for the run, as uvx would.
  // Anything else uv runs (a script, a project's entry point) is a local program.
  if (runner === 'uv' && args[0] === 'run') {
    const withs: string[] = [];
    let program: string | undefined;
    let at = 1;
    for (; at < args.length && program === undefined; at++) {
      const a = args[at]!;
      if (a === '--with') withs.push(args[++at] ?? '');
      else if (a.startsWith('--with=')) withs.push(a.slice(7));
      else if (UV_VALUE_FLAGS.has(a)) at++;
      else if (!a.startsWith('-')) program = a;
    }
    // `uv run --with mcp[cli] mcp run server.py` (1mb4dr/mcp-forti): the SDK's CLI runs a local script, the server.
    // FastMCP's CLI the same (`uv run --with fastmcp fastmcp run main.py`).
    if ((program === 'mcp' || program === 'fastmcp') && (args[at] === 'run' || args[at] === 'dev')) return none;
    const norm = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');
    const spec = withs.find((w) => program !== undefined && norm(pyPin(w).name.replace(/\[.*$/, '')) === norm(program));
    return spec ? { ...none, target: spec, ...pyRelease(spec, `uv run --with ${spec}`) } : none;
  }
  // `docker exec -i context7-mcp npx @upstash/context7-mcp` (AT2024/ALA): the command runs in an existing
  // container, read as the command it is; `docker compose run --rm -i mcp-server`: a compose file's service.
  if ((runner === 'docker' || runner === 'podman') && args[0] === 'exec') {
    let i = 1;
    for (; i < args.length && args[i]!.startsWith('-'); i++) if (/^(-e|--env|-u|--user|-w|--workdir|--env-file)$/.test(args[i]!)) i++;
    const name = args[i];
    if (!name || !args[i + 1]) return none;
    return {
      ...analyseLaunch(args[i + 1]!, args.slice(i + 2)),
      runner,
      docker: null,
      inContainer: `${runner} exec into the container ${name}`,
      container: { name, user: userFlag(args.slice(1, i)) },
    };
  }
  if ((runner === 'docker' && args[0] === 'compose' && args[1] === 'run') || (runner === 'docker-compose' && args[0] === 'run')) {
    const rest = args.slice(runner === 'docker' ? 2 : 1);
    const service = rest.find((a) => !a.startsWith('-'));
    return service
      ? {
          ...none,
          inContainer: `${runner === 'docker' ? 'docker compose' : 'docker-compose'} run of the service ${service}`,
          container: { name: `service ${service}`, user: userFlag(rest.slice(0, rest.indexOf(service))) },
        }
      : none;
  }
  if (runner === 'docker' || runner === 'podman') {
    const d = dockerRun(args);
    if (!d) return none;
    const digest = /@sha256:[0-9a-f]{64}$/.test(d.image);
    const tag = /:[^/@]+$/.exec(d.image.split('@')[0]!)?.[0].slice(1);
    // docker.io/library holds only Docker's official images: a bare name (grafana/loki-mcp's
    // `loki-mcp-server:latest`) is an image built locally, which its build fixes, not its tag.
    if (!digest && !repository(d.image).includes('/'))
      return {
        ...none,
        target: d.image,
        releaseWhy: `${runner} run ${d.image}: a name with no registry or namespace is an image built locally (its build fixes the release) or an official image`,
        docker: d,
      };
    const release: Release = digest ? 'digest' : !tag || /^(latest|main|master|edge|nightly)$/.test(tag) ? 'floating' : 'exact_version';
    return { ...none, target: d.image, release, releaseWhy: `${runner} run ${d.image}`, docker: d };
  }
  return none;
}

/** Options of node and the TypeScript runners that take the next word as their value. */
const RUNNER_VALUE_FLAGS = /^(-r|--require|--loader|--import|-P|--project|--tsconfig|--compiler|-O|--compiler-options)$/;

/** The first word a script runner is given that is neither an option nor an option's value: its script, or a subcommand. */
function runnerScript(words: string[]): string {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (!w.startsWith('-')) return w;
    if (RUNNER_VALUE_FLAGS.test(w)) i++;
  }
  return '';
}

/** npm's and npx's switches that take no value; any other `--name` takes the next word as its value. */
const NPX_SWITCHES =
  /^(-y|--yes|--no|-q|--quiet|-s|--silent|--ignore-existing|--prefer-offline|--prefer-online|--offline|--no-install|--legacy-peer-deps|--force|--bun)$/;

/**
 * The package npx runs: the first word after its flags. A flag with a value as the next word
 * (`--registry https://registry.npmjs.org chrome-devtools-mcp@0.18.1`, as VS Code's MCP gallery
 * writes it) skips that word; `-c` runs a command line, no package.
 */
function npxSpec(rest: string[]): string | undefined {
  const i = npxFirstWord(rest);
  return i === -1 ? undefined : rest[i];
}

/** Where npx's own options end: the index of the first word that is not one of them or a value of one (-1: none, or `-c`). */
function npxFirstWord(rest: string[]): number {
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '-c' || a === '--call') return -1;
    if (!a.startsWith('-')) return i;
    if (!a.includes('=') && !NPX_SWITCHES.test(a)) i++;
  }
  return -1;
}

/** uvx's and pipx's own options with a value, beside uv's (`--with mcp<2`, `--spec pkg`). */
const UVX_VALUE_FLAGS = new Set(['--with', '--spec', '--pip-args', '--python-preference']);

/** `uv run` options that take the next word as their value. */
const UV_VALUE_FLAGS = new Set([
  '--python',
  '-p',
  '--directory',
  '--project',
  '--env-file',
  '--index',
  '--default-index',
  '--index-url',
  '--extra-index-url',
  '--with-requirements',
  '--with-editable',
  '--extra',
  '--group',
  '--package',
  '--cache-dir',
  '--config-file',
]);

/**
 * Every `docker run` option that takes a value, as `docker run --help` lists them (podman's
 * extras too): a value read as the image would drop every flag after it (aRustyDev/dotfiles'
 * `--annotation scope:global`, `--pull always`).
 */
const VALUE_FLAGS = new Set(
  [
    '-a -c -e -h -l -m -p -u -v -w',
    '--add-host --annotation --attach --blkio-weight --blkio-weight-device --cap-add --cap-drop --cgroup-parent --cgroupns',
    '--cidfile --cpu-count --cpu-percent --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime --cpu-shares --cpus',
    '--cpuset-cpus --cpuset-mems --detach-keys --device --device-cgroup-rule --device-read-bps --device-read-iops',
    '--device-write-bps --device-write-iops --dns --dns-option --dns-opt --dns-search --domainname --entrypoint --env',
    '--env-file --expose --gpus --group-add --health-cmd --health-interval --health-retries --health-start-interval',
    '--health-start-period --health-timeout --hostname --io-maxbandwidth --io-maxiops --ip --ip6 --ipc --isolation',
    '--kernel-memory --label --label-file --link --link-local-ip --log-driver --log-opt --mac-address --memory',
    '--memory-reservation --memory-swap --memory-swappiness --mount --name --net --net-alias --network --network-alias',
    '--oom-score-adj --pid --pids-limit --platform --publish --pull --restart --runtime --security-opt --shm-size',
    '--stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit --user --userns --uts --volume --volume-driver',
    '--volumes-from --workdir --secret --arch --os --variant --hooks-dir --pod --cgroups --sdnotify --systemd',
  ]
    .join(' ')
    .split(' '),
);

/** `docker run [flags] IMAGE [args]`: the flags (by long name) and the image. */
export function dockerRun(args: string[]): DockerRun | null {
  // `docker run` or `docker container run`: not `docker compose run`, whose last word names a service.
  let j = 0;
  // Global options before the subcommand: `docker --context remote run …`.
  while (j < args.length && args[j]!.startsWith('-')) j += /^(-H|--host|-c|--context|--config|-l|--log-level)$/.test(args[j]!) ? 2 : 1;
  const i0 = args[j] === 'run' ? j : args[j] === 'container' && args[j + 1] === 'run' ? j + 1 : -1;
  if (i0 < 0) return null;
  const flags = new Map<string, string[]>();
  const env = new Map<string, string | null>();
  const add = (k: string, v: string) => flags.set(k, [...(flags.get(k) ?? []), v]);
  const long: Record<string, string> = {
    '-e': '--env',
    '-v': '--volume',
    '-p': '--publish',
    '-u': '--user',
    '-m': '--memory',
    '--net': '--network',
    '-w': '--workdir',
    '-l': '--label',
    '-h': '--hostname',
  };
  for (let i = i0 + 1; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) {
      for (const e of flags.get('--env') ?? []) {
        const eq = e.indexOf('=');
        env.set(eq < 0 ? e : e.slice(0, eq), eq < 0 ? null : e.slice(eq + 1));
      }
      return { image: a, flags, env };
    }
    const eq = a.indexOf('=');
    const name = long[eq > 0 ? a.slice(0, eq) : a] ?? (eq > 0 ? a.slice(0, eq) : a);
    if (eq > 0 && a.startsWith('--')) add(name, a.slice(eq + 1));
    else if (VALUE_FLAGS.has(a)) add(name, args[++i] ?? '');
    else if (/^-[a-zA-Z]{2,}$/.test(a)) for (const c of a.slice(1)) add(long[`-${c}`] ?? `-${c}`, 'true');
    else add(name, 'true');
  }
  return null;
}
