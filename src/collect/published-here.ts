// Whether the release a client entry runs is published from these very files. A server's own
// repository holds client configurations for its developers (siakhooi/mcp-mariadb's
// .vscode/mcp.json runs the image its workflow pushes): "a release someone else built" is then not
// what the files say, and who built the one pulled is not in them either.

import { literal } from '../shared/regexp.js';
import type { Context } from './context.js';
import { type Launch, npmSpec, pyPin } from './launch.js';
import { repository } from './roles.js';
import type { At } from './sheet.js';

/**
 * Lines that build or publish an image: a workflow's step or `tags:`, a script's or Makefile's
 * command, an image-name variable (`DOCKER_IMAGE_NAME=…`, `IMAGE_NAME=…`, a Makefile's `IMG := …`). Prose is not read: a README's
 * `docker run -t` names what users run, not what is built.
 */
const PUBLISHES = [
  /docker(\s+buildx)?\s+(build|push)\b|build-push-action|buildah\s+(bud|build|push)|podman\s+(build|push)|\btags?\s*:/i,
  /\b([A-Z][A-Z0-9_]*)?IMAGE[A-Z0-9_]*\s*[=:]|\b([A-Z][A-Z0-9_]*_)?IMG(_[A-Z0-9_]*)?\s*[?:+]?=/,
];
const PROSE = /\.(md|mdx|rst|txt|adoc|html?)$/i;
/** Files a client entry's release cannot be published from. */
const NOT_BUILD = new Set(['mcp_client_config', 'compose', 'kubernetes', 'kustomization']);

const pyName = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');

export function publishedHere(ctx: Context, l: Launch): { at: At; why: string } | null {
  if (!l.target || !l.release) return null;
  const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
  if (l.docker) {
    const repo = repository(l.target).replace(/^(docker\.io\/)?(library\/)?/, '');
    const named = new RegExp(`(^|[^\\w./-])(docker\\.io/)?${literal(repo)}(?![\\w./-])`, 'im');
    for (const f of ctx.inputs.all()) {
      if (NOT_BUILD.has(ctx.kinds.get(f.path) ?? '') || PROSE.test(f.path)) continue;
      const m = named.exec(f.text);
      if (m && f.text.split('\n').some((line) => line.toLowerCase().includes(repo) && PUBLISHES.some((p) => p.test(line))))
        return { at: { file: f.path, line: lineOf(f.text, m.index + m[1]!.length) }, why: `${f.path} builds or publishes ${repo}` };
      // GitHub's publishing workflow names the image after the repository it runs in: `ghcr.io/${{ github.repository }}`.
      if (repo.startsWith('ghcr.io/') && f.path.startsWith('.github/workflows/') && /build-push-action|docker\s+push/.test(f.text)) {
        const i = f.text.indexOf('github.repository');
        if (i >= 0)
          return {
            at: { file: f.path, line: lineOf(f.text, i) },
            why: `${f.path} publishes an image named after the repository it runs in, on ghcr.io like ${repo}`,
          };
      }
    }
    return null;
  }
  if (['npx', 'bunx', 'pnpm', 'yarn'].includes(l.runner)) {
    const { name } = npmSpec(l.target);
    const named = new RegExp(`"name"\\s*:\\s*"${literal(name)}"`);
    for (const f of ctx.inputs.all()) {
      if (ctx.kinds.get(f.path) !== 'npm_manifest' || f.path.includes('node_modules/')) continue;
      const m = named.exec(f.text);
      if (m) return { at: { file: f.path, line: lineOf(f.text, m.index) }, why: `${f.path} is the package ${name}` };
    }
    return null;
  }
  // `go run github.com/acme/mcp/cmd/server@latest` in the repository of module github.com/acme/mcp.
  if (l.runner === 'go') {
    const path = l.target.slice(0, l.target.lastIndexOf('@'));
    for (const f of ctx.inputs.all()) {
      if (ctx.kinds.get(f.path) !== 'go_module') continue;
      const m = /^module\s+(\S+)/m.exec(f.text);
      if (m && (path === m[1] || path.startsWith(`${m[1]}/`)))
        return { at: { file: f.path, line: lineOf(f.text, m.index) }, why: `${f.path} is the module ${m[1]}` };
    }
    return null;
  }
  if (['uvx', 'pipx', 'uv'].includes(l.runner)) {
    const name = pyName(pyPin(l.target).name.replace(/\[.*$/, ''));
    for (const f of ctx.inputs.all()) {
      if (!f.path.endsWith('pyproject.toml')) continue;
      const m = /^name\s*=\s*["']([^"']+)["']/m.exec(f.text);
      if (m && pyName(m[1]!) === name)
        return { at: { file: f.path, line: lineOf(f.text, m.index) }, why: `${f.path} is the package ${m[1]!}` };
    }
  }
  return null;
}
