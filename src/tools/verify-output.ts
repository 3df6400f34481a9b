import type { ToolDefinition } from './types.js';

interface Input {
  output: unknown;
  expected_public_key?: string;
  expected_doctrine_hash?: string;
}

export const verifyOutputTool: ToolDefinition<Input> = {
  name: 'verify_output',
  title: 'Verify a signed output',
  description:
    'Check a Signet output that you received earlier (or from another Signet server): pass the whole tool result, its structuredContent, or its text. Says whether it is valid and, if not, exactly why (modified content, bad signature, unknown format). Verification uses only the fields inside the output; pass expected_public_key / expected_doctrine_hash to also require a specific signer or doctrine. The report also says whether the output was signed by this server over its current doctrine.',
  inputSchema: () => ({
    type: 'object',
    required: ['output'],
    properties: {
      output: { type: ['object', 'string'], description: 'A CallToolResult, its structuredContent, or the JSON text.' },
      expected_public_key: { type: 'string', maxLength: 200, description: 'Require this signer (base64 DER SPKI).' },
      expected_doctrine_hash: { type: 'string', maxLength: 100, description: 'Require this doctrine (sha256:<hex>).' },
    },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['valid', 'reasons', 'checks', 'signed_by_this_server'],
    properties: {
      valid: { type: 'boolean' },
      reasons: { type: 'array', items: { type: 'string' } },
      checks: { type: 'object' },
      tool: { type: ['string', 'null'] },
      doctrine_hash: { type: ['string', 'null'] },
      doctrine_version: { type: ['string', 'null'] },
      public_key: { type: ['string', 'null'] },
      signed_by_this_server: { type: 'boolean' },
    },
  },
  run(ctx, input) {
    const report = ctx.verify(input.output, {
      expectedPublicKey: input.expected_public_key,
      expectedDoctrineHash: input.expected_doctrine_hash,
    });
    return {
      ...report,
      signed_by_this_server:
        report.valid && report.public_key === ctx.footer.doctrine_public_key && report.doctrine_hash === ctx.footer.doctrine_hash,
    };
  },
};
