import { LRUCache } from 'lru-cache';
import { type SignedPayload, signOutput } from '../signing/sign-output.js';
import type { Signer } from '../signing/signer.js';
import { callToolResultJson } from './canonical-result.js';
import { TOOLS } from './index.js';
import { signedOutputSchema } from './output-schema.js';
import { type RunLimits, ToolRunner } from './runner.js';
import { READ_ONLY_ANNOTATIONS, type ToolContext } from './types.js';

export interface CallToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

export interface DispatchOptions extends RunLimits {
  /** Signed results kept for repeated identical calls (0 disables). */
  cacheEntries: number;
  /** The most memory the cache may hold, counted as the characters of what it keeps. */
  cacheBytes?: number;
  /** Told about every call (metrics): outcome, cache hit, seconds spent when computed. */
  onCall?: (tool: string, ok: boolean, cached: boolean, seconds: number | null) => void;
}

export interface CallOutcome {
  /**
   * The CallToolResult as an object, built only on first use (the server never asks for it):
   * the reference that json()'s string-built fast path is tested against, byte for byte, and
   * what the tests read. Kept for that: it costs nothing unless asked for.
   */
  readonly result: CallToolResult;
  /** The CallToolResult as JSON, memoised: what the router sends, in both eras and on both transports. */
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

/**
 * Runs tools and signs every result, success or error: the single path from a
 * tools/call to a signed CallToolResult, shared by every transport.
 */
export class ToolDispatcher {
  /** The tools/list payload, built once. */
  readonly toolList: Record<string, unknown>[];
  readonly #runner: ToolRunner;
  readonly #cache: LRUCache<string, CacheEntry> | null;
  readonly #ctx: ToolContext;
  readonly #signer: Signer;
  readonly #options: DispatchOptions;

  constructor(ctx: ToolContext, signer: Signer, options: DispatchOptions) {
    this.#ctx = ctx;
    this.#signer = signer;
    this.#options = options;
    this.#runner = new ToolRunner(ctx, options);
    this.toolList = TOOLS.map((def) => ({
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: def.inputSchema(ctx.doctrine),
      outputSchema: signedOutputSchema(def.name, def.resultSchema),
      annotations: { title: def.title, ...READ_ONLY_ANNOTATIONS },
    }));
    // Bounded twice: by entries, and by size, so a run of large distinct results (an evaluation
    // of many facts is ~100 KB) cannot hold more memory than configured.
    this.#cache =
      options.cacheEntries > 0
        ? new LRUCache<string, CacheEntry>({
            max: options.cacheEntries,
            maxSize: options.cacheBytes ?? 32 * 1024 * 1024,
            // The signed text, its escaped copy in the memoised JSON, the key.
            sizeCalculation: (entry, key) => 2 * entry.signed.text.length + key.length + 64,
          })
        : null;
  }

  has(name: string): boolean {
    return this.#runner.has(name);
  }

  /** Throws SignetError('unknown_tool') for a name that is not a tool; everything else is a signed result. */
  call(name: string, rawArgs: unknown): CallOutcome {
    const prepared = this.#runner.prepare(name, rawArgs);
    const canonicalArgs = prepared.canonicalArgs;
    const key = canonicalArgs !== null && canonicalArgs.length <= MAX_CACHE_KEY ? `${name}\u0000${canonicalArgs}` : null;
    if (key !== null && this.#cache) {
      const hit = this.#cache.get(key);
      if (hit) {
        this.#options.onCall?.(name, !hit.isError, true, null);
        return this.#outcome(hit, true);
      }
    }
    const started = performance.now();
    const body = this.#runner.run(prepared);
    const signed = signOutput(body, this.#ctx.footer, this.#signer);
    this.#options.onCall?.(name, body.ok, false, (performance.now() - started) / 1000);
    const entry: CacheEntry = { signed, isError: !body.ok };
    // Internal errors may be transient: never pin them in the cache.
    if (key !== null && this.#cache && body.error?.code !== 'internal_error') this.#cache.set(key, entry);
    return this.#outcome(entry, false);
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
      json: () => (entry.json ??= callToolResultJson(entry.signed.text, entry.isError)),
    };
  }
}
