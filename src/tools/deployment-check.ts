// deployment_check: `signet check` over MCP. The client hands the files' contents (bounded in
// count, size and names); the server collects, merges the declared facts, evaluates and signs,
// and returns the same report and the same attestation, byte for byte, as `signet check
// --format json --attest` on the same bytes with the same key (docs/checking.md). The server
// never probes: a URL is a request to reach somewhere, and a server that fetched what callers
// name would be a server-side request forgery. Kustomizations are read as listed (the server
// runs no kubectl).
import { attest } from '../check/attestation.js';
import { parseDeclared } from '../check/declared.js';
import { CHECK_FORMAT } from '../check/report.js';
import { runCheck } from '../check/run.js';
import { collect, type InputFile, LIMITS } from '../collect/index.js';
import { normalise } from '../collect/inputs.js';
import { SignetError } from '../errors.js';
import { canonicalJson, PreCanonical } from '../signing/canonical.js';
import { base64ToBytes, utf8Bytes } from '../signing/encoding.js';
import type { ToolDefinition } from './types.js';

/** Bounds of one call: each below what `collect` itself allows, and the whole call below SIGNET_MAX_ARGUMENT_BYTES. */
export const CHECK_LIMITS = { files: 256, pathLength: LIMITS.pathLength, fileBytes: LIMITS.fileBytes, names: 32, nameLength: 128 } as const;

interface FileArg {
  path: string;
  text?: string;
  base64?: string;
}

interface Input {
  files: FileArg[];
  declared?: FileArg;
  compose?: string[][];
  env?: Record<string, string>;
  profiles?: string[];
  servers?: string[];
}

/** A file: its path and its content as text or as base64, never both (one schema per form keeps Ajv strict). */
const fileSchema = (what: string) => {
  const path = { type: 'string', minLength: 1, maxLength: CHECK_LIMITS.pathLength };
  const form = (name: 'text' | 'base64', maxLength: number) => ({
    type: 'object',
    required: ['path', name],
    additionalProperties: false,
    properties: { path, [name]: { type: 'string', maxLength } },
  });
  return {
    description: `${what}: its path relative to the deployment's root (POSIX separators) and its content, as UTF-8 "text" or as "base64" for other bytes.`,
    oneOf: [form('text', CHECK_LIMITS.fileBytes), form('base64', Math.ceil(CHECK_LIMITS.fileBytes / 3) * 4)],
  };
};
const names = { type: 'array', maxItems: CHECK_LIMITS.names, items: { type: 'string', minLength: 1, maxLength: CHECK_LIMITS.nameLength } };

function bytesOf(f: FileArg, where: string): Uint8Array {
  if (f.text !== undefined) return utf8Bytes(f.text);
  const bytes = base64ToBytes(f.base64 ?? '');
  if (!bytes)
    throw new SignetError('invalid_arguments', `Invalid arguments for deployment_check: ${where}.base64 is not canonical standard base64`, [
      { where: `${where}.base64`, message: 'not canonical standard base64 (RFC 4648, padded)' },
    ]);
  return bytes;
}

/** The declared file's name as the CLI writes it (relative, POSIX, normalised), and held to the same rules as the files'. */
function declaredPath(path: string): string {
  const p = normalise(path);
  if (!p || p === '..' || p.startsWith('../') || p.startsWith('/') || /[\u0000-\u001f]/.test(p)) {
    throw new SignetError('invalid_arguments', 'Invalid arguments for deployment_check: declared.path must be relative, inside the root', [
      { where: 'arguments.declared.path', message: 'must be a relative path inside the root, without control characters' },
    ]);
  }
  return p;
}

