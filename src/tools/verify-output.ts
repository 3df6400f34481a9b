import { SignetError } from '../errors.js';
import { sha256Tag } from '../shared/hash.js';
import { JsonShapeGuard } from '../shared/json-shape.js';
import { canonicalJson } from '../signing/canonical.js';
import { parseTrustFile, TRUST_FORMAT, TrustFileError, type TrustSet, trustSet } from '../signing/trust.js';
import type { ToolDefinition } from './types.js';

interface Input {
  output: unknown;
  trusted_keys?: string[];
  trust?: unknown;
  expected_doctrine_hash?: string;
}

/**
 * An output passed as JSON text: what the strict reader may be asked to scan in one call (pen
 * test M3 of issue 26: 126,000 numbers took 165 ms and stalled other principals). The largest
 * output Signet signs, doctrine_evaluate with detail "full" as JSON-RPC text, is 333 KB and
 * ~2,000 values; a deployment_check report of two deployments ~3,600 values.
 */
const MAX_OUTPUT_TEXT = 512 * 1024;
/**
 * Values (containers and members) in an output, as text or as an object. Real outputs hold
 * about 36 per KB (a check report of two deployments: 3,648 in 100 KB), so 512 KiB of one is
 * under 19,000; a text of numbers holds 128 per KB. At this bound one call's strict reading
 * costs a few ms (measured: 99,000 values took 25 ms, which let a flood of them put another
 * principal's p99 at 104 ms).
 */
const MAX_OUTPUT_SHAPE = { maxDepth: 64, maxNodes: 25_000 };

/** Containers plus members of an object an output was passed as, counted as the text scan counts them; stops past the bound. */
function valuesIn(value: unknown, bound: number): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0 && count <= bound) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    count += 1 + Math.max(0, children.length - 1);
    for (const child of children) stack.push(child);
  }
  return count;
}

const SPKI = { type: 'string', minLength: 60, maxLength: 60, description: 'base64 DER SPKI of an Ed25519 key' };

/** The caller's trust, when it names any; null = this server's own keys. */
function callerTrust(input: Input): TrustSet | null {
  if (input.trusted_keys === undefined && input.trust === undefined) return null;
  const files = input.trust === undefined ? [] : [parsed(() => parseTrustFile(input.trust, 'arguments.trust'), 'arguments.trust')];
  return parsed(() => trustSet({ files, publicKeys: input.trusted_keys ?? [] }, NAMES), 'arguments.trusted_keys');
}

const NAMES = { publicKeys: 'arguments.trusted_keys', doctrineHashes: 'arguments.expected_doctrine_hash' };

/**
 * What produced the verdict, signed with it. "server": this server's own keys (current and
 * retired). "caller": keys the caller supplied, named by the SHA-256 of their canonical form
 * (every key with the name and status the caller gave it, and the caller's doctrine pins), so
 * a reader can tell whose trust it was and check it against the trust file it expected. A
 * server signing a report vouches for the arithmetic, never for keys it was handed.
 */
function trustOf(caller: TrustSet | null): { source: 'server' } | { source: 'caller'; keys_sha256: string } {
  if (caller === null) return { source: 'server' };
  const keys = [...caller.keys.entries()]
    .map(([public_key, k]) => ({ public_key, name: k.name, status: k.status }))
    .sort((a, b) => (a.public_key < b.public_key ? -1 : a.public_key > b.public_key ? 1 : 0));
  const doctrine_hashes = caller.doctrineHashes === null ? null : [...caller.doctrineHashes].sort();
  return { source: 'caller', keys_sha256: sha256Tag(canonicalJson({ keys, doctrine_hashes })) };
}

/** A trust file or pin problem as the caller's invalid arguments, naming where. */
function parsed<T>(read: () => T, where: string): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof TrustFileError) throw new SignetError('invalid_arguments', err.message, [{ where, message: err.message }]);
    throw err;
  }
}

