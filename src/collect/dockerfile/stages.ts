// A Dockerfile's stages, walked instruction by instruction as the builder reads them: what each
// sets (USER, ENV, ARG, ENTRYPOINT, CMD), copies, installs and links, and which stages it needs.

import { posix } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { isPlaceholder, passwordInUrl, SECRET_NAME } from '../secrets.js';
import type { At } from '../sheet.js';
import { commandsOf, unwrap } from '../shell.js';
import { withoutContinuedComments } from './continued-comments.js';
import { type ContextCopy, carries, contextCopies, contextPathsOf, copySources } from './copies.js';
import { clonedFromBranch, fetchedFromMovingRef } from './fetched-code.js';
import { fetchedInstallers, type InstallStep, installStep } from './install-step.js';
import { proxyPackage } from './proxy-package.js';
import type { DockerfileInfo } from './read.js';
import { execForm, shellOf, writtenFiles } from './shell-text.js';
import { takenBranches } from './taken-branches.js';

export interface Stage {
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
  /** The stage's working directory so far (WORKDIR, its parent stage's to start with). */
  workdir: string;
  /** What COPY and ADD from the context land where, in order. */
  contextCopies: ContextCopy[];
  proxy: DockerfileInfo['proxyInstalled'];
  /** LABELs set in this stage, each with its line. */
  labels: DockerfileInfo['labels'];
  /** ARGs declared in this stage, with their values (a build arg, the default, or the global default; null: unknown). */
  args: Map<string, string | null>;
  /** ENTRYPOINT and CMD set in this stage; null where the stage inherits them. */
  entrypoint: { words: string[]; at: At } | null;
  cmd: { words: string[]; at: At } | null;
}

/** Steps by stage: BuildKit builds only the stages the final one needs, so the others never run. */
type InStage<T = object> = { stage: number; at: At } & T;

export interface Stages {
  stages: Stage[];
  /** Stage names (lowercased) to their index. */
  stageNames: Map<string, number>;
  externalBases: DockerfileInfo['externalBases'];
  /** Secrets written in a stage's ENV or ARG, by stage: only those of the final image's own line of stages reach it. */
  secretsInImage: (DockerfileInfo['secretsInImage'][number] & { stage: number })[];
  installsIn: { stage: number; step: InstallStep }[];
  auditIn: InStage[];
  sbomIn: InStage[];
  ignoreScriptsIn: InStage[];
  rebuildIn: InStage<{ text: string }>[];
  /** Code downloaded from a branch or a "latest" link (`curl -o lib.so https://…/main/…`). */
  fetchedIn: InStage<{ text: string }>[];
}

