// Everything Signet answers that does not depend on the request, serialised once: the
// context is read-only, so lists, the initialize and discover results and the resource
// reads are the same bytes for every client, in every request, until the process ends.
import type { AppContext } from '../context.js';
import { INVALID_PARAMS, isObject, type Json, RESOURCE_NOT_FOUND } from './jsonrpc.js';
import { SERVER_INFO_KEY } from './meta-keys.js';
import { LATEST_LEGACY_VERSION, MODERN_VERSIONS } from './versions.js';

/**
 * Cache hints (2026-07-28) on lists, reads and discovery. What they describe is a pure
 * function of the doctrine, which changes only when the server restarts on another one:
 * the same for every caller (public), and an hour bounds how long a client keeps a list
 * from before a redeploy.
 */
export const CACHE_TTL_MS = 3_600_000;
const HINTS = `"resultType":"complete","ttlMs":${CACHE_TTL_MS},"cacheScope":"public"`;

export type Era = 'legacy' | 'modern';

/** A JSON object text with members appended before its closing brace. */
function extend(objectJson: string, members: string): string {
  return objectJson === '{}' ? `{${members}}` : `${objectJson.slice(0, -1)},${members}}`;
}

/** What the server tells a client about itself (initialize and server/discover). */
export function instructions(ctx: AppContext): string {
  const m = ctx.doctrine.meta;
  return (
    `Signet answers from the doctrine "${m.title}" ${m.version} (${ctx.footer.doctrine_hash}). ` +
    'Start with doctrine_info; find rules and documents with doctrine_search and doctrine_get; ' +
    'check a deployment with doctrine_evaluate. Every tool result is signed (structuredContent.footer); ' +
    'verify_output or `signet verify` checks a result.'
  );
}

export class Answers {
  readonly capabilities = { tools: { listChanged: false }, resources: { listChanged: false } };
  /** `,"_meta":{serverInfo}}`-ready member for modern results. */
  readonly #serverMeta: string;
  readonly #lists: Record<Era, Map<string, string>> = { legacy: new Map(), modern: new Map() };
  readonly #initialize = new Map<string, string>();
  readonly #discover: string;
  readonly #reads = new Map<string, Record<Era, string>>();
  readonly #ctx: AppContext;
  readonly #instructions: string;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#instructions = instructions(ctx);
    this.#serverMeta = `"_meta":${JSON.stringify({ [SERVER_INFO_KEY]: ctx.serverInfo })}`;
    const lists: [string, Json][] = [
      ['tools/list', { tools: ctx.tools.toolList }],
      ['resources/list', { resources: ctx.resources.list }],
      ['resources/templates/list', { resourceTemplates: ctx.resources.templates }],
    ];
    for (const [method, result] of lists) {
      const json = JSON.stringify(result);
      this.#lists.legacy.set(method, json);
      this.#lists.modern.set(method, this.modern(json, true));
    }
    this.#discover = this.modern(
      JSON.stringify({ supportedVersions: MODERN_VERSIONS, capabilities: this.capabilities, instructions: this.#instructions }),
      true,
    );
  }

  /** A handler's result as the 2026-07-28 era carries it: resultType, hints where cacheable, serverInfo. */
  modern(resultJson: string, cacheable: boolean): string {
    return extend(resultJson, `${cacheable ? HINTS : '"resultType":"complete"'},${this.#serverMeta}`);
  }

  list(era: Era, method: string): string | undefined {
    return this.#lists[era].get(method);
  }

  discover(): string {
    return this.#discover;
  }

  /** The initialize result for a requested revision: that revision if served, else the latest. */
  initialize(requested: string, supported: (v: string) => boolean): string {
    const version = supported(requested) ? requested : LATEST_LEGACY_VERSION;
    let json = this.#initialize.get(version);
    if (json === undefined) {
      json = JSON.stringify({
        protocolVersion: version,
        capabilities: this.capabilities,
        serverInfo: this.#ctx.serverInfo,
        instructions: this.#instructions,
      });
      this.#initialize.set(version, json);
    }
    return json;
  }

  /** A resource read (signed content), or the error code for an unknown URI in each era. */
  read(era: Era, uri: string): { ok: true; json: string } | { ok: false; code: number } {
    let entry = this.#reads.get(uri);
    if (entry === undefined) {
      const found = this.#ctx.resources.read(uri);
      if (!found) {
        // 2026-07-28 reports an unknown resource as invalid params; the 2025 revisions had their own code.
        return { ok: false, code: era === 'modern' ? INVALID_PARAMS : RESOURCE_NOT_FOUND };
      }
      const json = JSON.stringify(found);
      entry = { legacy: json, modern: this.modern(json, true) };
      this.#reads.set(uri, entry);
    }
    return { ok: true, json: entry[era] };
  }
}

/** params of a tools/call, checked: a name string and an optional arguments object. */
export function toolCallParams(params: unknown): { name: string; args: unknown } | string {
  if (!isObject(params)) return 'tools/call needs params with a tool name';
  const name = params['name'];
  if (typeof name !== 'string') return 'tools/call needs params.name, a string';
  const args = params['arguments'];
  if (args !== undefined && !isObject(args)) return 'tools/call params.arguments must be an object';
  return { name, args };
}
