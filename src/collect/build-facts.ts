// Supply-chain and image facts shared by every platform that runs a container: from the
// Dockerfile a service is built from, or from the image reference alone.

import { checksNothing, checksOnlyWhen, failsAlways } from './docker-defaults.js';
import { type InstallStep, tooling } from './dockerfile/install-step.js';
import type { DockerfileInfo } from './dockerfile/read.js';
import { type Inputs, normalise } from './inputs.js';
import {
  bunTrustsNone,
  isMcpPackage,
  lockfilesIgnored,
  lockfilesOfBuild,
  npmrcScriptsOff,
  pnpmScripts,
  requirementsPinned,
  yarnScriptsOff,
} from './packages.js';
import { imagePin, repository } from './roles.js';
import { isPlaceholder } from './secrets.js';
import type { At, FactSheet } from './sheet.js';
import { unwrap } from './shell.js';

/** A numeric or named USER: root (uid 0) or not; a `${VAR}` decides nothing. */
export function userIsRoot(user: string): boolean | null {
  const name = user.split(':')[0]!.trim();
  if (name === '' || name.includes('$')) return null;
  return name === '0' || name === 'root';
}

/**
 * `exec gosu mcp:mcp python -m server` as the entrypoint script's command (nordeim/Security-MCP-Server):
 * the server runs as that user, whatever the image's USER; gosu, su-exec, runuser -u and setpriv --reuid.
 */
export function privilegeDrop(
  sheet: FactSheet,
  launched: { words: string[]; at: At; drop?: { words: string[]; at: At; conditional?: string } } | null,
): void {
  const script = launched?.drop ?? launched;
  if (!script || sheet.get('container.runs_as_root') === false) return;
  if (launched?.drop?.conditional) {
    const why = `the entrypoint script drops to another user only under \`${launched.drop.conditional}\`; otherwise it runs the server as the image's user`;
    if (sheet.has('container.runs_as_root')) sheet.reopen('container.runs_as_root', why);
    else sheet.undecided('container.runs_as_root', why);
    return;
  }
  const [tool = '', ...rest] = script.words;
  const name = tool.split('/').pop()!;
  const user =
    name === 'gosu' || name === 'su-exec'
      ? rest[0]
      : name === 'runuser' && rest.includes('-u')
        ? rest[rest.indexOf('-u') + 1]
        : // su's form, `runuser mcp -c …` (pgEdge/pgedge-postgres-mcp's init-server.sh): the first word that is no option.
          name === 'runuser'
          ? rest.find((w) => !w.startsWith('-'))
          : name === 'setpriv'
            ? /^--reuid[= ]?(\S+)$/.exec(rest.find((w) => w.startsWith('--reuid')) ?? '')?.[1]
            : undefined;
  const root = user === undefined ? null : userIsRoot(user);
  if (root !== null)
    sheet.set(
      'container.runs_as_root',
      root,
      script.at,
      `${name} ${user} starts the server as ${user} (the entrypoint script drops the image's user)`,
    );
}

/**
 * supervisord as what the container runs (dx-tooling/maas-webapp's images, `USER root` and
 * `CMD ["supervisord", …]`): it starts the server as the `user=` of its program section, which its
 * configuration decides, so root as the image's user says nothing of the server's.
 */
export function supervisedRun(sheet: FactSheet, words: string[]): void {
  const first = unwrap(words)[0]?.split('/').pop();
  if (first !== 'supervisord' || sheet.get('container.runs_as_root') !== true) return;
  sheet.reopen(
    'container.runs_as_root',
    "the container runs supervisord, which starts the server as the user= its configuration's program section names (root where it names none)",
  );
}