export const deploymentCheck: ToolDefinition<Input> = {
  name: 'deployment_check',
  title: "Check a deployment's files against the doctrine",
  description:
    'What `signet check` does in CI, for files you hold: give the deployment files (Docker Compose with overrides and .env, ' +
    'Kubernetes manifests and kustomizations, Dockerfiles, nginx and Caddy configurations, MCP client configurations, package ' +
    'manifests and lockfiles) as text or base64, and optionally a declared-facts file (signet-declared/1) for what the files ' +
    'cannot show. The server collects the facts each file decides (never running or fetching anything they name), merges the ' +
    'declared facts (a declared fact that contradicts a collected one is refused, naming both sources), evaluates every MCP server ' +
    'the files describe with the doctrine, and returns the report (signet-check/1: a verdict per deployment, the worst overall, ' +
    'each fact with the file and line it comes from, the facts left undecided) and a signed in-toto attestation about the files ' +
    "(a DSSE envelope, verifiable with `signet verify` against the server's trust file). The same bytes as `signet check " +
    '--format json --attest` on the same files. Only verdict "pass" means every deployment meets the baseline as described. ' +
    'The server never probes a URL: run `signet probe` or `signet check --probe` yourself.',
  inputSchema: () => ({
    type: 'object',
    required: ['files'],
    additionalProperties: false,
    properties: {
      files: {
        type: 'array',
        maxItems: CHECK_LIMITS.files,
        items: fileSchema('A deployment file'),
        description: 'The files to read; paths unique.',
      },
      declared: fileSchema('The declared-facts file (signet-declared/1, docs/checking.md)'),
      compose: {
        type: 'array',
        maxItems: CHECK_LIMITS.names,
        description: 'Compose projects made of several files, merged in order (docker compose -f a -f b), by path.',
        items: {
          type: 'array',
          minItems: 1,
          maxItems: CHECK_LIMITS.names,
          items: { type: 'string', minLength: 1, maxLength: CHECK_LIMITS.pathLength },
        },
      },
      env: {
        type: 'object',
        maxProperties: 256,
        description: 'Variables for Compose interpolation, as if set in the shell (the server reads no environment of its own).',
        propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: CHECK_LIMITS.nameLength },
        additionalProperties: { type: 'string', maxLength: 4096 },
      },
      profiles: { ...names, description: 'Compose profiles to enable.' },
      servers: { ...names, description: 'The services, workloads or client entries that are MCP servers (otherwise recognised).' },
    },
  }),
  resultSchema: {
    type: 'object',
    required: ['report', 'attestation'],
    additionalProperties: false,
    properties: {
      report: {
        type: 'object',
        required: ['format', 'verdict', 'doctrine', 'files', 'skipped', 'notes', 'probe', 'deployments'],
        properties: {
          format: { const: CHECK_FORMAT },
          verdict: { enum: ['fail', 'incomplete', 'limited_scope', 'pass'] },
          doctrine: { type: 'object' },
          files: { type: 'array', items: { type: 'object' } },
          skipped: { type: 'array', items: { type: 'object' } },
          notes: { type: 'array', items: { type: 'object' } },
          probe: { type: 'null' },
          deployments: { type: 'array', items: { type: 'object', required: ['name', 'verdict', 'facts', 'sources', 'summary'] } },
        },
      },
      attestation: {
        type: 'object',
        description: 'The DSSE envelope: its JSON text, as received, is the bytes `signet check --attest` writes.',
        required: ['payload', 'payloadType', 'signatures'],
        additionalProperties: false,
        properties: {
          payload: { type: 'string' },
          payloadType: { const: 'application/vnd.in-toto+json' },
          signatures: {
            type: 'array',
            items: {
              type: 'object',
              required: ['keyid', 'sig'],
              additionalProperties: false,
              properties: { keyid: { type: 'string' }, sig: { type: 'string' } },
            },
          },
        },
      },
    },
  },
  run(ctx, input) {
    const files: InputFile[] = input.files.map((f, i) => ({ path: f.path, bytes: bytesOf(f, `arguments.files[${i}]`) }));
    const collection = collect(files, {
      doctrine: ctx.doctrine,
      ...(input.compose ? { compose: input.compose } : {}),
      ...(input.env ? { env: input.env } : {}),
      ...(input.profiles ? { profiles: input.profiles } : {}),
      ...(input.servers ? { servers: input.servers } : {}),
    });
    const declared = input.declared
      ? parseDeclared(ctx.doctrine, declaredPath(input.declared.path), bytesOf(input.declared, 'arguments.declared'))
      : null;
    // Every file a client hands over is named: one that cannot be read is refused, as on the command line.
    const report = runCheck(ctx.doctrine, { collection, declared, named: files.map((f) => normalise(f.path)) });
    const reportJson = canonicalJson(report);
    const envelope = attest(report, ctx.attestationSigner);
    // Both parts are canonical already: the result is assembled from them, not canonicalised again.
    return new PreCanonical(`{"attestation":${envelope},"report":${reportJson}}`, () => ({
      attestation: JSON.parse(envelope),
      report: JSON.parse(reportJson),
    }));
  },
};
