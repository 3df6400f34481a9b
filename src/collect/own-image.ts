// The Dockerfile among the files that builds an image a deployment runs by name (a Kubernetes
// workload's `image:`, a Compose service's with no `build:`): the one in a directory named like
// the image, or beside a manifest of the project of that name (alderaan/vps' ai-dev-server/Dockerfile
// for `registry.correlion.ai/ai-dev-server:latest`).
import { posix } from 'node:path';
import type { Context } from './context.js';
import type { DockerfileInfo } from './dockerfile/read.js';
import { dirOf } from './inputs.js';
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
