// Dockerfiles read with dockerfile-ast (a parser made for them): the base image and its digest,
// the final stage's USER, HEALTHCHECK, secrets written into ENV or ARG, and how dependencies are
// installed (lockfile, install scripts, signature audit, SBOM). Nothing is built or run.

import { posix } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { isPlaceholder, passwordInUrl, SECRET_NAME } from './secrets.js';
import type { At } from './sheet.js';
import { commandsOf, unwrap } from './shell.js';

export interface InstallStep {
  at: At;
  /** `script`: an installer fetched and piped to a shell (`curl -fsSL https://get.pulumi.com | sh`). */
  tool: 'npm' | 'yarn' | 'pnpm' | 'pip' | 'uv' | 'poetry' | 'go' | 'bun' | 'cargo' | 'script';
  text: string;
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

export interface DockerfileInfo {
  path: string;
  /** The final stage's base image as written, ARG defaults substituted. */
  base: { image: string; at: At; digest: boolean } | null;
  /** Every external image a stage starts from (not another stage). */
  externalBases: { image: string; at: At; digest: boolean }[];
  /** USER of the final stage (inherited through stage names), or null when none is set: as written, and with ARG and ENV values substituted. */
  user: { value: string; written: string; at: At } | null;
  /** The HEALTHCHECK of the final stage (or its parents): where, whether NONE, and its command as written. */
  healthcheck: { at: At; disabled: boolean; test: string } | null;
  /** What the stages the build runs COPY or ADD from the build context: its sources, as written there. */
  copied: string[];
  /** Images those stages COPY --from (docker/mcp-gateway's dind image copies /docker-mcp from docker/mcp-gateway), with the COPY line. */
  copiedImages: { image: string; at: At }[];
  /** EXPOSE in the final image (its own stage or one it is built on): the ports it says it serves on. */
  expose: { ports: string; at: At } | null;
  secretsInImage: { name: string; at: At; how: string }[];
  installs: InstallStep[];
  /** A reverse proxy the final image installs from the distribution's packages (`microdnf install -y nginx`). */
  proxyInstalled: { product: string; at: At } | null;
  auditSignatures: At | null;
  sbom: At | null;
  ignoreScriptsEnv: At | null;
  /** A step that runs dependencies' install scripts on its own (`npm rebuild @vscode/ripgrep`), after an install that skipped them. */
  scriptsRun: { at: At; text: string } | null;
  /**
   * The script the image starts, where its ENTRYPOINT (or CMD) runs one this build writes
   * (`RUN echo '…' > /entrypoint.sh`, its text here) or copies from the build context
   * (`COPY docker/entrypoint.sh /entrypoint.sh`, its source there).
   */
  launcher: { path: string; text: string | null; source: string | null; at: At } | null;
  /** What the final image runs: its ENTRYPOINT followed by its CMD. */
  entrypoint: string[];
  /** The final image's ENTRYPOINT alone (a compose `command` or a pod's `args` replaces only the CMD). */
  entrypointOnly: string[];
  /** The ENTRYPOINT instruction's line, if any. */
  entrypointAt: At | null;
  /** The line of the final image's ENTRYPOINT or CMD, the later one: where what the container runs is written. */
  commandAt: At | null;
  /** `FROM scratch` at the end: no user database, root unless USER says otherwise. */
  scratch: boolean;
  /** ENV values of the final stage (and the stages it is built on), as written. */
  env: Map<string, string>;
  /** Where each of those ENV values is set. */
  envAt: Map<string, At>;
}

/**
 * `buildArgs`: the build's `--build-arg`s (a Compose service's `build.args`), each replacing the
 * ARG's default; null where the value comes from outside the files (a name without a value).
 */
export function readDockerfile(
  path: string,
  text: string,
  buildArgs: ReadonlyMap<string, string | null> = new Map(),
  /** The stage a build stops at (`--target`, Compose's `build.target`); the last stage without one. */
  target: string | null = null,
): DockerfileInfo {
  const df = DockerfileParser.parse(text);
  const at = (i: Instruction): At => ({ file: path, line: i.getRange().start.line + 1 });
  // null: declared, its value unknown to the files.
  const args = new Map<string, string | null>();
  for (const a of df.getInitialARGs()) {
    for (const p of a.getProperties())
      if (buildArgs.has(p.getName())) args.set(p.getName(), buildArgs.get(p.getName())!);
      else if (p.getValue() !== null) args.set(p.getName(), p.getUnescapedValue() ?? '');
  }
  const VAR = /\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}?/g;
  const known = (v: string | null | undefined, d: string | undefined, m: string) => (v === null ? m : (v ?? d ?? m));
  const subst = (s: string) => s.replace(VAR, (m, n: string, d: string | undefined) => known(args.get(n), d, m));
  // Inside a stage, as the builder substitutes: ENV (this stage's and those it is built on) wins over
  // the stage's ARGs; an ARG without a value takes the global default; nothing else is known.
  const envOf = (i: number | null, name: string): string | undefined => {
    for (; i !== null && i >= 0; i = stages[i]!.parent) if (stages[i]!.env.has(name)) return stages[i]!.env.get(name);
    return undefined;
  };
  const substIn = (i: number, text: string) =>
    text.replace(VAR, (m, n: string, d: string | undefined) => envOf(i, n) ?? known(stages[i]!.args.get(n), d, m));

