import { SEVERITIES } from '../doctrine/types.js';
import type { ToolDefinition } from './types.js';

export const doctrineInfo: ToolDefinition = {
  name: 'doctrine_info',
  title: 'Doctrine information',
  description:
    'Identify the doctrine this server answers from: name, version, doctrine_hash, the signature over that hash and the public key that verifies it, plus counts of documents and rules and the list of documents. Call it first to learn what the doctrine covers; pin doctrine_hash and the signing keys (signing_keys: the current key and retired ones whose earlier outputs stay valid) if you need later outputs to come from the same doctrine and signer.',
  inputSchema: () => ({ type: 'object', properties: {}, additionalProperties: false }),
  resultSchema: {
    type: 'object',
    required: [
      'name',
      'title',
      'version',
      'description',
      'doctrine_hash',
      'doctrine_signature',
      'doctrine_public_key',
      'signing_keys',
      'document_count',
      'rule_count',
    ],
    properties: {
      name: { type: 'string' },
      title: { type: 'string' },
      version: { type: 'string' },
      description: { type: 'string' },
      format: { type: 'string' },
      doctrine_hash: { type: 'string' },
      doctrine_signature: { type: 'string' },
      doctrine_public_key: { type: 'string' },
      signing_keys: {
        type: 'array',
        description: "This server's signing keys: the current one (active) first, then retired and revoked ones.",
        items: {
          type: 'object',
          required: ['name', 'public_key', 'fingerprint', 'status'],
          properties: {
            name: { type: 'string' },
            public_key: { type: 'string' },
            fingerprint: { type: 'string' },
            status: { enum: ['active', 'retired', 'revoked'] },
          },
        },
      },
      publisher: {
        type: ['object', 'null'],
        properties: { public_key: { type: 'string' }, signature: { type: 'string' } },
      },
      document_count: { type: 'integer' },
      rule_count: { type: 'integer' },
      fact_count: { type: 'integer' },
      rules_by_severity: { type: 'object', additionalProperties: { type: 'integer' } },
      categories: { type: 'array', items: { type: 'string' } },
      documents: {
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, uri: { type: 'string' } } },
      },
    },
  },
  run(ctx) {
    const { doctrine, footer } = ctx;
    const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, doctrine.rules.filter((r) => r.severity === s).length]));
    return {
      name: doctrine.meta.name,
      title: doctrine.meta.title,
      version: doctrine.meta.version,
      description: doctrine.meta.description,
      format: doctrine.meta.format,
      doctrine_hash: footer.doctrine_hash,
      doctrine_signature: footer.doctrine_signature,
      doctrine_public_key: footer.doctrine_public_key,
      signing_keys: ctx.signingKeys,
      publisher: doctrine.publisher ? { public_key: doctrine.publisher.public_key, signature: doctrine.publisher.signature } : null,
      document_count: doctrine.documents.length,
      rule_count: doctrine.rules.length,
      fact_count: doctrine.factPaths.length,
      rules_by_severity: bySeverity,
      categories: [...new Set(doctrine.rules.map((r) => r.category))].sort(),
      documents: doctrine.documents.map((d) => ({ id: d.id, title: d.title, uri: `doctrine://documents/${d.id}` })),
    };
  },
};