export const verifyOutputTool: ToolDefinition<Input> = {
  name: 'verify_output',
  title: 'Verify a signed output',
  description:
    "Check a Signet output you received (a tool result, its structuredContent, a JSON-RPC response, or the JSON text of any of them; pass text to have duplicate JSON members detected). The report says trusted, unpinned or invalid, and why. By default only this server's keys are trusted (current and retired, never revoked ones); pass trusted_keys or a signet-trust/1 document in trust to check against other signers instead (the verdict is then trusted_by_caller, never trusted, and the report names that trust by its hash), and expected_doctrine_hash to require one doctrine.",
  inputSchema: () => ({
    type: 'object',
    required: ['output'],
    properties: {
      output: {
        type: ['object', 'string'],
        // Bounded as TOOL-003 asks (MAX_OUTPUT_TEXT above); every form an output takes has at
        // most 6 members. What is inside is the signed data the verifier examines, bounded by the
        // argument limits, and as text by MAX_OUTPUT_SHAPE too.
        maxLength: MAX_OUTPUT_TEXT,
        maxProperties: 16,
        description: `A CallToolResult, its structuredContent, a JSON-RPC response, or the JSON text (at most ${MAX_OUTPUT_TEXT} characters; at most ${MAX_OUTPUT_SHAPE.maxNodes} JSON values either way; the server's argument limit, SIGNET_MAX_ARGUMENT_BYTES, applies as well).`,
      },
      trusted_keys: { type: 'array', maxItems: 100, items: SPKI, description: "Trust these signers instead of this server's keys." },
      trust: {
        type: ['object', 'string'],
        maxLength: 65536,
        // The object form's shape, bounded; the trust-file reader then checks every member strictly.
        properties: {
          format: { const: TRUST_FORMAT },
          keys: { type: 'array', maxItems: 100, items: { type: 'object', maxProperties: 4 } },
          doctrine_hashes: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 71 } },
        },
        additionalProperties: false,
        description: "A signet-trust/1 document (or its JSON text, read strictly) to check against instead of this server's keys.",
      },
      expected_doctrine_hash: { type: 'string', maxLength: 100, description: 'Require this doctrine (sha256:<hex>).' },
    },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['format', 'status', 'valid', 'signature_valid', 'reasons', 'signed_by_this_server', 'trust'],
    properties: {
      format: { const: 'signet-verify-report/1' },
      // trusted: by this server's own keys; trusted_by_caller: by keys the caller supplied.
      status: { enum: ['trusted', 'trusted_by_caller', 'unpinned', 'invalid'] },
      valid: { type: 'boolean', description: "status is trusted (this server's own keys)" },
      signature_valid: { type: 'boolean' },
      reasons: {
        type: 'array',
        items: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
      },
      envelope: { type: ['string', 'null'] },
      tool: { type: ['string', 'null'] },
      ok: { type: ['boolean', 'null'] },
      input_hash: { type: ['string', 'null'] },
      doctrine: { type: ['object', 'null'] },
      signer: { type: ['object', 'null'] },
      signed_by_this_server: { type: 'boolean' },
      trust: {
        oneOf: [
          { type: 'object', required: ['source'], properties: { source: { const: 'server' } }, additionalProperties: false },
          {
            type: 'object',
            required: ['source', 'keys_sha256'],
            properties: { source: { const: 'caller' }, keys_sha256: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' } },
            additionalProperties: false,
          },
        ],
      },
    },
  },
  run(ctx, input) {
    // Counted before anything reads it: text in one pass (a few hundred µs), an object by a walk.
    const problem =
      typeof input.output === 'string'
        ? new JsonShapeGuard(MAX_OUTPUT_SHAPE, 'arguments.output').push(new TextEncoder().encode(input.output))
        : valuesIn(input.output, MAX_OUTPUT_SHAPE.maxNodes) > MAX_OUTPUT_SHAPE.maxNodes
          ? `arguments.output holds more than ${MAX_OUTPUT_SHAPE.maxNodes} JSON values`
          : null;
    if (problem !== null) throw new SignetError('invalid_arguments', problem, [{ where: 'arguments.output', message: problem }]);
    const caller = callerTrust(input);
    let trust = caller;
    if (input.expected_doctrine_hash !== undefined) {
      const base = trust ?? ctx.trust;
      const pinned = parsed(() => trustSet({ doctrineHashes: [input.expected_doctrine_hash!] }, NAMES), 'arguments.expected_doctrine_hash');
      trust = { keys: base.keys, doctrineHashes: pinned.doctrineHashes };
    }
    const report = ctx.verify(input.output, trust ?? ctx.trust);
    const mine = ctx.signingKeys.find((k) => k.public_key === report.signer?.public_key);
    // Never "trusted" on borrowed keys (pen test M5: the forger's key, named like the real one,
    // got a signed "trusted, valid"). A verdict on the caller's keys gets its own status, and
    // `valid` stays what it is everywhere else, "status is trusted", so a consumer that checks
    // either `status === 'trusted'` or `valid` cannot read the server's signature on the report
    // as the server's trust in the output. A status rather than a flag beside "trusted": a flag
    // is what a hurried consumer skips. `trust` says whose keys they were, signed with it.
    const status = caller !== null && report.status === 'trusted' ? 'trusted_by_caller' : report.status;
    return {
      ...report,
      status,
      valid: status === 'trusted',
      signed_by_this_server: report.signature_valid && mine !== undefined && mine.status !== 'revoked',
      trust: trustOf(caller === null ? null : trust),
    };
  },
};