  const stageNames = new Map<string, number>();
  const froms = df.getFROMs();
  const stages: {
    image: string;
    at: At;
    parent: number | null;
    user: DockerfileInfo['user'];
    healthcheck: DockerfileInfo['healthcheck'];
    expose: DockerfileInfo['expose'];
    env: Map<string, string>;
    envAt: Map<string, At>;
    /** Secrets a build in this stage links into what it produces (`go build -ldflags "-X pkg.Secret=…"`). */
    linked: { name: string; at: At; how: string }[];
    /** Stages this one copies from (COPY --from). */
    copiesFrom: number[];
    /** What COPY and ADD bring in from the build context (sources, ARGs substituted). */
    copied: string[];
    /** Images (not stages) that COPY --from copies out of. */
    copiedImages: { image: string; at: At }[];
    /** A RUN, COPY or ADD ran in it: more than an alias of its image. */
    built: boolean;
    /** Context files that reach this stage through COPY --from another stage (`COPY --from=builder /app/package-lock.json* ./`). */
    inherited: string[];
    /** Files this stage writes (`echo '…' > PATH`) or copies from the context, one source to one path. */
    files: { path: string; text: string | null; source: string | null; at: At }[];
    proxy: DockerfileInfo['proxyInstalled'];
    /** ARGs declared in this stage, with their values (a build arg, the default, or the global default; null: unknown). */
    args: Map<string, string | null>;
    /** ENTRYPOINT and CMD set in this stage; null where the stage inherits them. */
    entrypoint: { words: string[]; at: At } | null;
    cmd: { words: string[]; at: At } | null;
  }[] = [];
  const externalBases: DockerfileInfo['externalBases'] = [];
  const secretsInImage: DockerfileInfo['secretsInImage'] = [];
  // Steps by stage: BuildKit builds only the stages the final one needs, so the others never run.
  const installsIn: { stage: number; step: InstallStep }[] = [];
  const auditIn: { stage: number; at: At }[] = [];
  const sbomIn: { stage: number; at: At }[] = [];
  const ignoreScriptsIn: { stage: number; at: At }[] = [];
  const rebuildIn: { stage: number; at: At; text: string }[] = [];

