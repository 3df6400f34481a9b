import type { ToolDefinition } from './types.js';

interface Input {
  query: string;
  limit?: number;
  kind?: 'document' | 'rule';
}

export const doctrineSearch: ToolDefinition<Input> = {
  name: 'doctrine_search',
  title: 'Search the doctrine',
  description:
    'Full-text search over the doctrine\'s documents and rules (prefix and fuzzy matching; ids, titles, the specification\'s terms such as "token passthrough" and the fact names a rule reads weigh more). Returns ranked hits with a snippet each; ties are ordered by id, so the same query always gives the same list. Use it to find which rules or documents cover a topic (e.g. "rate limit", "TLS", "X-Forwarded-For"), then fetch one with doctrine_get.',
  inputSchema: () => ({
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 200, description: 'Words to look for.' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Maximum number of hits (default 10).' },
      kind: { enum: ['document', 'rule'], description: 'Only documents or only rules.' },
    },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['query', 'total', 'hits'],
    properties: {
      query: { type: 'string' },
      kind: { type: ['string', 'null'] },
      total: { type: 'integer' },
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'kind', 'title', 'score', 'snippet'],
          properties: {
            id: { type: 'string' },
            kind: { enum: ['document', 'rule'] },
            title: { type: 'string' },
            score: { type: 'number' },
            matched_terms: { type: 'array', items: { type: 'string' } },
            snippet: { type: 'string' },
          },
        },
      },
    },
  },
  run(ctx, input) {
    const { total, hits } = ctx.search.search(input.query, { limit: input.limit ?? 10, kind: input.kind });
    return { query: input.query, kind: input.kind ?? null, total, hits };
  },
};
