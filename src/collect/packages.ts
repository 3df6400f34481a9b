// Package manifests and lockfiles where the server is built: whether the code is an MCP server
// (an MCP SDK among its dependencies, or the MCP registry's `mcpName`) and which lockfile a build can install from.

import { posix } from 'node:path';
import dockerignoreModule from '@balena/dockerignore';
import { parse as parseToml } from 'smol-toml';
import { dirOf, type Inputs, normalise, type TextFile } from './inputs.js';
import type { At } from './sheet.js';

const NPM_SDKS =
  /^(@modelcontextprotocol\/(sdk|server|server-[\w-]+)|fastmcp|mcp-framework|@mastra\/mcp|mcp-proxy|supergateway|@cloudflare\/mcp-agent|agents|xmcp)$/;
const PY_SDKS = /^(mcp|fastmcp|fastmcp-slim|mcp-proxy|mcpo)(\[.*\])?$/i;
/** rmcp: the official Rust SDK (mcp-server and mcp-core its crates before it); rust-mcp-sdk: its main alternative. */
const RUST_SDKS = /^(rmcp|rust-mcp-sdk|mcp-server|mcp-core)$/;
/**
 * The Java and .NET SDKs as their build files name them: the official Java and Kotlin SDKs, Spring
 * AI's MCP server starters (not its client starter), Quarkus' MCP server, and the C# SDK's NuGet packages.
 */
const JVM_SDKS =
  /<groupId>\s*io\.modelcontextprotocol\.sdk\s*<\/groupId>|\bio\.modelcontextprotocol\.sdk:|\bio\.modelcontextprotocol:kotlin-sdk[\w-]*|\bspring-ai-(starter-)?mcp-server[\w-]*|\bquarkus-mcp-server[\w-]*/;
const DOTNET_SDKS = /<PackageReference\s+Include="(ModelContextProtocol(\.AspNetCore|\.Core)?)"/i;
const GO_SDKS = /^(github\.com\/mark3labs\/mcp-go|github\.com\/modelcontextprotocol\/go-sdk|github\.com\/metoro-io\/mcp-golang)$/;
/**
 * The other official SDKs and their main alternatives, by the manifest that names them: Swift's
 * package (sassiwalid/spm-analyzer-mcp), Ruby's Gemfile, PHP's composer.json, Elixir's mix.exs.
 */
