import { SHA256_TAG_PATTERN } from '../shared/sha256-tag.js';
import { FOOTER_MEMBERS } from '../signing/format.js';
import type { JsonSchema } from './types.js';

const footerSchema: JsonSchema = {
  type: 'object',
  required: [...FOOTER_MEMBERS],
  properties: {
    signature_format: { type: 'string' },
    doctrine_name: { type: 'string' },
    doctrine_version: { type: 'string' },
    doctrine_hash: { type: 'string', pattern: SHA256_TAG_PATTERN },
    doctrine_signature: { type: 'string', pattern: '^ed25519:' },
    doctrine_public_key: { type: 'string' },
    output_hash: { type: 'string', pattern: SHA256_TAG_PATTERN },
    output_signature: { type: 'string', pattern: '^ed25519:' },
  },
  additionalProperties: false,
};

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['code', 'message', 'details'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    details: {
      type: 'array',
      items: { type: 'object', required: ['message'], properties: { where: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** structuredContent of every tools/call result of `tool`: success or error, always with a signed footer. */
export function signedOutputSchema(tool: string, resultSchema: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['tool', 'input_hash', 'ok', 'footer'],
    properties: {
      tool: { const: tool },
      input_hash: { type: ['string', 'null'], description: 'sha256 of the RFC 8785 canonical JSON of the arguments.' },
      ok: { type: 'boolean' },
      result: resultSchema,
      error: errorSchema,
      footer: footerSchema,
    },
    additionalProperties: false,
  };
}
