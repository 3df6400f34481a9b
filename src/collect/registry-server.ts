// The MCP Registry's server.json: a server's own description of how it is published. The
// registry verifies an OCI package by the image's label `io.modelcontextprotocol.server.name`,
// so an image that carries it is that server, and the server.json of that name says how it
// speaks: the OCI package's `transport.type`, or, with none, its remotes' (an instance the
// operator runs of the same server, `https://{marmot_host}/api/v1/mcp`).
import type { DockerfileInfo } from './dockerfile/read.js';
import type { Inputs } from './inputs.js';
import type { At } from './sheet.js';

export const SERVER_NAME_LABEL = 'io.modelcontextprotocol.server.name';

interface ServerJson {
  name?: unknown;
  packages?: { registryType?: unknown; transport?: { type?: unknown } }[];
  remotes?: { type?: unknown }[];
}

export interface RegistryTransport {
  kind: 'stdio' | 'http';
  sse: boolean;
  at: At;
  why: string;
}

/** The registry name the image's label gives it, with the label's line, or null. */
export function registryName(df: DockerfileInfo): { name: string; at: At } | null {
  const label = df.labels.get(SERVER_NAME_LABEL);
  return label?.value ? { name: label.value, at: label.at } : null;
}

/** How the server.json of the image's registry name says it speaks, or null when the files hold none that says. */
export function registryTransport(inputs: Inputs, df: DockerfileInfo): RegistryTransport | null {
  const named = registryName(df);
  if (!named) return null;
  for (const f of inputs.all().filter((x) => x.path.split('/').pop() === 'server.json')) {
    let doc: ServerJson;
    try {
      doc = JSON.parse(f.text) as ServerJson;
    } catch {
      continue;
    }
    if (doc.name !== named.name) continue;
    // Which OCI package is this image the file does not say: they must agree, as remotes must.
    const oci = (doc.packages ?? []).filter((p) => p.registryType === 'oci');
    const types = [...new Set(oci.length ? oci.map((p) => String(p.transport?.type)) : (doc.remotes ?? []).map((r) => String(r.type)))];
    if (types.length !== 1 || !/^(stdio|streamable-http|sse)$/.test(types[0]!)) return null;
    const type = types[0]!;
    // Cited at that transport in the OCI package (or the remotes), not at an npm package's of the same name.
    const from = oci.length ? f.text.search(/"registryType"\s*:\s*"oci"/) : f.text.indexOf('"remotes"');
    const at = f.text.indexOf(`"${type}"`, Math.max(0, from));
    const line = f.text.slice(0, Math.max(0, at)).split('\n').length;
    return {
      kind: type === 'stdio' ? 'stdio' : 'http',
      sse: type === 'sse',
      at: { file: f.path, line },
      why: `${f.path} publishes ${named.name}, the image's ${SERVER_NAME_LABEL} label, ${oci.length ? 'as an OCI package' : 'with remotes'} of transport ${type}`,
    };
  }
  return null;
}
