// Dockerfiles read with dockerfile-ast (a parser made for them): the base image and its digest,
// the final stage's USER, HEALTHCHECK, secrets written into ENV or ARG, and how dependencies are
// installed (lockfile, install scripts, signature audit, SBOM). Nothing is built or run.

import { posix } from 'node:path';
import type { At } from '../sheet.js';
import { unwrap } from '../shell.js';
import { type ContextCopy, contextPathsOf } from './copies.js';
import type { InstallStep } from './install-step.js';
import { readStages } from './stages.js';

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
  /** What the final image's own line of stages copies from the context (not a builder's copies, whose outputs it may take). */
  finalCopied: string[];
  /** Images those stages COPY --from (docker/mcp-gateway's dind image copies /docker-mcp from docker/mcp-gateway), with the COPY line. */
  copiedImages: { image: string; at: At }[];
  /** LABELs of the final image (its own stage and those it is built on, the latest winning), each with its line. */
  labels: Map<string, { value: string; at: At }>;
  /** EXPOSE in the final image (its own stage or one it is built on): the ports it says it serves on. */
  expose: { ports: string; at: At } | null;
  secretsInImage: { name: string; at: At; how: string }[];
  /** A build target that names no stage of the file: the build fails. */
  missingTarget: string | null;
  installs: InstallStep[];
  /** A reverse proxy the final image installs from the distribution's packages (`microdnf install -y nginx`). */
  proxyInstalled: { product: string; at: At } | null;
  auditSignatures: At | null;
  sbom: At | null;
  ignoreScriptsEnv: At | null;
  /** Code the build downloads from a branch or a "latest" link into what the final image holds (`curl -o lib.so https://…/main/…`). */
  fetchedFromBranch: { at: At; text: string } | null;
  /** A step that runs dependencies' install scripts on its own (`npm rebuild @vscode/ripgrep`), after an install that skipped them. */
  scriptsRun: { at: At; text: string } | null;
  /**
   * The script the image starts, where its ENTRYPOINT (or CMD) runs one this build writes
   * (`RUN echo '…' > /entrypoint.sh`, its text here) or copies from the build context
   * (`COPY docker/entrypoint.sh /entrypoint.sh`, its source there).
   */
  launcher: {
    path: string;
    text: string | null;
    /** Where in the context it may come from, the latest copy first; the first the files hold is it. */
    sources: string[];
    at: At;
    /** Started by the ENTRYPOINT: a compose `command` or a pod's `args` (which replace the CMD) keep it. */
    byEntrypoint: boolean;
  } | null;
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
  const {
    stages,
    stageNames,
    externalBases,
    secretsInImage: written,
    installsIn,
    auditIn,
    sbomIn,
    ignoreScriptsIn,
    rebuildIn,
    fetchedIn,
  } = readStages(path, text, buildArgs);
  // The final stage, its USER and HEALTHCHECK inherited from the stages it is built on. A target
  // that names no stage fails the build (oraios/serena's `target: production`): said, and the last stage read.
  const named = target !== null ? stageNames.get(target.toLowerCase()) : undefined;
  const last = named ?? stages.length - 1;
  // ENV and ARG reach the final image through the stages it is built on, not those it copies files from.
  const line = new Set<number>();
  for (let i: number | null = last; i !== null && i >= 0 && !line.has(i); i = stages[i]!.parent) line.add(i);
  const secretsInImage: DockerfileInfo['secretsInImage'] = written.filter((x) => line.has(x.stage)).map(({ stage: _, ...x }) => x);
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
  const fetched = fetchedIn.find((x) => reached.has(x.stage));
  const ignoreScriptsEnv = lastReached(ignoreScriptsIn);
  const rebuild = rebuildIn.find((x) => reached.has(x.stage));
  let user: DockerfileInfo['user'] = null;
  let healthcheck: DockerfileInfo['healthcheck'] = null;
  let expose: DockerfileInfo['expose'] = null;
  let base: DockerfileInfo['base'] = null;
  let proxyInstalled: DockerfileInfo['proxyInstalled'] = null;
  const env = new Map<string, string>();
  const envAt = new Map<string, At>();
  const labels: DockerfileInfo['labels'] = new Map();
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
    for (const [k, v] of s.labels) if (!labels.has(k)) labels.set(k, v);
    user ??= s.user;
    healthcheck ??= s.healthcheck;
    expose ??= s.expose;
    proxyInstalled ??= s.proxy;
    if (s.parent === null) base = { image: s.image, at: s.at, digest: /@sha256:[0-9a-f]{64}$/.test(s.image) };
  }
  const files = [...reached].sort((a, b) => a - b).flatMap((i) => stages[i]!.files);
  // What the final image's own line of stages copied from the context (not what another stage's output carries).
  const finalCopies: ContextCopy[] = [];
  const finalCopied: string[] = [];
  for (let i: number | null = last; i !== null && i >= 0; i = stages[i]!.parent) {
    finalCopies.unshift(...stages[i]!.contextCopies);
    finalCopied.unshift(...stages[i]!.copied);
  }
  return {
    path,
    base,
    externalBases,
    user,
    healthcheck,
    expose,
    labels,
    copied,
    finalCopied,
    copiedImages,
    secretsInImage,
    missingTarget: target !== null && named === undefined ? target : null,
    installs,
    proxyInstalled,
    auditSignatures,
    sbom,
    ignoreScriptsEnv,
    scriptsRun: rebuild ? { at: rebuild.at, text: rebuild.text } : null,
    fetchedFromBranch: fetched ? { at: fetched.at, text: fetched.text } : null,
    launcher: launcherOf(
      ep?.words ?? [],
      cmd?.words ?? [],
      files,
      finalCopies,
      stages[last]?.workdir ?? '/',
      later(ep?.at ?? null, cmd?.at ?? null),
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

/** The script a command line starts (`/entrypoint.sh`, `sh ./start.sh`), among the files the build writes or copies. */
function launcherOf(
  entrypoint: string[],
  cmd: string[],
  files: { path: string; text: string | null; source: string | null; at: At }[],
  copies: readonly ContextCopy[],
  workdir: string,
  /** Where the command is written: a script found only by its copy is cited there. */
  commandAt: At | null,
): DockerfileInfo['launcher'] {
  const script = (written: string[]) => {
    // An init in front (`tini --`, `dumb-init`) starts the script as its child.
    const words = unwrap(written);
    const shell = /^(\/usr)?(\/bin\/)?(ba|da)?sh$/.test(words[0] ?? '');
    const program = shell ? (words[1] === '-c' ? undefined : words[1]) : words[0];
    if (!program || program.startsWith('-')) return undefined;
    const name = posix.basename(program);
    // The last write wins, as the layers do; a relative program is matched by its name.
    const f = files.findLast((f) => f.path === program || (!program.startsWith('/') && posix.basename(f.path) === name));
    if (f) return { path: f.path, text: f.text, sources: f.source === null ? [] : [f.source], at: f.at };
    // A script inside a directory copied whole (`COPY . /app`, then `ENTRYPOINT ["/app/scripts/run.sh"]`).
    if (!program.includes('/') && !program.endsWith('.sh')) return undefined;
    const path = posix.resolve(workdir, program);
    const sources = contextPathsOf(copies, path);
    return sources.length && commandAt ? { path, text: null, sources, at: commandAt } : undefined;
  };
  const own = entrypoint.length ? script(entrypoint) : undefined;
  const found = own ?? script([...entrypoint, ...cmd]);
  return found ? { ...found, byEntrypoint: own !== undefined } : null;
}

function later(a: At | null, b: At | null): At | null {
  if (a === null || b === null) return a ?? b;
  return b.line > a.line ? b : a;
}
