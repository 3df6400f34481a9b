import { documentUri, publicRule, ruleUri } from '../doctrine/uris.js';
import { SignetError } from '../errors.js';
import type { ToolDefinition } from './types.js';

interface Input {
  id: string;
}

const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;

export const doctrineGet: ToolDefinition<Input> = {
  name: 'doctrine_get',
  title: 'Get a document or rule',
  description:
    'Fetch one doctrine entry by id: a document (Markdown body, e.g. "authentication-and-api-keys") or a rule (e.g. "AUTH-001": severity, JSON Logic condition, rationale, remediation, references). Ids come from doctrine_info, doctrine_search or doctrine_evaluate. Unknown ids return a not_found error with close matches; ids that look like paths are refused.',
  inputSchema: () => ({
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', minLength: 1, maxLength: 128, description: 'A document id or a rule id.' } },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['kind', 'id', 'uri'],
    properties: {
      kind: { enum: ['document', 'rule'] },
      id: { type: 'string' },
      uri: { type: 'string' },
      document: { type: 'object' },
      rule: { type: 'object' },
    },
  },
  run(ctx, { id }) {
    if (!PLAIN_ID.test(id)) {
      throw new SignetError(
        'invalid_id',
        'Ids are plain names made of letters, digits and dashes (like "AUTH-001" or "transport-and-exposure"), never paths or URLs.',
        [{ where: 'id', message: 'not a plain id' }],
      );
    }
    const doc = ctx.doctrine.documents.find((d) => d.id === id);
    if (doc) {
      return { kind: 'document', id, uri: documentUri(id), document: { id, title: doc.title, tags: doc.tags, body: doc.body } };
    }
    const rule = ctx.doctrine.rules.find((r) => r.id === id);
    if (rule) {
      return { kind: 'rule', id, uri: ruleUri(id), rule: publicRule(rule) };
    }
    const suggestions = ctx.search.search(id, { limit: 3 }).hits.map((h) => h.id);
    throw new SignetError(
      'not_found',
      `No document or rule has the id "${id}".${suggestions.length ? ` Close matches: ${suggestions.join(', ')}.` : ''} doctrine_info lists documents; doctrine_search finds rules.`,
      suggestions.map((s) => ({ where: 'suggestion', message: s })),
    );
  },
};
