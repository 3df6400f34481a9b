// Smithery's smithery.yaml: how the registry starts the project's image (`startCommand: type:
// stdio` or `http`), the Dockerfile it builds (`build.dockerfile`, `Dockerfile` by default). The
// project's own word on how its image is run, where the image's command names no transport.
import { posix } from 'node:path';
import { dirOf, type Inputs, normalise } from './inputs.js';
import type { At } from './sheet.js';
import { readYaml } from './yaml-lines.js';

/** The transport a smithery.yaml beside or above a Dockerfile starts its image with, or null. */
export function smitheryTransport(inputs: Inputs, dockerfile: string): { kind: 'stdio' | 'http'; at: At; why: string } | null {
  for (let dir = dirOf(dockerfile); ; dir = dirOf(dir)) {
    for (const name of ['smithery.yaml', 'smithery.yml']) {
      const file = inputs.get(dir ? `${dir}/${name}` : name);
      if (!file) continue;
      let doc: ReturnType<typeof readYaml>[number] | undefined;
      try {
        doc = readYaml(file.text)[0];
      } catch {
        return null;
      }
      const top = doc?.value as Record<string, unknown> | undefined;
      const build = top?.['build'] as Record<string, unknown> | undefined;
      // A runtime Smithery builds itself (`runtime: typescript`) uses no Dockerfile.
      if (top?.['runtime'] !== undefined && top['runtime'] !== 'container') return null;
      const built = normalise(posix.join(dir, String(build?.['dockerfile'] ?? 'Dockerfile')));
      if (built !== normalise(dockerfile)) return null;
      const type = (top?.['startCommand'] as Record<string, unknown> | undefined)?.['type'];
      if (type !== 'stdio' && type !== 'http') return null;
      return {
        kind: type,
        at: { file: file.path, line: doc!.line(['startCommand', 'type']) },
        why: `${file.path} starts the image with startCommand type ${type} (Smithery's deployment of it)`,
      };
    }
    if (dir === '') return null;
  }
}
