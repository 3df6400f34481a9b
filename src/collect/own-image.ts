// The Dockerfile among the files that builds an image a deployment runs by name (a Kubernetes
// workload's `image:`, a Compose service's with no `build:`): the one in a directory named like
// the image, or beside a manifest of the project of that name (alderaan/vps' ai-dev-server/Dockerfile
// for `registry.correlion.ai/ai-dev-server:latest`).
import { posix } from 'node:path';
import type { Context } from './context.js';
import type { DockerfileInfo } from './dockerfile/read.js';
import { dirOf, normalise } from './inputs.js';
import { projectName } from './packages.js';
import { repository } from './roles.js';

/** The Dockerfile in the inputs that builds `image`: a directory named like the image, or the package of that name. */
export function dockerfileFor(ctx: Context, image: string): DockerfileInfo | null {
  const base = posix.basename(repository(image));
  const dfs = ctx.inputs.all().filter((f) => ctx.kinds.get(f.path) === 'dockerfile');
  for (const f of dfs) {
    const dir = dirOf(f.path);
    const dirName = posix.basename(dir);
    // The image named like the Dockerfile's directory or its project (`name = "mcp-server-x"` in pyproject.toml too).
    if ((dirName && (dirName === base || base.endsWith(`-${dirName}`))) || projectName(ctx.inputs, dir) === base)
      return ctx.dockerfile(f.path);
  }
  return null;
}

/** Files that build images by command: scripts, Makefiles, workflows (not prose, not deployment files). */
const BUILDER = /\.(sh|bash|ya?ml)$|(^|\/)makefile$/i;

/**
 * The Dockerfile a build command among the files tags `image` from (maneeshanif/todo-spec-driven's
 * start-all.sh: `docker build -f backend/Dockerfile.mcp -t todo-mcp-server:latest backend`): its `-f`,
 * else the context's Dockerfile, from the repository's top or the script's directory.
 */
export function dockerfileBuiltAs(ctx: Context, image: string): DockerfileInfo | null {
  if (!image || /[$]/.test(image)) return null;
  const tagged = (t: string) => t === image || (!/:[^/]*$/.test(image) && t.replace(/:[^/:]*$/, '') === image);
  for (const f of ctx.inputs.all()) {
    if (!BUILDER.test(f.path) || ['compose', 'kubernetes', 'kustomization', 'mcp_client_config'].includes(ctx.kinds.get(f.path) ?? ''))
      continue;
    for (const line of f.text.replace(/\\\r?\n/g, ' ').split('\n')) {
      const m = /\b(?:docker|podman)(?:\s+buildx)?\s+build\s+(.+)$/.exec(line);
      if (!m) continue;
      const words = m[1]!.split(/\s+/).map((w) => w.replace(/^["']|["']$/g, ''));
      const tags = words.flatMap((w, i) => (w === '-t' || w === '--tag' ? [words[i + 1] ?? ''] : /^--tag=/.test(w) ? [w.slice(6)] : []));
      if (!tags.some(tagged)) continue;
      const fi = words.findIndex((w) => w === '-f' || w === '--file' || /^--file=/.test(w));
      const file = fi < 0 ? null : words[fi]!.startsWith('--file=') ? words[fi]!.slice(7) : (words[fi + 1] ?? '');
      const valued = new Set([
        '-t',
        '--tag',
        '-f',
        '--file',
        '--build-arg',
        '--target',
        '--platform',
        '--label',
        '--secret',
        '--cache-from',
      ]);
      const context = words.filter((w, i) => !w.startsWith('-') && !valued.has(words[i - 1] ?? '')).at(-1) ?? '.';
      for (const base of ['', dirOf(f.path)]) {
        const path = normalise(posix.join(base, file ?? posix.join(context, 'Dockerfile')));
        if (ctx.kinds.get(path) === 'dockerfile') return ctx.dockerfile(path);
      }
    }
  }
  return null;
}
