import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajv } from '../schema/ajv.js';
import { LRUCache } from 'lru-cache';
import { publicError, SignetError, type ErrorDetail } from '../errors.js';
import { canonicalJson } from '../signing/canonical.js';
import type { OutputBody } from '../signing/format.js';
import { signOutput, type SignedPayload } from '../signing/sign-output.js';
import { sha256Tagged, type Signer } from '../signing/signer.js';
import { TOOLS } from './index.js';
import { signedOutputSchema } from './output-schema.js';
import { READ_ONLY_ANNOTATIONS, type ToolContext, type ToolDefinition } from './types.js';

export interface CallToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

export interface DispatchOptions {
  /** Signed results kept for repeated identical calls (0 disables). */
  cacheEntries: number;
  /** Largest accepted arguments, as canonical JSON bytes. */
  maxArgumentBytes: number;
  /** Deepest accepted nesting of arguments. */
  maxArgumentDepth: number;
  /** Told about unexpected (non-SignetError) failures; never shown to the caller. */
  onInternalError?: (err: unknown, tool: string) => void;
  /** Told about every call (metrics): outcome, cache hit, seconds spent when computed. */
  onCall?: (tool: string, ok: boolean, cached: boolean, seconds: number | null) => void;
}

export interface CallOutcome {
  /** The CallToolResult object (for the SDK), built on first use. */
  readonly result: CallToolResult;
  /** The CallToolResult as JSON, memoised: the HTTP fast path serves these bytes. */
  json(): string;
  cached: boolean;
}

interface CacheEntry {
  signed: SignedPayload;
  isError: boolean;
  result?: CallToolResult;
  json?: string;
}

/** Largest canonical-arguments key the cache will hold; bigger calls are computed each time. */
const MAX_CACHE_KEY = 16 * 1024;

function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

function ajvDetails(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).slice(0, 20).map((e) => {
    const where = 'arguments' + e.instancePath.replace(/\//g, '.');
    if (e.keyword === 'additionalProperties') return { where, message: `unknown property "${String(e.params['additionalProperty'])}"` };
    if (e.keyword === 'enum') return { where, message: `must be one of ${JSON.stringify(e.params['allowedValues'])}` };
    return { where, message: e.message ?? 'invalid' };
  });
}

/**
 * Runs tools and signs every result, success or error: the single path from a
 * tools/call to a signed CallToolResult, shared by every transport.
 */
export class ToolDispatcher {
  /** The tools/list payload, built once. */
  readonly toolList: Record<string, unknown>[];
  readonly #tools = new Map<string, { def: ToolDefinition<never>; schema: object; compiled: ValidateFunction | null }>();
  readonly #cache: LRUCache<string, CacheEntry> | null;

  readonly #ctx: ToolContext;
  readonly #signer: Signer;
  readonly #options: DispatchOptions;

