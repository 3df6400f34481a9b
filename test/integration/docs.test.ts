// The documentation stays true to the code: every setting and every command is documented,
// and every link between pages resolves. (Recipes are run by the tests of what they show.)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.js';
import { CLI, ROOT } from '../helpers/paths.js';

function files(dir: string, match: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && match(e.name))
    .map((e) => join(e.parentPath, e.name));
}

const read = (path: string) => readFileSync(path, 'utf8');
const pages = [join(ROOT, 'README.md'), join(ROOT, 'SECURITY.md'), ...files(join(ROOT, 'docs'), (n) => n.endsWith('.md'))];
const configuration = read(join(ROOT, 'docs', 'configuration.md'));
const cli = read(join(ROOT, 'docs', 'cli.md'));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} +(.+)$/gm)) {
    out.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return out;
}

describe('documentation', () => {
  it('README stays a first screen and an index (at most 150 lines)', () => {
    expect(read(join(ROOT, 'README.md')).split('\n').length).toBeLessThanOrEqual(150);
  });

  it('every relative link in README.md and docs/ points at a file (and heading) that exists', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const m of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : join(dirname(page), path);
        if (!existsSync(file)) broken.push(`${relative(ROOT, page)}: ${target}`);
        else if (anchor && file.endsWith('.md') && !anchors(read(file)).has(anchor))
          broken.push(`${relative(ROOT, page)}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('cites only files that exist, in comments, docs and deployment files (a renamed file fails here)', () => {
    const sources = [
      ...['src', 'proxy', 'docs', 'bench', 'scripts', 'deploy'].flatMap((d) =>
        files(join(ROOT, d), (n) => /\.(ts|mjs|md|yml|yaml|sh|envsh|template|js)$/.test(n) && !n.endsWith('.test.ts')),
      ),
      ...['README.md', 'SECURITY.md', 'Dockerfile', 'docker-compose.yml', '.ci/run', 'vitest.config.ts'].map((f) => join(ROOT, f)),
    ];
    // A repository path: a top-level folder, then a name; not a glob (3*-signet-*.envsh) or a URL's path.
    const cited = /(?<![\w./:-])((?:src|test|docs|proxy|deploy|bench|scripts|doctrine|\.ci)\/[A-Za-z0-9_./+-]*[A-Za-z0-9_])(?![*\w])/g;
    // Written by a documented recipe on the operator's machine, and git-ignored.
    const generated = /^deploy\/kubernetes\/overlays\/dev\/secrets(\/|$)/;
    const missing: string[] = [];
    for (const f of sources) {
      for (const m of read(f).matchAll(cited)) {
        const path = m[1]!;
        if (!generated.test(path) && !existsSync(join(ROOT, path))) missing.push(`${relative(ROOT, f)}: ${path}`);
      }
    }
    expect(sources.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('documents every variable the server, the proxy and the compose files read in docs/configuration.md', () => {
    const read_ = new Set<string>(CONFIG_VARIABLES);
    for (const f of files(join(ROOT, 'src'), (n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))) {
      for (const m of read(f).matchAll(/'(SIGNET_[A-Z0-9_]+)'/g)) read_.add(m[1]!);
    }
    // Shell (the start-up steps are .envsh) and compose files: variables read with a default
    // (${VAR:-...}, ${VAR-...}), a condition (${VAR:+...}) or a demand (${VAR:?...}) are settings;
    // plain ${VAR} are the templates' own, set by the scripts.
    const setting = /\$\{(SIGNET_[A-Z0-9_]+):?[-+?]/g;
    const shell = files(join(ROOT, 'proxy'), (n) => /\.(env)?sh$/.test(n));
    const compose = [join(ROOT, 'docker-compose.yml'), ...files(join(ROOT, 'deploy'), (n) => /^compose\..*\.ya?ml$/.test(n))];
    expect(shell.some((f) => f.endsWith('.envsh'))).toBe(true);
    for (const f of [...shell, ...compose]) {
      for (const m of read(f).matchAll(setting)) read_.add(m[1]!);
    }
    expect(read_).toContain('XDG_DATA_HOME');
    expect(read_).toContain('SIGNET_PORT');
    expect(read_.size).toBeGreaterThan(30);
    // Named in code format, alone or as the start of a default (`$XDG_DATA_HOME/signet`).
    const missing = [...read_].filter((v) => !new RegExp(`\`\\$?${v}[\`/]`).test(configuration));
    expect(missing).toEqual([]);
  });

  it('documents every `signet` command and subcommand in docs/cli.md', () => {
    const commandsOf = (args: string[]) => {
      const help = execFileSync(process.execPath, [CLI, ...args, '--help'], { encoding: 'utf8' });
      const section = help.slice(help.indexOf('Commands:'));
      return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    };
    const top = commandsOf([]);
    expect(top).toEqual(expect.arrayContaining(['serve', 'verify', 'doctrine', 'keygen', 'api-keys']));
    const lines = cli.split('\n').filter((l) => l.startsWith('signet '));
    const missing: string[] = [];
    for (const command of top) {
      const sub = commandsOf([command]);
      if (sub.length === 0) {
        if (!lines.some((l) => new RegExp(`^signet (\\[)?${command}\\b`).test(l))) missing.push(command);
        continue;
      }
      for (const s of sub) {
        if (!lines.some((l) => new RegExp(`^signet ${command}\\b.*\\s${s}\\b`).test(l))) missing.push(`${command} ${s}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("documents every option of the verifier package's command in docs/cli.md", () => {
    const help = execFileSync(process.execPath, [join(ROOT, 'dist', 'verify', 'bin', 'signet-mcp-verify.js'), '--help'], {
      encoding: 'utf8',
    });
    const options = [...help.matchAll(/^ {2}(?:-[A-Za-z], )?(--[a-z-]+)/gm)]
      .map((m) => m[1]!)
      .filter((o) => !['--help', '--version'].includes(o));
    expect(options).toEqual(['--trust', '--public-key', '--doctrine-hash', '--json']);
    const documented = cli.split('\n').find((l) => l.startsWith('signet-mcp-verify '));
    expect(options.filter((o) => !documented?.includes(o))).toEqual([]);
  });
});
