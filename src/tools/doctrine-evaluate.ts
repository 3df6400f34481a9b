import { evaluateFactsCanonical, type Detail } from '../doctrine/evaluate.js';
import { SignetError } from '../errors.js';
import type { ToolDefinition } from './types.js';

interface Input {
  facts: Record<string, unknown>;
  detail?: Detail;
}

/** The doctrine's facts schema, embeddable as a subschema (no `$schema` below the root). */
function factsSubschema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

export const doctrineEvaluate: ToolDefinition<Input> = {
  name: 'doctrine_evaluate',
  title: 'Evaluate a deployment against the doctrine',
  description:
    'Check facts about one deployment (the shape is in inputSchema.properties.facts; every fact is optional) against every rule of the doctrine. Returns one finding per rule, in rule id order: id, title, severity and status (pass, fail, or not_applicable with the missing facts or the unmet condition); failed findings also carry category, rationale, remediation and references (detail "full" adds them to every finding; doctrine_get gives any rule in full). A summary gives counts and the failed rule ids, most severe first. Deterministic: the same facts always give the same signed output. Provide as many facts as you know; unknown facts make rules not_applicable rather than failing.',
  inputSchema: (doctrine) => ({
    type: 'object',
    required: ['facts'],
    properties: {
      facts: factsSubschema(doctrine.meta.facts_schema),
      detail: {
        enum: ['failures', 'full'],
        default: 'failures',
        description: 'Where the explanation (category, rationale, remediation, references) appears: "failures" (default, compact) or "full" (every finding).',
      },
    },
    additionalProperties: false,
  }),
  validationSchema: () => ({
    type: 'object',
    required: ['facts'],
    properties: { facts: { type: 'object' }, detail: { enum: ['failures', 'full'] } },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['findings', 'summary'],
    properties: {
      findings: {
        type: 'array',
        items: {
          type: 'object',
          required: ['rule_id', 'title', 'severity', 'status'],
          properties: {
            rule_id: { type: 'string' },
            title: { type: 'string' },
            category: { type: 'string' },
            severity: { enum: ['critical', 'high', 'medium', 'low'] },
            status: { enum: ['pass', 'fail', 'not_applicable'] },
            reason: { type: 'string' },
            missing_facts: { type: 'array', items: { type: 'string' } },
            rationale: { type: 'string' },
            remediation: { type: 'string' },
            references: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      summary: {
        type: 'object',
        required: ['rules', 'pass', 'fail', 'not_applicable'],
        properties: {
          rules: { type: 'integer' },
          pass: { type: 'integer' },
          fail: { type: 'integer' },
          not_applicable: { type: 'integer' },
          failed_by_severity: { type: 'object', additionalProperties: { type: 'integer' } },
          highest_failed_severity: { type: ['string', 'null'] },
          failed_rule_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  run(ctx, input) {
    // Facts are checked here, by the doctrine's compiled facts validator (see validationSchema).
    try {
      return evaluateFactsCanonical(ctx.doctrine, input.facts, { detail: input.detail ?? 'failures' });
    } catch (err) {
      if (!(err instanceof SignetError)) throw err;
      throw new SignetError(err.code, `Invalid arguments for doctrine_evaluate: ${err.message}`, err.details.map((d) => ({ ...d, where: d.where ? `arguments.${d.where}` : 'arguments.facts' })));
    }
  },
};