  constructor(ctx: ToolContext, signer: Signer, options: DispatchOptions) {
    this.#ctx = ctx;
    this.#signer = signer;
    this.#options = options;
    this.toolList = TOOLS.map((def) => {
      const inputSchema = def.inputSchema(ctx.doctrine);
      // Compiled on first call: Ajv code generation is a large share of cold start.
      this.#tools.set(def.name, { def, schema: def.validationSchema?.(ctx.doctrine) ?? inputSchema, compiled: null });
      return {
        name: def.name,
        title: def.title,
        description: def.description,
        inputSchema,
        outputSchema: signedOutputSchema(def.name, def.resultSchema),
        annotations: { title: def.title, ...READ_ONLY_ANNOTATIONS },
      };
    });
    this.#cache = options.cacheEntries > 0 ? new LRUCache({ max: options.cacheEntries }) : null;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * The serialised result of an earlier identical call, or null. Never computes: the
   * HTTP edge uses it to answer repeated calls without building an MCP server.
   */
  peekJson(name: string, rawArgs: unknown): string | null {
    if (!this.#cache || !this.#tools.has(name)) return null;
    let canonicalArgs: string;
    try {
      if (depthExceeds(rawArgs ?? {}, this.#options.maxArgumentDepth)) return null;
      canonicalArgs = canonicalJson(rawArgs ?? {});
    } catch {
      return null;
    }
    if (canonicalArgs.length > MAX_CACHE_KEY) return null;
    const hit = this.#cache.get(`${name}\u0000${canonicalArgs}`);
    if (!hit) return null;
    this.#options.onCall?.(name, !hit.isError, true, null);
    return this.#outcome(hit, true).json();
  }

  /** Throws SignetError('unknown_tool') for a name that is not a tool; everything else is a signed result. */
  call(name: string, rawArgs: unknown): CallOutcome {
    const tool = this.#tools.get(name);
    if (!tool) throw new SignetError('unknown_tool', `Unknown tool: ${name}`);
    const args = rawArgs ?? {};

    let canonicalArgs: string | null = null;
    let body: OutputBody | null = null;
    if (depthExceeds(args, this.#options.maxArgumentDepth)) {
      body = this.#errorBody(name, null, new SignetError('input_too_deep', `Arguments are nested deeper than ${this.#options.maxArgumentDepth} levels`));
    } else {
      try {
        canonicalArgs = canonicalJson(args);
      } catch (err) {
        body = this.#errorBody(name, null, err);
      }
    }
    const key = canonicalArgs !== null && canonicalArgs.length <= MAX_CACHE_KEY ? `${name}\u0000${canonicalArgs}` : null;
    if (key !== null && this.#cache) {
      const hit = this.#cache.get(key);
      if (hit) {
        this.#options.onCall?.(name, !hit.isError, true, null);
        return this.#outcome(hit, true);
      }
    }
    const started = performance.now();

    if (body === null && canonicalArgs !== null) {
      const inputHash = sha256Tagged(canonicalArgs);
      if (Buffer.byteLength(canonicalArgs) > this.#options.maxArgumentBytes) {
        body = this.#errorBody(name, inputHash, new SignetError('input_too_large', `Arguments exceed ${this.#options.maxArgumentBytes} bytes of canonical JSON`));
      } else if (!(tool.compiled ??= ajv.compile(tool.schema))(args)) {
        const details = ajvDetails(tool.compiled.errors);
        body = this.#errorBody(
          name,
          inputHash,
          new SignetError('invalid_arguments', `Invalid arguments for ${name}: ${details.map((d) => `${d.where} ${d.message}`).join('; ')}`, details),
        );
      } else {
        try {
          body = { tool: name, input_hash: inputHash, ok: true, result: tool.def.run(this.#ctx, args as never) };
        } catch (err) {
          if (!(err instanceof SignetError)) this.#options.onInternalError?.(err, name);
          body = this.#errorBody(name, inputHash, err);
        }
      }
    }

    const signed = signOutput(body!, this.#ctx.footer, this.#signer);
    this.#options.onCall?.(name, body!.ok, false, (performance.now() - started) / 1000);
    const entry: CacheEntry = { signed, isError: !body!.ok };
    // Internal errors may be transient: never pin them in the cache.
    if (key !== null && this.#cache && body!.error?.code !== 'internal_error') this.#cache.set(key, entry);
    return this.#outcome(entry, false);
  }

  #errorBody(tool: string, inputHash: string | null, err: unknown): OutputBody {
    return { tool, input_hash: inputHash, ok: false, error: publicError(err) };
  }

  #outcome(entry: CacheEntry, cached: boolean): CallOutcome {
    return {
      cached,
      get result() {
        return (entry.result ??= {
          content: [{ type: 'text', text: entry.signed.text }],
          structuredContent: entry.signed.structured as unknown as Record<string, unknown>,
          isError: entry.isError,
        });
      },
      // The same members in the same order as JSON.stringify(result) gives: the canonical
      // text serialises to itself, so the structured copy needs no parse and no re-stringify.
      json: () =>
        (entry.json ??= `{"content":[{"type":"text","text":${JSON.stringify(entry.signed.text)}}],"structuredContent":${entry.signed.text},"isError":${entry.isError}}`),
    };
  }
}