export function readStages(path: string, text: string, buildArgs: ReadonlyMap<string, string | null>): Stages {
  const df = DockerfileParser.parse(withoutContinuedComments(text));
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
  const stages: Stage[] = [];
  const externalBases: DockerfileInfo['externalBases'] = [];
  const secretsInImage: (DockerfileInfo['secretsInImage'][number] & { stage: number })[] = [];
  // Steps by stage: BuildKit builds only the stages the final one needs, so the others never run.
  const installsIn: { stage: number; step: InstallStep }[] = [];
  const auditIn: { stage: number; at: At }[] = [];
  const sbomIn: { stage: number; at: At }[] = [];
  const fetchedIn: { stage: number; at: At; text: string }[] = [];
  // Files `ADD https://…` fetched into a stage, by stage and path: a script run from there is an installer.
  const addedUrls = new Map<string, string>();
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
        workdir: parent === null ? '/' : stages[parent]!.workdir,
        contextCopies: [],
        copiesFrom: [],
        copied: [],
        copiedImages: [],
        built: false,
        inherited: [],
        proxy: null,
        labels: new Map(),
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
      case 'WORKDIR':
        s.workdir = posix.resolve(s.workdir, substIn(stage, content.trim()));
        break;
      case 'USER':
        s.user = { value: substIn(stage, content.trim()), written: content.trim(), at: at(ins) };
        break;
      case 'EXPOSE':
        s.expose = { ports: substIn(stage, content.trim()), at: at(ins) };
        break;
      case 'LABEL':
        for (const p of (ins as unknown as { getProperties(): { getName(): string; getValue(): string | null }[] }).getProperties())
          s.labels.set(p.getName(), { value: substIn(stage, p.getValue() ?? ''), at: at(ins) });
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
            secretsInImage.push({ stage, name, at: at(ins), how: `${kw} ${name} has a value in the Dockerfile` });
          else if (value && passwordInUrl(value))
            secretsInImage.push({
              stage,
              name,
              at: at(ins),
              how: `${kw} ${name} is a connection URL with a password written in the Dockerfile`,
            });
        }
        break;
      }
      case 'RUN': {
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
        // The branch of each `if` the build's args settle; the shell's text as the build runs it.
        const run = substIn(
          stage,
          takenBranches(shellOf(content), (n) => envOf(stage, n) ?? s.args.get(n) ?? undefined),
        );
        for (const step of fetchedInstallers(run, at(ins))) install(stage, step);
        // deslicer/mcp-for-splunk: `ADD https://astral.sh/uv/install.sh /uv-installer.sh`, then `RUN sh /uv-installer.sh`.
        for (const words of commandsOf(run)) {
          const w = unwrap(words);
          const script = /^(\/usr)?(\/bin\/)?(ba|da|z)?sh$/.test(w[0] ?? '') ? w.find((x, j) => j > 0 && !x.startsWith('-')) : w[0];
          const url = script === undefined ? undefined : addedUrls.get(`${stage}:${script}`);
          if (url)
            install(stage, { at: at(ins), tool: 'script', text: `${w.join(' ')} (ADD ${url})`, locked: false, scriptsDisabled: null });
        }
        // As written: the parsed content drops the `\n` escapes inside quotes that echo turns into lines.
        for (const w of writtenFiles(
          shellOf((ins as { getRawArgumentsContent?: () => string | null }).getRawArgumentsContent?.() ?? content),
        ))
          s.files.push({ ...w, source: null, at: at(ins) });
        // The shell sees the stage's ARGs and ENV in its environment: `npm install -g pkg@${VERSION}`.
        let cwd = s.workdir;
        for (const words of commandsOf(run)) {
          if (words[0] === 'cd' && words[1] !== undefined && !words[1].startsWith('-')) cwd = posix.resolve(cwd, words[1]);
          // `su-exec mcpuser npm install`, `gosu app pip install …` (createthis/diffcalculia_mcp): the install after the user.
          const w = ((x: string[]) => (/(^|\/)(gosu|su-exec)$/.test(x[0] ?? '') && x.length > 2 ? unwrap(x.slice(2)) : x))(unwrap(words));
          const step = installStep(w, at(ins));
          // GOFLAGS=-mod=mod, on the command or in the stage's ENV, lets the build rewrite go.mod and
          // go.sum as a `-mod=mod` flag does (stackrox/stackrox-mcp's konflux.Dockerfile uses the flag).
          const goflags = words.find((x) => x.startsWith('GOFLAGS='))?.slice(8) ?? envOf(stage, 'GOFLAGS') ?? '';
          if (step?.tool === 'go' && step.locked && /(^|\s)-mod=mod\b/.test(goflags))
            Object.assign(step, { locked: false, followsLockfile: true, text: `GOFLAGS=${goflags} ${step.text}` });
          // Yarn Berry's YARN_ENABLE_SCRIPTS=false, on the command or in the stage's ENV, runs no dependency's
          // scripts (meloncafe/chromadb-remote-mcp's `YARN_ENABLE_SCRIPTS=false yarn install --immutable`).
          const yarnScripts = words.find((x) => x.startsWith('YARN_ENABLE_SCRIPTS='))?.slice(20) ?? envOf(stage, 'YARN_ENABLE_SCRIPTS');
          if (step?.tool === 'yarn' && /^(false|0)$/i.test(yarnScripts ?? '')) step.scriptsDisabled = true;
          if (step && step.tool !== 'script' && (!step.packages?.length || step.projectOnly))
            s.copied.push(...projectFilesAt(s.contextCopies, cwd, w));
          if (step) install(stage, step);
          const proxy = proxyPackage(w);
          if (proxy) s.proxy ??= { product: proxy, at: at(ins) };
          const line = w.join(' ');
          if (/^npm audit signatures\b/.test(line)) auditIn.push({ stage, at: at(ins) });
          const moving = fetchedFromMovingRef(w) ?? clonedFromBranch(w, text);
          if (moving) fetchedIn.push({ stage, at: at(ins), text: line });
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
      }
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
          // `ADD https://…/main/tool /usr/local/bin/tool`: fetched at build time, as curl would.
          const words = ins.getArguments().map((a) => a.getValue());
          const target = substIn(stage, words.at(-1) ?? '');
          for (const url of kw === 'ADD' ? words.slice(0, -1).filter((w) => /^https?:\/\//.test(w)) : []) {
            if (fetchedFromMovingRef([url], target.endsWith('/') ? posix.basename(url) : target))
              fetchedIn.push({ stage, at: at(ins), text: `ADD ${url}` });
            // `ADD --checksum=sha256:…` fixes the content; without it the file is whatever the URL serves.
            if (!flags.some((f) => f.getName() === 'checksum'))
              addedUrls.set(`${stage}:${target.endsWith('/') ? `${target}${posix.basename(url)}` : target}`, url);
          }
          const sources = copySources(
            ins.getArguments().map((a) => a.getValue()),
            content,
          ).map((x) => substIn(stage, x));
          s.copied.push(...sources);
          const dest = substIn(stage, ins.getArguments().at(-1)?.getValue() ?? '');
          s.contextCopies.push(...contextCopies(sources, dest, s.workdir));
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
  return { stages, stageNames, externalBases, secretsInImage, installsIn, auditIn, sbomIn, ignoreScriptsIn, rebuildIn, fetchedIn };
}

/**
 * What an install that reads the project sees of the context where it runs: the top of the context
 * directory copied to its working directory (SimpleMem's `COPY . .` then `WORKDIR /app/MCP` and
 * `pip install -r requirements.txt` reads MCP/requirements.txt), and the requirement files it names.
 */
function projectFilesAt(copies: readonly ContextCopy[], cwd: string, words: string[]): string[] {
  // The context's own top is what copying it brings in already.
  const out = contextPathsOf(copies, cwd)
    .filter((dir) => dir !== '.')
    .map((dir) => `${dir}/*`);
  for (const [i, w] of words.entries()) {
    const named = /^(-r|-c|--requirement|--constraint)$/.test(w) ? words[i + 1] : /^--(requirement|constraint)=(.+)$/.exec(w)?.[2];
    if (named) out.push(...contextPathsOf(copies, posix.resolve(cwd, named)));
  }
  return out;
}
