import type { ValidateFunction } from 'ajv';
import { publicError, SignetError } from '../errors.js';
import { ajv } from '../schema/ajv.js';
import { ajvDetails } from '../schema/errors.js';
import { sha256Tag } from '../shared/hash.js';
import { canonicalJson } from '../signing/canonical.js';
import type { OutputBody } from '../signing/format.js';
import { TOOLS } from './index.js';
import type { ToolContext, ToolDefinition } from './types.js';

export interface RunLimits {
  /** Largest accepted arguments, as canonical JSON bytes. */
  maxArgumentBytes: number;
  /** Deepest accepted nesting of arguments. */
  maxArgumentDepth: number;
  /** Told about unexpected (non-SignetError) failures; never shown to the caller. */
  onInternalError?: ((err: unknown, tool: string) => void) | undefined;
}

export interface Prepared {
  tool: ToolEntry;
  args: unknown;
  /** JCS of the arguments, or null when they cannot be canonicalised (then `early` is set). */
  canonicalArgs: string | null;
  /** The error body decided before running (too deep, not canonicalisable). */
  early: OutputBody | null;
}

interface ToolEntry {
  def: ToolDefinition<never>;
  schema: object;
  compiled: ValidateFunction | null;
}

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

function errorBody(tool: string, inputHash: string | null, err: unknown): OutputBody {
  return { tool, input_hash: inputHash, ok: false, error: publicError(err) };
}

/**
 * Validates arguments and runs tools, producing the unsigned output body: what the server
 * signs, and what `signet verify --recompute` recomputes without any key.
 */
export class ToolRunner {
  readonly #tools = new Map<string, ToolEntry>();
  readonly #ctx: ToolContext;
  readonly #limits: RunLimits;

  constructor(ctx: ToolContext, limits: RunLimits) {
    this.#ctx = ctx;
    this.#limits = limits;
    for (const def of TOOLS) {
      // Compiled on first call: Ajv code generation is a large share of cold start.
      this.#tools.set(def.name, { def, schema: def.validationSchema?.(ctx.doctrine) ?? def.inputSchema(ctx.doctrine), compiled: null });
    }
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Throws SignetError('unknown_tool') for a name that is not a tool. */
  prepare(name: string, rawArgs: unknown): Prepared {
    const tool = this.#tools.get(name);
    if (!tool) throw new SignetError('unknown_tool', `Unknown tool: ${name}`);
    const args = rawArgs ?? {};
    if (depthExceeds(args, this.#limits.maxArgumentDepth)) {
      const err = new SignetError('input_too_deep', `Arguments are nested deeper than ${this.#limits.maxArgumentDepth} levels`);
      return { tool, args, canonicalArgs: null, early: errorBody(name, null, err) };
    }
    try {
      return { tool, args, canonicalArgs: canonicalJson(args), early: null };
    } catch (err) {
      return { tool, args, canonicalArgs: null, early: errorBody(name, null, err) };
    }
  }

  /** The unsigned output body of a prepared call: a signed error for anything the caller got wrong. */
  run(p: Prepared): OutputBody {
    if (p.early || p.canonicalArgs === null) return p.early!;
    const name = p.tool.def.name;
    const inputHash = sha256Tag(p.canonicalArgs);
    if (Buffer.byteLength(p.canonicalArgs) > this.#limits.maxArgumentBytes) {
      return errorBody(
        name,
        inputHash,
        new SignetError('input_too_large', `Arguments exceed ${this.#limits.maxArgumentBytes} bytes of canonical JSON`),
      );
    }
    const tool = p.tool;
    if (!(tool.compiled ??= ajv.compile(tool.schema))(p.args)) {
      const details = ajvDetails('arguments', tool.compiled.errors);
      const message = `Invalid arguments for ${name}: ${details.map((d) => `${d.where} ${d.message}`).join('; ')}`;
      return errorBody(name, inputHash, new SignetError('invalid_arguments', message, details));
    }
    try {
      return { tool: name, input_hash: inputHash, ok: true, result: tool.def.run(this.#ctx, p.args as never) };
    } catch (err) {
      if (!(err instanceof SignetError)) this.#limits.onInternalError?.(err, name);
      return errorBody(name, inputHash, err);
    }
  }

  /** prepare + run. */
  body(name: string, rawArgs: unknown): OutputBody {
    return this.run(this.prepare(name, rawArgs));
  }
}