  // What a stage holds from the context so far: its own copies, after its parents'.
  const seen = (i: number | null): string[] =>
    i === null ? [] : [...seen(stages[i]!.parent), ...stages[i]!.copied, ...stages[i]!.inherited];
  const install = (stage: number, step: InstallStep) => installsIn.push({ stage, step: { ...step, copiedBefore: seen(stage) } });
  let stage = -1;
  for (const ins of df.getInstructions()) {
    const kw = ins.getKeyword();
    if (kw === 'FROM') {
      const from = froms.find((f) => f.getRange().start.line === ins.getRange().start.line)!;
      const image = subst(from.getImage() ?? '');
      const parent = stageNames.get(image.toLowerCase()) ?? null;
      stage = stages.length;
      stages.push({
        image,
        at: at(ins),
        parent,
        user: null,
        healthcheck: null,
        expose: null,
        env: new Map(),
        envAt: new Map(),
        linked: [],
        files: [],
        copiesFrom: [],
        copied: [],
        copiedImages: [],
        built: false,
        inherited: [],
        proxy: null,
        args: new Map(),
        entrypoint: null,
        cmd: null,
      });
      const name = from.getBuildStage();
      if (name) stageNames.set(name.toLowerCase(), stage);
      if (parent === null && image.toLowerCase() !== 'scratch')
        externalBases.push({ image, at: at(ins), digest: /@sha256:[0-9a-f]{64}$/.test(image) });
      continue;
    }
    if (stage < 0) continue;
    const s = stages[stage]!;
    const content = ins.getArgumentsContent() ?? '';
    if (kw === 'RUN' || kw === 'COPY' || kw === 'ADD') s.built = true;
    switch (kw) {
      case 'USER':
        s.user = { value: substIn(stage, content.trim()), written: content.trim(), at: at(ins) };
        break;
      case 'EXPOSE':
        s.expose = { ports: substIn(stage, content.trim()), at: at(ins) };
        break;
      case 'HEALTHCHECK':
        s.healthcheck = { at: at(ins), disabled: /^NONE\b/i.test(content.trim()), test: content };
        break;
      case 'ENV':
      case 'ARG': {
        for (const p of (ins as unknown as { getProperties(): { getName(): string; getValue(): string | null }[] }).getProperties()) {
          const name = p.getName();
          const value = p.getValue();
          if (kw === 'ENV' && value !== null) {
            s.env.set(name, substIn(stage, value));
            s.envAt.set(name, at(ins));
          }
          if (kw === 'ARG') {
            const v = buildArgs.has(name) ? buildArgs.get(name)! : value === null ? args.get(name) : substIn(stage, value);
            if (v !== undefined) s.args.set(name, v);
          }
          if (/^npm_config_ignore_scripts$/i.test(name) && /^(true|1)$/i.test(value ?? '')) ignoreScriptsIn.push({ stage, at: at(ins) });
          // `ENV TAVILY_API_KEY=your-api-key-here` (tavily-ai/tavily-mcp) is a placeholder the run replaces, not a secret.
          if (SECRET_NAME.test(name) && value && !/^\$/.test(value) && !/_FILE$/i.test(name) && !isPlaceholder(value))
            secretsInImage.push({ name, at: at(ins), how: `${kw} ${name} has a value in the Dockerfile` });
          else if (value && passwordInUrl(value))
            secretsInImage.push({ name, at: at(ins), how: `${kw} ${name} is a connection URL with a password written in the Dockerfile` });
        }
        break;
      }
      case 'RUN':
        // `RUN --mount=…,from=builder` needs that stage as COPY --from does.
        for (const f of (ins as { getFlags?: () => { getName(): string; getValue(): string | null }[] }).getFlags?.() ?? []) {
          const from = f.getName() === 'mount' ? /(?:^|,)from=([^,]+)/.exec(f.getValue() ?? '')?.[1]?.toLowerCase() : undefined;
          const i = from === undefined ? undefined : stageNames.get(from);
          if (i !== undefined && i < stage) s.copiesFrom.push(i);
          // A bind mount (the default type) without from= mounts the build context, or its source= path in it.
          const mount = f.getName() === 'mount' ? (f.getValue() ?? '') : null;
          const type = mount === null ? null : (/(?:^|,)type=([^,]+)/.exec(mount)?.[1] ?? 'bind');
          if (mount !== null && type === 'bind' && from === undefined)
            s.copied.push(substIn(stage, /(?:^|,)(?:source|src)=([^,]+)/.exec(mount)?.[1] ?? '.'));
        }
        for (const step of fetchedInstallers(substIn(stage, shellOf(content)), at(ins))) install(stage, step);
        // As written: the parsed content drops the `\n` escapes inside quotes that echo turns into lines.
        for (const w of writtenFiles(
          shellOf((ins as { getRawArgumentsContent?: () => string | null }).getRawArgumentsContent?.() ?? content),
        ))
          s.files.push({ ...w, source: null, at: at(ins) });
        // The shell sees the stage's ARGs and ENV in its environment: `npm install -g pkg@${VERSION}`.
        for (const words of commandsOf(substIn(stage, shellOf(content)))) {
          const w = unwrap(words);
          const step = installStep(w, at(ins));
          // GOFLAGS=-mod=mod, on the command or in the stage's ENV, lets the build rewrite go.mod and
          // go.sum as a `-mod=mod` flag does (stackrox/stackrox-mcp's konflux.Dockerfile uses the flag).
          const goflags = words.find((x) => x.startsWith('GOFLAGS='))?.slice(8) ?? envOf(stage, 'GOFLAGS') ?? '';
          if (step?.tool === 'go' && step.locked && /(^|\s)-mod=mod\b/.test(goflags))
            Object.assign(step, { locked: false, followsLockfile: true, text: `GOFLAGS=${goflags} ${step.text}` });
          if (step) install(stage, step);
          const proxy = proxyPackage(w);
          if (proxy) s.proxy ??= { product: proxy, at: at(ins) };
          const line = w.join(' ');
          if (/^npm audit signatures\b/.test(line)) auditIn.push({ stage, at: at(ins) });
          // `npm rebuild` runs the lifecycle scripts `--ignore-scripts` skipped (pnpm's too, and
          // Yarn's `rebuild`), unless told to skip them again.
          if (/^(npm|pnpm|yarn) (rebuild|rb)\b/.test(line) && !w.includes('--ignore-scripts'))
            rebuildIn.push({ stage, at: at(ins), text: line });
          // A secret-named variable linked into a Go binary ends up in every image that holds the binary.
          if (w[0] === 'go' && w[1] === 'build')
            for (const m of line.matchAll(/-X[= ]\s*([\w./-]+)\.(\w+)=(\S+)/g))
              if (SECRET_NAME.test(m[2]!) && m[3]!.replace(/["']/g, '') !== '')
                s.linked.push({
                  name: m[2]!,
                  at: at(ins),
                  how: `go build links ${m[2]} into the binary (-ldflags -X): a value in a binary is in the image`,
                });
          if (/^(npm sbom|syft|cyclonedx-npm|cyclonedx-py|cdxgen|trivy .*--format (cyclonedx|spdx))\b/.test(line))
            sbomIn.push({ stage, at: at(ins) });
        }
        break;
      case 'COPY':
      case 'ADD': {
        // dockerfile-ast keeps flags apart from the arguments: --from is one of them.
        const flags = (ins as { getFlags?: () => { getName(): string; getValue(): string | null }[] }).getFlags?.() ?? [];
        const from = flags
          .find((f) => f.getName() === 'from')
          ?.getValue()
          ?.toLowerCase();
        const i = from === undefined ? undefined : (stageNames.get(from) ?? (/^\d+$/.test(from) ? Number(from) : undefined));
        if (i !== undefined && i < stage) {
          s.copiesFrom.push(i);
          // A stage that only names an image (`FROM iwakitakuma/gitlab-mcp:latest AS gitlab-mcp`,
          // jrmatherly/MCP-Platform) is that image: copying out of it copies out of the image.
          const alias = stages[i]!;
          if (alias.parent === null && !alias.built && alias.image.toLowerCase() !== 'scratch')
            s.copiedImages.push({ image: alias.image, at: at(ins) });
          const sources = copySources(
            ins.getArguments().map((a) => a.getValue()),
            content,
          ).map((x) => substIn(stage, x));
          s.inherited.push(...seen(i).filter((f) => sources.some((src) => carries(src, f))));
        } else if (from !== undefined) s.copiedImages.push({ image: substIn(stage, from), at: at(ins) });
        else if (from === undefined) {
          const sources = copySources(
            ins.getArguments().map((a) => a.getValue()),
            content,
          ).map((x) => substIn(stage, x));
          s.copied.push(...sources);
          const dest = substIn(stage, ins.getArguments().at(-1)?.getValue() ?? '');
          if (sources.length === 1 && !/[*?[]/.test(sources[0]!) && dest !== '')
            s.files.push({
              path: dest.endsWith('/') ? `${dest}${posix.basename(sources[0]!)}` : dest,
              text: null,
              source: sources[0]!,
              at: at(ins),
            });
        }
        break;
      }
      case 'ENTRYPOINT':
        s.entrypoint = { words: execForm(content), at: at(ins) };
        // Docker: an ENTRYPOINT clears the CMD a stage inherits, not one this stage set.
        s.cmd ??= { words: [], at: at(ins) };
        break;
      case 'CMD':
        s.cmd = { words: execForm(content), at: at(ins) };
        break;
    }
  }
  // The final stage, its USER and HEALTHCHECK inherited from the stages it is built on.
  const last = (target !== null ? stageNames.get(target.toLowerCase()) : undefined) ?? stages.length - 1;
  // What the final image holds from other stages: their outputs, and any secret linked into them.
  const reached = new Set<number>();
  const reach = (i: number | null) => {
    if (i === null || i < 0 || reached.has(i)) return;
    reached.add(i);
    reach(stages[i]!.parent);
    for (const j of stages[i]!.copiesFrom) reach(j);
  };
  reach(last);
  for (const i of [...reached].sort((a, b) => a - b)) secretsInImage.push(...stages[i]!.linked);
  const installs = installsIn.filter((x) => reached.has(x.stage)).map((x) => x.step);
  const copied = [...reached].sort((a, b) => a - b).flatMap((i) => stages[i]!.copied);
  const copiedImages = [...reached].sort((a, b) => a - b).flatMap((i) => stages[i]!.copiedImages);
  const lastReached = (xs: { stage: number; at: At }[]) => xs.filter((x) => reached.has(x.stage)).at(-1)?.at ?? null;
  const auditSignatures = lastReached(auditIn);
  const sbom = lastReached(sbomIn);
  const ignoreScriptsEnv = lastReached(ignoreScriptsIn);
  const rebuild = rebuildIn.find((x) => reached.has(x.stage));
  let user: DockerfileInfo['user'] = null;
  let healthcheck: DockerfileInfo['healthcheck'] = null;
  let expose: DockerfileInfo['expose'] = null;
  let base: DockerfileInfo['base'] = null;
  let proxyInstalled: DockerfileInfo['proxyInstalled'] = null;
  const env = new Map<string, string>();
  const envAt = new Map<string, At>();
  let ep: { words: string[]; at: At } | null = null;
  let cmd: { words: string[]; at: At } | null = null;
  for (let i: number | null = last; i !== null && i >= 0; i = stages[i]!.parent) {
    const s = stages[i]!;
    ep ??= s.entrypoint;
    cmd ??= s.cmd;
    for (const [k, v] of s.env)
      if (!env.has(k)) {
        env.set(k, v);
        envAt.set(k, s.envAt.get(k)!);
      }
    user ??= s.user;
    healthcheck ??= s.healthcheck;
    expose ??= s.expose;
    proxyInstalled ??= s.proxy;
    if (s.parent === null) base = { image: s.image, at: s.at, digest: /@sha256:[0-9a-f]{64}$/.test(s.image) };
  }
  return {
    path,
    base,
    externalBases,
    user,
    healthcheck,
    expose,
    copied,
    copiedImages,
    secretsInImage,
    installs,
    proxyInstalled,
    auditSignatures,
    sbom,
    ignoreScriptsEnv,
    scriptsRun: rebuild ? { at: rebuild.at, text: rebuild.text } : null,
    launcher: launcherOf(
      [...(ep?.words ?? []), ...(cmd?.words ?? [])],
      [...reached].sort((a, b) => a - b).flatMap((i) => stages[i]!.files),
    ),
    entrypoint: [...(ep?.words ?? []), ...(cmd?.words ?? [])],
    entrypointOnly: ep?.words ?? [],
    entrypointAt: ep?.at ?? null,
    commandAt: later(ep?.at ?? null, cmd?.at ?? null),
    scratch: base?.image.toLowerCase() === 'scratch',
    env,
    envAt,
  };
}

/**
 * The sources of a COPY or ADD (all its arguments but the destination), in shell or JSON form;
 * none for a here-document, whose content is in the Dockerfile, or a URL.
 */
/**
 * Whether copying `source` out of another stage may carry the context file `file` that stage holds:
 * by its name (a glob such as `package-lock.json*`), or a directory that may hold it (`/app`).
 */
function carries(source: string, file: string): boolean {
  const name = posix.basename(source.replace(/\/+$/, ''));
  if (source.endsWith('/') || name === '.' || name === '' || !/[.*?]/.test(name)) return true;
  const glob = new RegExp(
    `^${name
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return glob.test(posix.basename(file));
}

function copySources(args: string[], content: string): string[] {
  let words = args;
  if (content.trim().startsWith('[')) {
    try {
      const parsed = JSON.parse(content.trim()) as unknown;
      if (Array.isArray(parsed)) words = parsed.map(String);
    } catch {
      return [];
    }
  }
  if (words.some((w) => w.startsWith('<<'))) return [];
  return words.slice(0, -1).filter((w) => !/^[a-z][\w+.-]*:\/\//i.test(w));
}

/**
 * Files a RUN writes with echo or printf (`echo '#!/bin/bash\n…\nexec python server.py' >
 * /entrypoint.sh`): their text, with the escapes dash's echo and printf turn into newlines.
 */
function writtenFiles(shell: string): { path: string; text: string }[] {
  // Docker joins a continued line to the next without a space, inside quotes too.
  const joined = shell.replace(/\\\r?\n/g, '');
  const WRITE = /\b(?:echo|printf)\s+(?:-e\s+)?(?:'([^']*)'|"((?:[^"\\]|\\.)*)")\s*>\s*([^\s;&|]+)/g;
  return [...joined.matchAll(WRITE)].map((m) => ({
    path: m[3]!,
    text: (m[1] ?? m[2]!).replace(/\\n/g, '\n').replace(/\\t/g, '\t'),
  }));
}

/** The script a command line starts (`/entrypoint.sh`, `sh ./start.sh`), among the files the build writes or copies. */
function launcherOf(
  written: string[],
  files: { path: string; text: string | null; source: string | null; at: At }[],
): DockerfileInfo['launcher'] {
  // An init in front (`tini --`, `dumb-init`) starts the script as its child.
  const words = unwrap(written);
  const shell = /^(\/usr)?(\/bin\/)?(ba|da)?sh$/.test(words[0] ?? '');
  const program = shell ? (words[1] === '-c' ? undefined : words[1]) : words[0];
  if (!program || program.startsWith('-')) return null;
  const name = posix.basename(program);
  // The last write wins, as the layers do; a relative program is matched by its name.
  return files.findLast((f) => f.path === program || (!program.startsWith('/') && posix.basename(f.path) === name)) ?? null;
}

/** The distributions' package managers and their install verbs. */
const PACKAGE_INSTALL: Record<string, string[]> = {
  'apt-get': ['install'],
  apt: ['install'],
  apk: ['add'],
  dnf: ['install'],
  microdnf: ['install'],
  yum: ['install'],
  zypper: ['install', 'in'],
};
/** Packages that are a reverse proxy, by the product the proxy collectors read. */
const PROXY_PACKAGES: Record<string, string> = {
  nginx: 'nginx',
  'nginx-full': 'nginx',
  'nginx-light': 'nginx',
  'nginx-extras': 'nginx',
  'nginx-core': 'nginx',
  openresty: 'nginx',
  haproxy: 'haproxy',
  caddy: 'caddy',
  traefik: 'traefik',
  envoy: 'envoy',
};

/** `microdnf install -y nginx curl` → nginx: the proxy a package install puts in the image, if any. */
function proxyPackage(w: string[]): string | null {
  const [cmd, verb, ...rest] = w;
  if (!cmd || !verb || !PACKAGE_INSTALL[cmd]?.includes(verb)) return null;
  for (const word of rest) {
    if (word.startsWith('-')) continue;
    // `nginx=1.26.*`, `nginx-1.26.3`, `nginx~1.26`: the package, whatever version it pins.
    const name = word.replace(/[=~<>].*$/, '').toLowerCase();
    if (PROXY_PACKAGES[name]) return PROXY_PACKAGES[name];
  }
  return null;
}

/**
 * The shell text a RUN runs. A BuildKit here-document after a bare `RUN <<EOF` (or `RUN <<EOF bash`)
 * is the script itself; one fed to a command (`cat <<EOF > /etc/x.conf`) is that command's data.
 */
export function shellOf(content: string): string {
  const nl = content.indexOf('\n');
  const first = nl < 0 ? content : content.slice(0, nl);
  const HEREDOC = /<<(-?)\s*(["']?)([A-Za-z_][\w.-]*)\2/g;
  const docs = [...first.matchAll(HEREDOC)];
  if (!docs.length) return content;
  const command = first.replace(HEREDOC, '').trim();
  const lines = content.slice(nl + 1).split('\n');
  const [, dash, , name] = docs[0]!;
  const end = lines.findIndex((l) => (dash ? l.replace(/^\t+/, '') : l) === name);
  const body = (end < 0 ? lines : lines.slice(0, end)).map((l) => (dash ? l.replace(/^\t+/, '') : l));
  // A bare here-document, or one handed to a shell, is the script; anything else reads it as data.
  if (command === '' || /^(\/bin\/|\/usr\/bin\/)?(ba|da|z)?sh(\s+-\w+)*$/.test(command)) return body.join('\n');
  return command;
}

function later(a: At | null, b: At | null): At | null {
  if (a === null || b === null) return a ?? b;
  return b.line > a.line ? b : a;
}

function execForm(content: string): string[] {
  const t = content.trim();
  if (t.startsWith('[')) {
    try {
      const v = JSON.parse(t) as unknown;
      if (Array.isArray(v)) return v.map(String);
    } catch {
      /* shell form after all */
    }
  }
  return commandsOf(t)[0] ?? [];
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
  return !!specs?.length && specs.every((s) => /^(\.{1,2}|\.{1,2}\/\S*|\/\S*|\.\[[^\]]*\])$/.test(s));
}

/** What an install names, flags left out; null when it installs from a file list (`-r`, `-c`, `-e`). */
function specsOf(args: string[]): string[] | null {
  const specs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-(r|c|e)$|^--(requirement|constraint|editable)$/.test(a) || /^--(requirement|constraint|editable)=/.test(a)) return null;
    // Flags with a value as the next word (`--prefix /x`, `-i URL`); flags alone take none.
    if (/^(--(prefix|registry|target|index-url|extra-index-url|cache|userconfig|root)|-[it])$/.test(a)) {
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
function fetchedInstallers(shell: string, at: At): InstallStep[] {
  const PIPED =
    /\b(curl|wget)\b[^|;&\n]*?(https?:\/\/[^\s|;&"']+)[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\/(?:usr\/)?bin\/)?(?:ba|da|z)?sh\b/g;
  return [...shell.replace(/\\\n/g, ' ').matchAll(PIPED)]
    .filter((m) => !/^https?:\/\/(deb|rpm)\.nodesource\.com\//.test(m[2]!))
    .map((m) => ({ at, tool: 'script' as const, text: m[0].replace(/\s+/g, ' ').trim(), locked: false, scriptsDisabled: null }));
}

/** One install command: which tool, locked or not, install scripts on or off. */
/** `-mod=mod` or `-mod mod` among a go command's flags. */
const modMod = (args: string[]) =>
  args.some((a, i) => a === '-mod=mod' || a === '--mod=mod' || (/^--?mod$/.test(a) && args[i + 1] === 'mod'));

export function installStep(w: string[], at: At): InstallStep | null {
  // `python -m uv pip install .` is uv's install, `python -m poetry install` poetry's (pip's is read below).
  if (/^python[\d.]*$/.test(w[0] ?? '') && w[1] === '-m' && ['uv', 'poetry', 'pipx'].includes(w[2] ?? '')) {
    const step = installStep(w.slice(2), at);
    return step && { ...step, text: w.join(' ') };
  }
  const [cmd, sub, ...rest] = w;
  const text = w.join(' ');
  const has = (...flags: string[]) => w.some((x) => flags.some((f) => x === f || x.startsWith(`${f}=`)));
  if (cmd === 'npm' && (sub === 'ci' || sub === 'clean-install' || sub === 'install-clean'))
    return { at, tool: 'npm', text, locked: true, scriptsDisabled: has('--ignore-scripts') };
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
  if (cmd === 'yarn' && (sub === undefined || sub === 'install' || sub.startsWith('-')))
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
  if (cmd === 'bun' && (sub === 'install' || sub === 'i'))
    // Bun runs no dependency's lifecycle scripts unless it is listed in trustedDependencies.
    return { at, tool: 'bun', text, locked: has('--frozen-lockfile'), scriptsDisabled: true };
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
  return null;
}
