// Where a client configuration is read by something other than a user's client: a gateway image
// that copies it, or a Compose service that bind-mounts it.

import { posix } from 'node:path';
import type { Context } from '../context.js';
import { volumeParts } from '../host-paths.js';
import { dirOf, normalise } from '../inputs.js';
import { contextOfDockerfile, nameGlob } from '../packages.js';
import { readYaml } from '../yaml-lines.js';
import { CLIENT_OWN_FILE, PROJECT_CONFIG } from './paths.js';

/**
 * The Dockerfile among the files that copies a gateway's configuration into its image
 * (samanhappy/mcphub's mcp_settings.json, with `COPY . .`): the gateway in that container
 * launches the servers it lists there, not on a user's host. A client's own file is not read so.
 */
export function gatewayImageOf(ctx: Context, path: string): string | null {
  // An example or a sample is written for a user's own client, whatever an image copies with it.
  if (PROJECT_CONFIG.test(path) || CLIENT_OWN_FILE.test(path) || /(^|[/_.-])(examples?|samples?)([/_.-]|$)/i.test(path)) return null;
  for (const f of ctx.inputs.all()) {
    if (ctx.kinds.get(f.path) !== 'dockerfile') continue;
    const df = ctx.dockerfile(f.path);
    if (!df) continue;
    const dir = contextOfDockerfile(ctx.inputs, f.path, df.copied);
    const rel = posix.relative(dir || '.', path);
    if (rel.startsWith('..')) continue;
    // In the final image: a builder stage's copy stays there (carlosjperez/SOLARIA-DFO's
    // mcp-config.json, copied for the build, out of the image that takes only dist/).
    // A pattern too (yonaka15/mcp-server-as-http-go's `COPY *.config.json ./`).
    const copies = df.finalCopied.some((src) => {
      const n = normalise(src);
      if (/[*?[]/.test(posix.basename(n))) return dirOf(n) === dirOf(rel) && nameGlob(posix.basename(n)).test(posix.basename(rel));
      return n === '' || n === rel || rel.startsWith(`${n}/`);
    });
    if (copies) return f.path;
  }
  return null;
}

/**
 * The Compose service among the files that bind-mounts this configuration into its container
 * (WebSurfinMurf/mcp's `./config.json:/config/config.json:ro` for ghcr.io/tbxark/mcp-proxy), as
 * `FILE service NAME`; null when none does. Sources with variables are not resolved here.
 */
export function composeMountOf(ctx: Context, path: string): string | null {
  for (const f of ctx.inputs.all()) {
    if (ctx.kinds.get(f.path) !== 'compose') continue;
    let services: unknown;
    try {
      services = (readYaml(f.text)[0]?.value as Record<string, unknown> | undefined)?.['services'];
    } catch {
      continue;
    }
    if (!services || typeof services !== 'object') continue;
    for (const [name, spec] of Object.entries(services as Record<string, unknown>)) {
      const volumes = (spec as Record<string, unknown> | null)?.['volumes'];
      for (const v of Array.isArray(volumes) ? volumes : []) {
        const source =
          typeof v === 'string'
            ? volumeParts(v).source
            : v && typeof v === 'object' && (v as Record<string, unknown>)['type'] === 'bind'
              ? String((v as Record<string, unknown>)['source'] ?? '')
              : '';
        if (!/^\.{1,2}\//.test(source)) continue;
        const mounted = ctx.inputs.resolve(f.path, source).replace(/\/+$/, '');
        if (mounted === path) return `${f.path} service ${name}`;
        // The directory that holds it (drejom/webui-mcpo's `./mcpo:/opt/mcpo`, whose start.sh runs
        // `mcpo --config /opt/mcpo/config.json`), unless the file is a client's own or the
        // directory is the whole project, which a dev container mounts whatever it holds.
        const own = PROJECT_CONFIG.test(path) || CLIENT_OWN_FILE.test(path);
        if (!own && mounted !== '' && mounted !== '.' && mounted !== dirOf(f.path) && path.startsWith(`${mounted}/`))
          return `${f.path} service ${name} (its directory ${source})`;
      }
    }
  }
  return null;
}