/** The lockfile each tool follows when one is committed. */
const LOCKFILE_OF: Partial<Record<InstallStep['tool'], RegExp>> = {
  npm: /^(package-lock|npm-shrinkwrap)\.json$/,
  yarn: /^yarn\.lock$/,
  pnpm: /^pnpm-lock\.yaml$/,
  uv: /^uv\.lock$/,
  poetry: /^poetry\.lock$/,
  cargo: /^Cargo\.lock$/,
  go: /^go\.sum$/,
  dotnet: /^packages\.lock\.json$/,
  bun: /^bun\.lockb?$/,
};

/** The install that refuses a lockfile out of step with its manifest, by tool. */
const STRICT: Partial<Record<InstallStep['tool'], string>> = {
  npm: 'npm ci',
  yarn: 'yarn install --immutable',
  pnpm: 'pnpm install --frozen-lockfile',
  uv: 'uv sync --locked',
  poetry: 'poetry check --lock',
  cargo: '--locked',
  go: 'go build with its default -mod=readonly, without go mod tidy or -mod=mod',
  dotnet: 'dotnet restore --locked-mode',
  bun: 'bun install --frozen-lockfile',
};

/** Facts the Dockerfile decides about the image this deployment builds and runs. */
export function dockerfileFacts(sheet: FactSheet, df: DockerfileInfo, inputs: Inputs, contextDir: string, buildAt: At): void {
  sheet.set('supply_chain.builds_server', true, buildAt, `the image is built here from ${df.path}`);
  if (!sheet.has('container.runs_as_root')) {
    if (df.user) {
      const root = userIsRoot(df.user.value);
      const { value, written } = df.user;
      if (root !== null)
        sheet.set(
          'container.runs_as_root',
          root,
          df.user.at,
          value === written
            ? `USER ${value} in the final stage`
            : `USER ${written} in the final stage: ${value}, from the build's ARG values and ENV`,
        );
      else sheet.undecided('container.runs_as_root', `USER ${written} in ${df.path}: a value the files do not give (a build argument)`);
    } else if (df.scratch) sheet.set('container.runs_as_root', true, df.base!.at, 'FROM scratch without USER runs as uid 0');
    // Distroless's `:nonroot` tags set USER nonroot (uid 65532) in the image (AENDYSTUDIO's ipfs-service.Dockerfile).
    else if (df.base && /^gcr\.io\/distroless\/[^:@]+:([\w.-]*-)?nonroot(@sha256:[0-9a-f]{64})?$/.test(df.base.image))
      sheet.set('container.runs_as_root', false, df.base.at, `FROM ${df.base.image}: the image's user is nonroot (uid 65532)`);
    else
      sheet.undecided(
        'container.runs_as_root',
        `no USER in ${df.path}: the base image's default user decides (root for most official images, but that is the image's, not the files')`,
      );
  }
  const broken = df.healthcheck && !df.healthcheck.disabled ? failsAlways(df.healthcheck.test) : null;
  if (!sheet.looked('container.healthcheck') && df.healthcheck && broken)
    sheet.set(
      'container.healthcheck',
      false,
      df.healthcheck.at,
      `HEALTHCHECK in exec form passes \`${broken}\` as an argument (no shell runs it): the check fails whatever the server does`,
    );
  else if (!sheet.looked('container.healthcheck') && df.healthcheck && !df.healthcheck.disabled && checksOnlyWhen(df.healthcheck.test))
    sheet.undecided(
      'container.healthcheck',
      `HEALTHCHECK in ${df.path} checks the server only when ${checksOnlyWhen(df.healthcheck.test)}, and passes without a look otherwise: the environment it runs in decides`,
    );
  else if (!sheet.looked('container.healthcheck') && df.healthcheck)
    sheet.set(
      'container.healthcheck',
      !df.healthcheck.disabled && !checksNothing(df.healthcheck.test),
      df.healthcheck.at,
      !df.healthcheck.disabled && checksNothing(df.healthcheck.test)
        ? 'HEALTHCHECK in the Dockerfile can never fail: it checks nothing of the server'
        : 'HEALTHCHECK in the Dockerfile',
    );
  for (const s of df.secretsInImage) {
    sheet.set('container.secrets_source', 'baked_into_image', s.at, s.how);
    break;
  }

  // Installs: every one from a lockfile, install scripts off, signatures audited, an SBOM made.
  const lockfiles = lockfilesOfBuild(inputs, contextDir, df.copied);
  // `npm install -g pnpm` before `pnpm install --frozen-lockfile`, `pip install uv` before `uv sync
  // --frozen` (confluentinc/mcp-confluent, arunbcodes/maverick-mcp): the installer is the build's
  // tooling, as its base image is, not the code that runs (doctrine: deployed_release is how that
  // code is fixed), whatever its version. The server's own installs decide.
  // A step that writes the lockfile (`go mod tidy`, `uv lock`, `poetry lock`) no longer decides
  // once a later install of the same tool gets the committed lockfile back over what it wrote:
  // benCoomes/demo-mcp copies go.mod, tidies, then `COPY . .` before `go build`;
  // sooperset/mcp-atlassian's `uv sync --frozen` bind-mounts uv.lock after its `uv lock`.
  const bringsLock = (tool: InstallStep['tool'], src: string) => {
    const n = normalise(src).replace(/\/$/, '');
    return n === '' || n === '.' || LOCKFILE_OF[tool]?.test(n.split('/').pop()!) === true;
  };
  const undone = (i: InstallStep) =>
    /^(go mod tidy|uv lock|poetry lock)\b/.test(i.text) &&
    df.installs.some(
      (j) =>
        j.tool === i.tool &&
        df.installs.indexOf(j) > df.installs.indexOf(i) &&
        (j.copiedBefore ?? []).slice((i.copiedBefore ?? []).length).some((src) => bringsLock(i.tool, src)),
    );
  const steps = df.installs.filter((i) => !tooling(i) && !undone(i));
  // `go install MODULE@VERSION` (acuvity/mcp-servers-registry's minibridge at a commit) needs no go.sum of the
  // build: that module's own go.mod fixes its tree, checked against the checksum database.
  const remoteAtVersion = (i: InstallStep) => /^go install\b/.test(i.text) && /\s[^\s@]+@(?!(latest|master|main)\b)[\w.+-]+/.test(i.text);
  const installs = steps.filter((i) => i.tool !== 'go' || remoteAtVersion(i) || lockfiles.some((l) => l.path.endsWith('go.sum')));
  const goWithoutSum = steps.find((i) => i.tool === 'go' && !installs.includes(i));
  if (steps.length) {
    // The lockfile must be in the install's own stage: n8n-mcp's runtime stage writes a package.json and
    // runs `npm install` there with no lockfile, while an earlier stage ran `npm ci` with one.
    const hasLock = (i: InstallStep) =>
      lockfilesOfBuild(inputs, contextDir, i.copiedBefore ?? df.copied).some(
        (l) => LOCKFILE_OF[i.tool]?.test(l.path.split('/').pop()!) === true,
      );
    // `poetry install` with no poetry.lock in the build resolves and writes one (vulnersCom/vulners-mcp
    // copies `poetry.lock*`, which matches nothing it commits): held to nothing.
    const lockless = (i: InstallStep) => i.tool === 'poetry' && i.locked && !hasLock(i);
    // A `cargo fetch --locked` has checked Cargo.lock against the manifest: the builds after it keep
    // to it. Not those before it: a `cargo fetch` first may rewrite the lockfile a later `--locked`
    // then checks (tuananh/hyper-mcp's order).
    const cargoChecked = (i: InstallStep) => installs.slice(0, installs.indexOf(i)).some((j) => j.tool === 'cargo' && j.locked);
    const held = (i: InstallStep) => (i.locked && !lockless(i)) || (i.tool === 'cargo' && cargoChecked(i) && i.followsLockfile === true);
    const unlocked = [...installs.filter((i) => !held(i)), ...(goWithoutSum ? [goWithoutSum] : [])];
    // Cited at the server's own install where one decides, before a package manager's bootstrap
    // (`pip install --require-hashes -r uv-requirements.txt` before `uv sync --frozen`).
    const bootstrap = (i: InstallStep) => i.tool === 'script' || tooling(i);
    const own = (list: InstallStep[]) => list.find((i) => !bootstrap(i)) ?? list[0];
    const first = own(unlocked) ?? own(installs)!;
    // caleb-mabry/postgres-mcp: `npm ci` after `COPY package*.json`, with package-lock.json in
    // .dockerignore: a frozen install with no lockfile fails, so the build as written never completes.
    // CasualClark/OpenSpec's `COPY package.json pnpm-lock.yaml ./` with pnpm-lock.yaml there: the COPY itself fails.
    const keptOut = lockfilesIgnored(inputs, contextDir, first.copiedBefore ?? df.copied).filter(
      (k) => LOCKFILE_OF[first.tool]?.test(k.path.split('/').pop()!) === true,
    );
    const named = keptOut.find((k) => k.named);
    // A frozen install whose lockfile the build never copies (andkirby/markdown-ticket's `bun install
    // --frozen-lockfile` after `COPY package*.json`): npm ci and the others refuse to run without
    // one. Unless the build copies out of an image, whose files may hold one.
    const uncopied =
      !unlocked.length && !keptOut.length && !df.copiedImages.length && first.tool !== 'go' && LOCKFILE_OF[first.tool] && !hasLock(first);
    const brokenBuild = !!named || (!unlocked.length && keptOut.length > 0 && !hasLock(first)) || !!uncopied;
    if (brokenBuild) {
      const why = named
        ? `a COPY names ${named.path}, which .dockerignore keeps out of the build: the build as written fails there, and what a working one installs is not in the files`
        : uncopied
          ? `${first.text} needs a lockfile the build does not copy in before it: what it installs is not in the files`
          : `${first.text} needs ${keptOut[0]!.path}, which .dockerignore keeps out of the build: the build as written fails, and what a working one installs is not in the files`;
      sheet.undecided('supply_chain.lockfile_enforced', why);
      sheet.undecided('supply_chain.deployed_release', why);
    } else
      sheet.set(
        'supply_chain.lockfile_enforced',
        unlocked.length === 0,
        first.at,
        unlocked.length
          ? `${first.text}: not installed from a lockfile it must match`
          : `${first.text} installs the committed lockfile exactly`,
      );
    // `cargo build` without --locked, `npm install`, `yarn`, `pnpm install` and `uv sync` install
    // their committed lockfile's versions unless the manifest no longer matches it, and then
    // resolve anew: which one happens only resolving would show.
    // `uv pip install .` after `uv sync --frozen --no-install-project` (semgrep/mcp): the locked
    // dependencies stay while they satisfy the project's requirements, and only what they miss resolves.
    const lockedBefore = (i: InstallStep) => i.projectOnly === true && installs.slice(0, installs.indexOf(i)).some((j) => j.locked);
    // Go's versions are go.mod's (minimal version selection picks the ones it requires), go.sum only
    // their hashes: `go mod tidy` without go.sum resolves as with it (tillkuhn/make-your-mcp-server).
    const follows = (i: InstallStep) => i.followsLockfile === true && (hasLock(i) || i.tool === 'go');
    const floating = unlocked.filter((i) => !follows(i) && !lockedBefore(i) && !i.resolvesLowest);
    const lowest = unlocked.find((i) => i.resolvesLowest && !hasLock(i));
    if (brokenBuild) {
      // Both stay open, said above.
    } else if (unlocked.length && !floating.length)
      sheet.undecided(
        'supply_chain.deployed_release',
        lowest
          ? `${lowest.text} resolves the lowest version each package reference allows, with no lockfile: fixed unless a reference floats (\`1.*\`) in the project files or a version leaves the feed`
          : lockedBefore(first)
            ? `${first.text} keeps the dependencies a locked install put there while they satisfy the project's requirements, and resolves anew what they do not`
            : first.tool === 'go' && /^go mod tidy\b/.test(first.text)
              ? `${first.text} keeps the versions go.mod requires (minimal version selection) and adds any module the code imports that go.mod lacks at its newest: whether it adds one is the code's`
              : `${first.text} uses the committed lockfile unless the manifest no longer matches it, and then resolves anew (${STRICT[first.tool] ?? 'a frozen install'} makes that an error)`,
      );
    else if (unlocked.length === 0) sheet.set('supply_chain.deployed_release', 'locked', first.at, 'the image is built from the lockfile');
    else {
      // The release is as loose as its loosest install: one unpinned package floats the image.
      // Named by the server's own packages where one floats, before a package manager's bootstrap.
      const exact = (i: InstallStep) => i.exact || requirementsPinned(inputs, contextDir, i.copiedBefore ?? df.copied, i.text);
      const loose = floating.find((i) => !exact(i) && !bootstrap(i)) ?? floating.find((i) => !exact(i));
      const worst = loose ?? floating[0]!;
      // Exact versions beside an install that follows its lockfile only while the manifest matches
      // (mittwald/mcp-server's `npm install -g @mittwald/cli@1.12.0`, then `npm ci || npm install`):
      // that one may resolve anew, so the loosest is open.
      const follower = loose ? undefined : unlocked.find((i) => !floating.includes(i) && follows(i));
      if (follower)
        sheet.undecided(
          'supply_chain.deployed_release',
          `${worst.text} installs an exact version, but ${follower.text} uses the committed lockfile unless the manifest no longer matches it, and then resolves anew (${STRICT[follower.tool] ?? 'a frozen install'} makes that an error)`,
        );
      else
        sheet.set(
          'supply_chain.deployed_release',
          loose ? 'floating' : 'exact_version',
          worst.at,
          loose
            ? `${worst.text} resolves versions at build time`
            : `${worst.text} installs an exact version; its dependencies resolve from their ranges at build time`,
        );
    }
    // Yarn Berry's `.yarnrc.yml` with `enableScripts: false`, copied in before the install.
    const yarnOff = (i: InstallStep) =>
      (i.tool === 'yarn' && yarnScriptsOff(inputs, contextDir, i.copiedBefore ?? df.copied)) ||
      ((i.tool === 'npm' || i.tool === 'pnpm') && npmrcScriptsOff(inputs, contextDir, i.copiedBefore ?? df.copied)) ||
      (i.tool === 'bun' && bunTrustsNone(inputs, contextDir, i.copiedBefore ?? df.copied));
    // pnpm's policy follows its version, where the files name it (packageManager, or pnpm@X installed first).
    // The major version decides the policy: `pnpm@8` (sparesparrow/mcp-prompts) is pnpm 8, whatever its minor.
    const pnpmStep = df.installs.find((i) => i.packages?.includes('pnpm') && /\bpnpm@\d/.test(i.text));
    const pnpmInstalled = pnpmStep ? { version: /\bpnpm@(\d+(?:\.\d+)*)/.exec(pnpmStep.text)![1]!, at: pnpmStep.at } : null;
    const pnpm = steps.some((i) => i.tool === 'pnpm' && i.scriptsDisabled === null)
      ? pnpmScripts(inputs, contextDir, df.copied, pnpmInstalled)
      : null;
    const policyOf = (i: InstallStep): InstallStep =>
      i.tool === 'pnpm' && i.scriptsDisabled === null && pnpm
        ? { ...i, scriptsDisabled: pnpm.off, text: `${i.text} under ${pnpm.under}` }
        : i;
    const npmish = steps.map(policyOf).filter((i) => i.scriptsDisabled !== true && !yarnOff(i));
    const open = own(npmish.filter((i) => i.scriptsDisabled === false && !df.ignoreScriptsEnv));
    const unknown = npmish.find((i) => i.scriptsDisabled === null);
    if (df.scriptsRun)
      sheet.set(
        'supply_chain.install_scripts_disabled',
        false,
        df.scriptsRun.at,
        `${df.scriptsRun.text} runs the install scripts of what it rebuilds`,
      );
    else if (open)
      sheet.set(
        'supply_chain.install_scripts_disabled',
        false,
        open.at,
        open.tool === 'cargo'
          ? `${open.text} runs its dependencies' build scripts and procedural macros`
          : open.tool === 'dotnet'
            ? `${open.text}: the build imports its packages' MSBuild props and targets, code of the dependencies`
            : open.tool === 'bun'
              ? `${open.text} runs the install scripts of the packages on Bun's default trusted list and in trustedDependencies`
              : `${open.text} runs dependency install scripts`,
      );
    else if (unknown)
      sheet.undecided(
        'supply_chain.install_scripts_disabled',
        unknown.tool === 'script'
          ? `${unknown.text}: what the fetched script runs is not in the files`
          : `${unknown.text}: whether dependencies run build code depends on the packages (source distributions, the package manager's defaults)`,
      );
    else
      sheet.set(
        'supply_chain.install_scripts_disabled',
        true,
        (df.ignoreScriptsEnv ?? (pnpm?.off ? pnpm.at : steps[0]!.at)) as At,
        pnpm?.off ? `every install runs without dependency scripts: ${pnpm.why}` : 'every install runs without dependency scripts',
      );
    // A CI step that runs `npm audit signatures` on the same lockfile checks the same tarballs
    // (their integrity hashes are the lockfile's): its absence from the Dockerfile decides nothing.
    if (df.auditSignatures) sheet.set('supply_chain.provenance_verified', true, df.auditSignatures, 'npm audit signatures in the build');
    else sheet.undecided('supply_chain.provenance_verified', 'no signature check in the Dockerfile; a CI step outside it may verify');
  } else {
    sheet.undecided('supply_chain.lockfile_enforced', `${df.path} installs no dependencies the collector recognises`);
    sheet.undecided('supply_chain.install_scripts_disabled', `${df.path} installs no dependencies the collector recognises`);
  }
  copiedServerRelease(sheet, df);
  // Code fetched from a branch is whatever the branch holds at build time: the image floats with it.
  if (df.fetchedFromBranch && sheet.get('supply_chain.deployed_release') !== 'floating')
    sheet.set(
      'supply_chain.deployed_release',
      'floating',
      df.fetchedFromBranch.at,
      `${df.fetchedFromBranch.text} fetches what a branch or a "latest" link holds when the image is built`,
    );
  if (df.sbom) sheet.set('supply_chain.sbom_published', true, df.sbom, 'the build writes an SBOM into the image');
  else sheet.undecided('supply_chain.sbom_published', 'no SBOM step in the Dockerfile; CI may publish one');
}

