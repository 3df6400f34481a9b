import { SignetError } from '../errors.js';
import { parseTrustFile, TrustFileError, type TrustSet, trustSet } from '../signing/trust.js';
import type { ToolDefinition } from './types.js';

interface Input {
  output: unknown;
  trusted_keys?: string[];
  trust?: unknown;
  expected_doctrine_hash?: string;
}

const SPKI = { type: 'string', minLength: 60, maxLength: 60, description: 'base64 DER SPKI of an Ed25519 key' };

/** The caller's trust, when it names any; null = this server's own keys. */
function callerTrust(input: Input): TrustSet | null {
  if (input.trusted_keys === undefined && input.trust === undefined) return null;
  const files = input.trust === undefined ? [] : [parsed(() => parseTrustFile(input.trust, 'arguments.trust'), 'arguments.trust')];
  return parsed(() => trustSet({ files, publicKeys: input.trusted_keys ?? [] }, NAMES), 'arguments.trusted_keys');
}

const NAMES = { publicKeys: 'arguments.trusted_keys', doctrineHashes: 'arguments.expected_doctrine_hash' };

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
    "Check a Signet output you received (a tool result, its structuredContent, a JSON-RPC response, or the JSON text of any of them; pass text to have duplicate JSON members detected). The report says trusted, unpinned or invalid, and why. By default only this server's keys are trusted (current and retired, never revoked ones); pass trusted_keys or a signet-trust/1 document in trust to check against other signers instead, and expected_doctrine_hash to require one doctrine.",
  inputSchema: () => ({
    type: 'object',
    required: ['output'],
    properties: {
      output: {
        type: ['object', 'string'],
        description: 'A CallToolResult, its structuredContent, a JSON-RPC response, or the JSON text.',
      },
      trusted_keys: { type: 'array', maxItems: 100, items: SPKI, description: "Trust these signers instead of this server's keys." },
      trust: {
        type: ['object', 'string'],
        maxLength: 65536,
        description: "A signet-trust/1 document (or its JSON text, read strictly) to check against instead of this server's keys.",
      },
      expected_doctrine_hash: { type: 'string', maxLength: 100, description: 'Require this doctrine (sha256:<hex>).' },
    },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['format', 'status', 'valid', 'signature_valid', 'reasons', 'signed_by_this_server'],
    properties: {
      format: { const: 'signet-verify-report/1' },
      status: { enum: ['trusted', 'unpinned', 'invalid'] },
      valid: { type: 'boolean' },
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
    },
  },
  run(ctx, input) {
    let trust = callerTrust(input);
    if (input.expected_doctrine_hash !== undefined) {
      const base = trust ?? ctx.trust;
      const pinned = parsed(() => trustSet({ doctrineHashes: [input.expected_doctrine_hash!] }, NAMES), 'arguments.expected_doctrine_hash');
      trust = { keys: base.keys, doctrineHashes: pinned.doctrineHashes };
    }
    const report = ctx.verify(input.output, trust ?? ctx.trust);
    const mine = ctx.signingKeys.find((k) => k.public_key === report.signer?.public_key);
    return { ...report, signed_by_this_server: report.signature_valid && mine !== undefined && mine.status !== 'revoked' };
  },
};
