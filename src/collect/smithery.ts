// Smithery's smithery.yaml: how the registry starts the project's image (`startCommand: type:
// stdio` or `http`), the Dockerfile it builds (`build.dockerfile`, `Dockerfile` by default). The
// project's own word on how its image is run, where the image's command names no transport.
import { posix } from 'node:path';
import { dirOf, type Inputs, normalise } from './inputs.js';
import type { At } from './sheet.js';
import { readYaml } from './yaml-lines.js';

export interface SmitheryBuild {
  /** The smithery.yaml that builds the Dockerfile, at its `build` (or its top). */
  at: At;
  /** How it starts the image, where it says (`startCommand: type: stdio|http`). */
  transport: { kind: 'stdio' | 'http'; at: At; why: string } | null;
}

/**
 * The smithery.yaml beside or above a Dockerfile that builds it for Smithery's registry of MCP
 * servers (`runtime: container`, or no runtime, the older format), or null: the project's own
 * word that the image is an MCP server, whatever its code imports (kdkiss/mcp-monster-jobs
 * answers JSON-RPC by hand).
 */
export function smitheryBuild(inputs: Inputs, dockerfile: string): SmitheryBuild | null {
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
      const transport: SmitheryBuild['transport'] =
        type === 'stdio' || type === 'http'
          ? {
              kind: type,
              at: { file: file.path, line: doc!.line(['startCommand', 'type']) },
              why: `${file.path} starts the image with startCommand type ${type} (Smithery's deployment of it)`,
            }
          : null;
      return { at: { file: file.path, line: build ? doc!.line(['build']) : 1 }, transport };
    }
    if (dir === '') return null;
  }
}

/** The transport a smithery.yaml beside or above a Dockerfile starts its image with, or null. */
export function smitheryTransport(inputs: Inputs, dockerfile: string): SmitheryBuild['transport'] {
  return smitheryBuild(inputs, dockerfile)?.transport ?? null;
}