const RELEASE_RANK: Record<string, number> = { floating: 0, exact_version: 1, locked: 2, digest: 2 };

/**
 * A published MCP server's image in the final one: copied out of (`COPY --from=ghcr.io/github/github-mcp-server
 * /server/github-mcp-server .`, docker/labs-ai-tools-for-devs) or extended (`FROM
 * ghcr.io/metatool-ai/metamcp:latest`, zenvite2/metamcp-installation). The server is as fixed as
 * that reference names it; the image is as loose as its loosest part, so a floating one floats it
 * whatever the rest, and a fixed one decides where nothing else does.
 */
function copiedServerRelease(sheet: FactSheet, df: DockerfileInfo): void {
  const extended =
    df.base && repository(df.base.image).includes('/') && /mcp/i.test(repository(df.base.image).split('/').pop()!)
      ? [{ image: df.base.image, at: df.base.at, how: `FROM ${df.base.image}: the final image is built on that image` }]
      : [];
  const copied = df.copiedImages
    .filter((x) => isMcpPackage(repository(x.image)))
    .map((x) => ({ ...x, how: `COPY --from=${x.image} copies the server out of that image` }));
  for (const c of [...copied, ...extended]) {
    const pin = imagePin(c.image);
    const current = sheet.get('supply_chain.deployed_release');
    const looser =
      current === undefined
        ? !sheet.openFacts().has('supply_chain.deployed_release') || pin === 'floating'
        : RELEASE_RANK[pin]! < RELEASE_RANK[String(current)]!;
    if (looser)
      sheet.set(
        'supply_chain.deployed_release',
        pin,
        c.at,
        `${c.how}, named ${pin === 'digest' ? 'by digest' : pin === 'floating' ? 'by a floating tag or none' : 'by a version tag'}`,
      );
  }
}