const OTHER_SDKS: Record<string, RegExp> = {
  'package.swift': /\.package\(\s*url:\s*"https:\/\/github\.com\/(modelcontextprotocol\/swift-sdk)(\.git)?"/,
  gemfile: /^\s*gem\s+["'](mcp|fast-mcp|mcp-rb)["']/m,
  'composer.json': /"(mcp\/sdk|php-mcp\/server|php-mcp\/laravel|logiscape\/mcp-sdk-php)"\s*:/,
  'mix.exs': /\{\s*:(hermes_mcp)\s*,/,
};

// A CommonJS module whose types declare an ES default export: at run time the import is the function itself.
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;

const lineOf = (text: string, needle: string): number => {
  const i = text.indexOf(needle);
  return i < 0 ? 1 : text.slice(0, i).split('\n').length;
};

/**
 * A registry package that is an MCP server, SDK or bridge by its name: a known one, or one whose
 * name has `mcp` as a word of its own (`mongodb-mcp-server`, `@playwright/mcp`, `mcp_server_time`).
 */
/**
 * The name a directory's manifest gives its project, the name its image usually takes:
 * package.json's `name` (unscoped), pyproject.toml's `[project]` or `[tool.poetry]` name,
 * Cargo.toml's `[package]` name, go.mod's module (its last element); null without one.
 */
export function projectName(inputs: Inputs, dir: string): string | null {
  const at = (name: string) => inputs.get(dir ? `${dir}/${name}` : name)?.text;
  try {
    const pkg = at('package.json');
    const npm = pkg === undefined ? undefined : (JSON.parse(pkg) as { name?: unknown }).name;
    if (typeof npm === 'string' && npm) return npm.split('/').pop()!;
    const py = at('pyproject.toml');
    const t = py === undefined ? undefined : (parseToml(py) as { project?: { name?: unknown }; tool?: { poetry?: { name?: unknown } } });
    const pyName = t?.project?.name ?? t?.tool?.poetry?.name;
    if (typeof pyName === 'string' && pyName) return pyName;
    const cargo = at('Cargo.toml');
    const crate = cargo === undefined ? undefined : (parseToml(cargo) as { package?: { name?: unknown } }).package?.name;
    if (typeof crate === 'string' && crate) return crate;
  } catch {
    // A manifest that does not parse names nothing; the next kind may.
  }
  const mod = /^module\s+(\S+)/m.exec(at('go.mod') ?? '')?.[1];
  return mod ? mod.split('/').pop()! : null;
}

export function isMcpPackage(name: string): boolean {
  return NPM_SDKS.test(name) || PY_SDKS.test(name) || /(^|[-_/@.])mcp([-_.]|$)/i.test(name);
}

/** An MCP SDK or framework among the dependencies this manifest declares. */
export function mcpDependency(file: TextFile): { at: At; name: string } | null {
  const base = file.path.split('/').pop()!.toLowerCase();
  try {
    if (base === 'package.json') {
      const pkg = JSON.parse(file.text) as Record<string, Record<string, string> | undefined>;
      // The MCP registry's own field: the package says it is the server published under that name.
      const registered = (pkg as Record<string, unknown>)['mcpName'];
      if (typeof registered === 'string' && registered !== '')
        return { at: { file: file.path, line: lineOf(file.text, '"mcpName"') }, name: `mcpName ${registered}` };
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const name of Object.keys(pkg[field] ?? {}).sort())
          if (NPM_SDKS.test(name)) return { at: { file: file.path, line: lineOf(file.text, `"${name}"`) }, name };
      }
      return null;
    }
    // Deno's deno.json(c) imports npm and JSR packages by specifier (wyattjoh/jmap-mcp's `npm:@modelcontextprotocol/sdk@1`).
    if (base === 'deno.json' || base === 'deno.jsonc') {
      for (const m of file.text.matchAll(/["'](?:npm|jsr):(@?[\w.-]+(?:\/[\w.-]+)?)/g))
        if (NPM_SDKS.test(m[1]!)) return { at: { file: file.path, line: file.text.slice(0, m.index).split('\n').length }, name: m[1]! };
      return null;
    }
    if (base === 'pyproject.toml') {
      const t = parseToml(file.text) as {
        project?: { dependencies?: string[] };
        tool?: { poetry?: { dependencies?: Record<string, unknown> } };
      };
      const deps = [...(t.project?.dependencies ?? []), ...Object.keys(t.tool?.poetry?.dependencies ?? {})];
      for (const d of deps) {
        const name = /^[A-Za-z0-9_.-]+(\[[^\]]*\])?/.exec(d.trim())?.[0] ?? '';
        if (PY_SDKS.test(name)) return { at: { file: file.path, line: lineOf(file.text, d) }, name };
      }
      return null;
    }
    if (/^requirements.*\.(txt|in)$/.test(base)) {
      const rows = file.text.split('\n');
      for (let i = 0; i < rows.length; i++) {
        const name = /^[A-Za-z0-9_.-]+(\[[^\]]*\])?/.exec(rows[i]!.trim())?.[0] ?? '';
        if (PY_SDKS.test(name)) return { at: { file: file.path, line: i + 1 }, name };
      }
      return null;
    }
    if (file.path.split('/').pop() === 'Cargo.toml') {
      const t = parseToml(file.text) as {
        dependencies?: Record<string, unknown>;
        workspace?: { dependencies?: Record<string, unknown> };
      };
      for (const name of [...Object.keys(t.dependencies ?? {}), ...Object.keys(t.workspace?.dependencies ?? {})].sort())
        if (RUST_SDKS.test(name)) {
          // `rmcp = { version = … }` under [dependencies], or a table of its own, `[dependencies.rmcp]`.
          const rows = file.text.split('\n');
          const i = rows.findIndex((r) => new RegExp(`^\\s*(${name}\\s*=|\\[(workspace\\.)?dependencies\\.${name}\\])`).test(r));
          return { at: { file: file.path, line: i + 1 || 1 }, name };
        }
      return null;
    }
    if (base === 'pom.xml' || base === 'build.gradle' || base === 'build.gradle.kts') {
      const m = JVM_SDKS.exec(file.text);
      if (m)
        return { at: { file: file.path, line: lineOf(file.text, m[0]) }, name: m[0].replace(/<\/?groupId>|\s/g, '').replace(/:$/, '') };
      return null;
    }
    if (base.endsWith('.csproj')) {
      const m = DOTNET_SDKS.exec(file.text);
      if (m) return { at: { file: file.path, line: lineOf(file.text, m[0]) }, name: m[1]! };
      return null;
    }
    const other = OTHER_SDKS[base];
    if (other) {
      const m = other.exec(file.text);
      return m ? { at: { file: file.path, line: lineOf(file.text, m[0].trimStart()) }, name: m[1]! } : null;
    }
    if (base === 'go.mod') {
      const rows = file.text.split('\n');
      for (let i = 0; i < rows.length; i++) {
        const mod =
          rows[i]!.trim()
            .replace(/^require\s+/, '')
            .split(/\s+/)[0] ?? '';
        if (GO_SDKS.test(mod)) return { at: { file: file.path, line: i + 1 }, name: mod };
      }
    }
  } catch {
    return null;
  }
  return null;
}

/** Package manifests and lockfiles, by their lower-cased name. */
const MANIFEST =
  /^(package\.json|deno\.jsonc?|pyproject\.toml|go\.mod|cargo\.toml|pom\.xml|build\.gradle(\.kts)?|package\.swift|gemfile|composer\.json|mix\.exs)$|^requirements.*\.(txt|in)$|\.csproj$/;
const LOCKFILE =
  /^(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|uv\.lock|poetry\.lock|go\.sum|bun\.lockb?|cargo\.lock|packages\.lock\.json)$/;

/**
 * Whether every requirements file an install reads (`pip install -r requirements.txt`), as the
 * build copies it, pins each requirement to one version (`mcp==1.10.1`, redhat-ai-tools/ocm-mcp's):
 * the top-level packages are then exact, as when they are named `==` on the command line.
 */
export function requirementsPinned(inputs: Inputs, contextDir: string, copied: readonly string[], text: string): boolean {
  const words = text.split(/\s+/);
  const files = words.flatMap((w, i) =>
    w === '-r' || w === '--requirement'
      ? [words[i + 1] ?? '']
      : w.startsWith('--requirement=')
        ? [w.slice(14)]
        : w.startsWith('-r') && w.length > 2
          ? [w.slice(2)]
          : [],
  );
  if (!files.length) return false;
  const found = copiedFiles(inputs, contextDir, copied, /^requirements.*\.(txt|in)$|\.txt$/);
  return files.every((name) => {
    const f = found.find((x) => x.path.endsWith(`/${posix.basename(name)}`) || x.path === posix.basename(name));
    if (!f) return false;
    const rows = f.text
      .split('\n')
      .map((r) => r.replace(/\s+#.*$/, '').trim())
      .filter((r) => r !== '' && !r.startsWith('#'));
    return rows.length > 0 && rows.every((r) => /^[A-Za-z0-9_.-]+(\[[^\]]*\])?==\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?(\s*;.*)?$/i.test(r));
  });
}

/** A COPY source's file-name pattern (`*.config.json`, `bun.lock*`) as a regular expression of one name. */
export const nameGlob = (base: string): RegExp =>
  new RegExp(
    `^${base
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );

/**
 * The files of one kind a build brings in from its context: what its COPY and ADD lines (and bind
 * mounts) name (`COPY . .`, `COPY package*.json ./`, `COPY servers/time/ /app/`), not whatever
 * the context holds (agentic-community/mcp-gateway-registry builds its auth service from the
 * repository root, whose pyproject.toml is the MCP registry's, and copies only auth_server/). A
 * directory below the context is copied whole: files two levels under it count too (agentgateway's
 * `COPY crates ./crates` holds crates/agentgateway/Cargo.toml); the context itself, its top only.
 */
function copiedFiles(inputs: Inputs, contextDir: string, copied: readonly string[], kind: RegExp, keepIgnored = false): TextFile[] {
  const out = new Map<string, TextFile>();
  const ofKind = (f: TextFile) => kind.test(posix.basename(f.path).toLowerCase());
  const under = (f: TextFile, dir: string, depth: number) => {
    const rest = dir === '' ? f.path : f.path.startsWith(`${dir}/`) ? f.path.slice(dir.length + 1) : null;
    return rest !== null && rest.split('/').length <= depth + 1;
  };
  for (const source of copied) {
    const path = normalise(posix.join(contextDir, source));
    if (path.startsWith('..')) continue;
    const base = posix.basename(path);
    if (/[*?[]/.test(base)) {
      const glob = nameGlob(base);
      for (const f of inputs.all()) if (under(f, dirOf(path), 0) && ofKind(f) && glob.test(posix.basename(f.path))) out.set(f.path, f);
      continue;
    }
    const file = inputs.get(path);
    if (file && ofKind(file)) out.set(path, file);
    for (const f of inputs.all()) if (under(f, path, path === contextDir ? 0 : 2) && ofKind(f)) out.set(f.path, f);
  }
  const ignored = keepIgnored ? () => false : ignoredBy(inputs, contextDir);
  return [...out.values()].filter((f) => !ignored(f.path)).sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * Yarn Berry's project settings, copied into the build, switch dependency scripts off
 * (`enableScripts: false` in `.yarnrc.yml`, meloncafe/chromadb-remote-mcp's).
 */
export function yarnScriptsOff(inputs: Inputs, contextDir: string, copied: readonly string[]): boolean {
  return copiedFiles(inputs, contextDir, copied, /^\.yarnrc\.ya?ml$/).some((f) =>
    /^enableScripts\s*:\s*["']?false["']?\s*(#.*)?$/m.test(f.text),
  );
}

/** The npm packages the package.json files a build copies declare (dependencies of every kind): what a project install puts in node_modules. */
export function npmDeclared(inputs: Inputs, contextDir: string, copied: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of copiedFiles(inputs, contextDir, copied, /^package\.json$/))
    try {
      const pkg = JSON.parse(f.text) as Record<string, unknown>;
      for (const key of ['dependencies', 'devDependencies', 'optionalDependencies'])
        if (pkg[key] && typeof pkg[key] === 'object') out.push(...Object.keys(pkg[key]));
    } catch {
      // Not JSON: it declares nothing readable.
    }
  return out;
}

/**
 * A package.json the build copies with `"trustedDependencies": []`: Bun then trusts no package,
 * its default list included (a list of its own replaces the default one), and runs no dependency's scripts.
 */
export function bunTrustsNone(inputs: Inputs, contextDir: string, copied: readonly string[]): boolean {
  const own = contextDir ? `${contextDir}/package.json` : 'package.json';
  return copiedFiles(inputs, contextDir, copied, /^package\.json$/).some(
    (f) => f.path === own && /"trustedDependencies"\s*:\s*\[\s*\]/.test(f.text),
  );
}

/** An `.npmrc` the build copies in before the install with `ignore-scripts=true` (docker/hub-mcp's): npm and pnpm run no dependency scripts. */
export function npmrcScriptsOff(inputs: Inputs, contextDir: string, copied: readonly string[]): boolean {
  // The project's own: at the context's top, or beside the package.json the build copies
  // (`COPY server/package.json server/.npmrc ./`); a workspace package's alone is not the install's.
  const own = contextDir ? `${contextDir}/.npmrc` : '.npmrc';
  const manifests = new Set(copiedFiles(inputs, contextDir, copied, /^package\.json$/).map((f) => dirOf(f.path)));
  return copiedFiles(inputs, contextDir, copied, /^\.npmrc$/).some(
    (f) => (f.path === own || manifests.has(dirOf(f.path))) && /^\s*ignore-scripts\s*=\s*true\s*(#.*)?$/m.test(f.text),
  );
}

/**
 * The install-script policy of the pnpm a build runs, where the files name its version: the
 * `packageManager` of a package.json it copies (corepack, and pnpm 9.7 and later, switch to that
 * version; bytebase/dbhub's `pnpm@10.17.1`), else an exact `pnpm@X` installed before. pnpm 10 and
 * later run no dependency's build scripts unless allowed (an allow list, `onlyBuiltDependencies`,
 * is enforced); `dangerouslyAllowAllBuilds` turns that off; pnpm 9 and earlier run them all.
 */
export function pnpmScripts(
  inputs: Inputs,
  contextDir: string,
  copied: readonly string[],
  installed: { version: string; at: At } | null,
): { off: boolean; at: At; why: string; under: string } | null {
  let found: { version: string; at: At } | null = null;
  for (const f of copiedFiles(inputs, contextDir, copied, /^package\.json$/)) {
    const m = /"packageManager"\s*:\s*"pnpm@(\d+)[^"]*"/.exec(f.text);
    if (m) {
      found = { version: m[1]!, at: { file: f.path, line: f.text.slice(0, m.index).split('\n').length } };
      break;
    }
  }
  found ??= installed;
  if (!found) return null;
  const major = Number(found.version.split('.')[0]);
  if (major < 10) return { off: false, at: found.at, why: `pnpm ${major} runs dependency install scripts`, under: `pnpm ${major}` };
  const allowAll = copiedFiles(inputs, contextDir, copied, /^(pnpm-workspace\.yaml|\.npmrc)$/).find((f) =>
    /^\s*(dangerouslyAllowAllBuilds\s*:\s*true|dangerously-allow-all-builds\s*=\s*true)\s*$/m.test(f.text),
  );
  if (allowAll)
    return {
      off: false,
      at: { file: allowAll.path, line: 1 },
      why: `${allowAll.path} lets every dependency run its build scripts`,
      under: `pnpm ${major} and dangerouslyAllowAllBuilds`,
    };
  return { off: true, at: found.at, why: `pnpm ${major} runs no dependency's build scripts unless allowed`, under: `pnpm ${major}` };
}

/**
 * What the build context's `.dockerignore` keeps out of the build, whatever a COPY names
 * (caleb-mabry/postgres-mcp lists package-lock.json there: `COPY package*.json` brings none).
 */
function ignoredBy(inputs: Inputs, contextDir: string): (path: string) => boolean {
  const file = inputs.get(contextDir ? `${contextDir}/.dockerignore` : '.dockerignore');
  if (!file) return () => false;
  const rules = dockerignore().add(file.text);
  return (path) => {
    const rel = contextDir === '' ? path : path.startsWith(`${contextDir}/`) ? path.slice(contextDir.length + 1) : null;
    return rel !== null && rules.ignores(rel);
  };
}

/**
 * A final image that runs no Node or Python program: FROM scratch or distroless's static, base or cc
 * image (no interpreter), its command a binary. A monorepo's root package.json that a `COPY . .`
 * brings in (AENDYSTUDIO/NORMALDANCE-INFRASTRUCTURE's ipfs-service, a Go binary) is then not what runs.
 */
export function runsBinaryOnly(
  image: { path: string; scratch: boolean; base: { image: string } | null; entrypoint: string[] },
  inputs: Inputs,
): boolean {
  const interpreterless = image.scratch || /^gcr\.io\/distroless\/(static|base|cc)(-debian\d+)?(:|@|$)/.test(image.base?.image ?? '');
  const program = image.entrypoint[0] ?? '';
  // Unless the build compiles a Node or Python program into that binary (`bun build --compile`, `deno compile`, pkg, PyInstaller).
  const compiled = /\bbun\s+build\b[^\n]*--compile|\bdeno\s+compile\b|\b(pkg|nexe|pyinstaller|nuitka)\s/i.test(
    inputs.get(image.path)?.text ?? '',
  );
  return interpreterless && !compiled && program !== '' && !/(^|\/)(node|npx|npm|bun|deno|python[\d.]*|uv|uvx|java|sh|bash)$/.test(program);
}

/** The MCP SDK evidence of the manifests a build copies from its context, if any. */
export function mcpEvidenceOfBuild(
  inputs: Inputs,
  contextDir: string,
  copied: readonly string[],
  /** The image runs a binary only (runsBinaryOnly): Node and Python manifests say nothing of it. */
  binaryOnly = false,
): { at: At; name: string } | null {
  const members = workspaceManifestsOnly(inputs, contextDir, copied);
  const manifests = copiedFiles(inputs, contextDir, copied, MANIFEST);
  // A project nested in a copied directory whose own manifest, of the same kind and no workspace
  // root, is the directory's program (andkirby/markdown-ticket's `COPY server ./server`, an Express
  // backend, holds server/mcp-dev-tools/package.json): a sub-project, not what the image runs.
  const nested = (m: TextFile) =>
    manifests.some(
      (n) =>
        posix.basename(n.path) === posix.basename(m.path) &&
        dirOf(n.path) !== contextDir &&
        dirOf(m.path).startsWith(`${dirOf(n.path)}/`) &&
        !/"workspaces"\s*:/.test(n.text) &&
        !inputs.get(`${dirOf(n.path)}/pnpm-workspace.yaml`),
    );
  for (const m of [...manifests, ...jarProjects(inputs, contextDir, copied)]) {
    if (members.has(m.path) || nested(m)) continue;
    if (
      binaryOnly &&
      /^(package\.json|deno\.jsonc?|pyproject\.toml|requirements.*\.(txt|in)|setup\.py|pipfile)$/i.test(posix.basename(m.path))
    )
      continue;
    const found = mcpDependency(m);
    if (found) return found;
  }
  return null;
}

/**
 * A workspace install's manifests: a build that copies the package.json of several workspace
 * members for one install, then the code of only one (andkirby/markdown-ticket's frontend and
 * backend images copy `mcp-server/package.json` so that `bun install` resolves the workspace, and
 * not mcp-server's code). The manifests of members whose directory no COPY brings in are those.
 */
function workspaceManifestsOnly(inputs: Inputs, contextDir: string, copied: readonly string[]): Set<string> {
  const manifests = copiedFiles(inputs, contextDir, copied, /^package\.json$/);
  if (manifests.length < 3) return new Set();
  const rel = (p: string) => (contextDir ? posix.relative(contextDir, p) : p);
  const dirs = copied.map((c) => normalise(c)).filter((c) => !/[*?[]/.test(c) && !MANIFEST.test(posix.basename(c).toLowerCase()));
  const whole = (dir: string) => dirs.some((d) => d === '' || d === '.' || d === dir || dir.startsWith(`${d}/`));
  const members = manifests.map((m) => dirOf(rel(m.path))).filter((d) => d !== '');
  // Only where the build brings in some member's code whole: the one it runs.
  if (!members.some(whole)) return new Set();
  return new Set(manifests.filter((m) => dirOf(rel(m.path)) !== '' && !whole(dirOf(rel(m.path)))).map((m) => m.path));
}

/**
 * The Maven or Gradle build files of the project a copied Java archive comes from: a build that
 * copies `target/app.jar`, `build/libs/*.jar` or `nacos-mcp-server-*.jar` (bubua12/nacos-mcp-server)
 * runs what that project packages, whose dependencies its pom.xml or build.gradle names.
 */
function jarProjects(inputs: Inputs, contextDir: string, copied: readonly string[]): TextFile[] {
  const dirs = new Set<string>();
  for (const source of copied.filter((c) => /\.jar$/i.test(c))) {
    const path = normalise(posix.join(contextDir, source));
    if (path.startsWith('..')) continue;
    // target/ and build/libs/ are where Maven and Gradle write the archive: the project is above them.
    dirs.add(dirOf(path).replace(/(^|\/)(target|build\/libs)$/, ''));
  }
  return [...dirs].flatMap((d) => ['pom.xml', 'build.gradle', 'build.gradle.kts'].flatMap((n) => inputs.get(d ? `${d}/${n}` : n) ?? []));
}

/** The package manifests a build copies from its context, among the files (what its dependencies are read from). */
export function manifestsOfBuild(inputs: Inputs, contextDir: string, copied: readonly string[]): TextFile[] {
  return copiedFiles(inputs, contextDir, copied, MANIFEST);
}

/**
 * The lockfiles a build copies from its context: what its installs can be held to. One a COPY
 * names that the files do not hold counts too: a build that completes has every file it copies.
 */
export function lockfilesOfBuild(inputs: Inputs, contextDir: string, copied: readonly string[]): { path: string }[] {
  const found: { path: string }[] = copiedFiles(inputs, contextDir, copied, LOCKFILE);
  const ignored = ignoredBy(inputs, contextDir);
  for (const source of copied) {
    const path = normalise(posix.join(contextDir, source));
    if (LOCKFILE.test(posix.basename(path).toLowerCase()) && !found.some((f) => f.path === path) && !ignored(path)) found.push({ path });
  }
  return found;
}

/**
 * Lockfiles a build's COPY lines bring that its context's `.dockerignore` keeps out of the build;
 * `named` where a COPY names the file itself, which then fails the build (a glob only matches less).
 */
export function lockfilesIgnored(inputs: Inputs, contextDir: string, copied: readonly string[]): { path: string; named: boolean }[] {
  const ignored = ignoredBy(inputs, contextDir);
  const out = new Map<string, boolean>();
  for (const f of copiedFiles(inputs, contextDir, copied, LOCKFILE, true)) if (ignored(f.path)) out.set(f.path, false);
  for (const source of copied) {
    const path = normalise(posix.join(contextDir, source));
    if (!/[*?[]/.test(path) && LOCKFILE.test(posix.basename(path).toLowerCase()) && ignored(path)) out.set(path, true);
  }
  return [...out].map(([path, named]) => ({ path, named }));
}

/**
 * The build context of a Dockerfile that nothing in the files builds: its own directory, unless
 * what it copies is found only from a directory above it (modelcontextprotocol/servers builds
 * each server's Dockerfile from the repository root, copying the server's directory by its path
 * from there); the nearest such directory then.
 */
export function contextOfDockerfile(inputs: Inputs, dockerfile: string, copied: readonly string[]): string {
  const own = dirOf(dockerfile);
  const sources = copied.filter((c) => !/[*?[]/.test(c) && normalise(c) !== '');
  const found = (dir: string) =>
    sources.some((c) => {
      const p = normalise(posix.join(dir, c));
      return inputs.get(p) !== undefined || inputs.all().some((f) => f.path.startsWith(`${p}/`));
    });
  if (!sources.length || found(own)) return own;
  for (let dir = own; dir !== ''; ) {
    dir = dirOf(dir);
    if (found(dir)) return dir;
  }
  return own;
}

/** Front-end frameworks, and the server frameworks whose presence makes a package more than a UI. */
const UI_FRAMEWORKS = /^(next|react-dom|vue|nuxt|@angular\/core|svelte|@sveltejs\/kit|solid-js|@remix-run\/react)$/;
const SERVER_FRAMEWORKS = /^(express|fastify|koa|hono|@hono\/node-server|@nestjs\/core|restify)$/;

/**
 * A package.json of a web UI: a front-end framework among its dependencies, and neither a server
 * framework nor any MCP package (`@modelcontextprotocol/sdk`, `mcp-handler`) beside it.
 */
export function webUi(file: TextFile): { path: string; framework: string } | null {
  if (posix.basename(file.path) !== 'package.json') return null;
  try {
    const pkg = JSON.parse(file.text) as Record<string, Record<string, string> | undefined>;
    const deps = Object.keys({ ...pkg['dependencies'], ...pkg['devDependencies'] });
    const framework = deps.find((d) => UI_FRAMEWORKS.test(d));
    if (!framework || deps.some((d) => SERVER_FRAMEWORKS.test(d) || isMcpPackage(d) || /(^|[-_/@.])mcp/i.test(d))) return null;
    return { path: file.path, framework };
  } catch {
    return null;
  }
}