/**
 * Facts an image reference decides when the deployment only runs it. `untied` lists Dockerfiles
 * among the inputs that no workload was tied to: one of them may build this image, and a
 * self-built image counts as its build (doctrine: supply_chain.deployed_release), so a tag then
 * decides nothing about the release.
 */
export function imageFacts(sheet: FactSheet, image: string, at: At, untied: string[] = []): void {
  // A reference a deploy step fills in: meetpatel1111/k8s-mcp-infra's `image: ${MCP_IMAGE}` (envsubst),
  // wontaeJeong/mcp-platform-gitops' `newTag: REPLACE_WITH_GIT_SHA`, which CI sets to each commit.
  const tag = /:([^/:@]+)$/.exec(image.split('@')[0]!)?.[1] ?? '';
  const variable = /\$\{?[A-Za-z_]|\$\([A-Za-z_]|\{\{/.test(image);
  if (variable || (tag !== '' && isPlaceholder(tag))) {
    const why = `image ${image} is ${variable ? 'a variable' : 'a placeholder'} a deploy step fills in: what it names is not in the files`;
    if (variable) sheet.undecided('container.image_pinned_by_digest', why);
    else sheet.set('container.image_pinned_by_digest', false, at, `${image} is named by tag`);
    sheet.undecided('supply_chain.deployed_release', why);
    sheet.undecided('supply_chain.builds_server', 'an image reference does not say who built it');
    if (!sheet.has('container.runs_as_root')) sheet.undecided('container.runs_as_root', "no user set: the image's default user decides");
    return;
  }
  const pin = imagePin(image);
  sheet.set(
    'container.image_pinned_by_digest',
    pin === 'digest',
    at,
    pin === 'digest' ? `${image} is named by digest` : `${image} is named by tag`,
  );
  if (pin === 'digest') sheet.set('supply_chain.deployed_release', pin, at, `image ${image}`);
  else if (untied.length)
    sheet.undecided(
      'supply_chain.deployed_release',
      `image ${image} is named by tag and ${untied.join(', ')} among the inputs may build it (a self-built image counts as its build): put that Dockerfile in a directory named like the image, or beside a manifest naming its project so (package.json, pyproject.toml, Cargo.toml, go.mod)`,
    );
  else if (!repository(image).includes('/'))
    // docker.io/library holds only Docker's official images: a bare name is built locally, or a
    // base image whose command starts the server; either way the tag does not fix the server.
    sheet.undecided(
      'supply_chain.deployed_release',
      `image ${image} has no registry or namespace: built locally (then its build decides) or an official base image`,
    );
  else sheet.set('supply_chain.deployed_release', pin, at, `image ${image}`);
  sheet.undecided('supply_chain.builds_server', 'an image reference does not say who built it');
  if (!sheet.has('container.runs_as_root')) sheet.undecided('container.runs_as_root', "no user set: the image's default user decides");
}
