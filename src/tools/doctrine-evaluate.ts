import { type Detail, evaluateFacts, REASONS } from '../doctrine/evaluate.js';
import { SEVERITIES } from '../doctrine/types.js';
import { SignetError } from '../errors.js';
import { canonicalEvaluation } from './canonical-result.js';
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

const severityCounts = {
  type: 'object',
  required: [...SEVERITIES],
  properties: Object.fromEntries(SEVERITIES.map((s) => [s, { type: 'integer', minimum: 0 }])),
  additionalProperties: false,
};
const ruleIds = { type: 'array', items: { type: 'string' } };

export const doctrineEvaluate: ToolDefinition<Input> = {
  name: 'doctrine_evaluate',
  title: 'Evaluate a deployment against the doctrine',
  description:
    'Check facts about one deployment (the shape is in inputSchema.properties.facts; every fact is optional) against every rule of ' +
    'the doctrine. Returns one finding per rule, in rule id order, with a status: pass or fail (the rule applies and its check ' +
    'holds or not); not_applicable (its condition is false for these facts); undetermined (the facts given cannot decide whether ' +
    'it applies or whether it holds: missing_facts names the facts that would). A fact you leave out never passes or excuses a ' +
    'rule: it leaves the rule undetermined. The summary gives counts per status, the failed and undetermined rule ids (most severe ' +
    'first), every missing fact, complete (true when nothing is undetermined) and verdict: fail if any rule failed, otherwise ' +
    'incomplete if any is undetermined, otherwise pass. Only verdict "pass" means the deployment meets the baseline as described. ' +
    'Failed findings also carry category, rationale, remediation and references (detail "full" adds them to every finding; ' +
    'doctrine_get gives any rule in full). Deterministic: the same facts always give the same signed output. Describe what is ' +
    'deployed, not what is intended, and test what you can.',
  inputSchema: (doctrine) => ({
    type: 'object',
    required: ['facts'],
    properties: {
      facts: factsSubschema(doctrine.meta.facts_schema),
      detail: {
        enum: ['failures', 'full'],
        default: 'failures',
        description:
          'Where the explanation (category, rationale, remediation, references) appears: "failures" (default, compact) or "full" (every finding).',
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
    additionalProperties: false,
    properties: {
      findings: {
        type: 'array',
        items: {
          type: 'object',
          required: ['rule_id', 'title', 'severity', 'status'],
          additionalProperties: false,
          properties: {
            rule_id: { type: 'string' },
            title: { type: 'string' },
            category: { type: 'string' },
            severity: { enum: [...SEVERITIES] },
            status: { enum: ['pass', 'fail', 'not_applicable', 'undetermined'] },
            reason: { enum: Object.values(REASONS) },
            missing_facts: { type: 'array', items: { type: 'string' }, minItems: 1 },
            rationale: { type: 'string' },
            remediation: { type: 'string' },
            references: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      summary: {
        type: 'object',
        required: [
          'rules',
          'pass',
          'fail',
          'not_applicable',
          'undetermined',
          'complete',
          'verdict',
          'failed_by_severity',
          'highest_failed_severity',
          'failed_rule_ids',
          'undetermined_by_severity',
          'undetermined_rule_ids',
          'missing_facts',
        ],
        additionalProperties: false,
        properties: {
          rules: { type: 'integer' },
          pass: { type: 'integer' },
          fail: { type: 'integer' },
          not_applicable: { type: 'integer' },
          undetermined: { type: 'integer' },
          complete: { type: 'boolean', description: 'true when every rule was decided.' },
          verdict: {
            enum: ['fail', 'incomplete', 'pass'],
            description: 'fail if any rule failed; otherwise incomplete if any rule is undetermined; otherwise pass.',
          },
          failed_by_severity: severityCounts,
          highest_failed_severity: { enum: [...SEVERITIES, null] },
          failed_rule_ids: ruleIds,
          undetermined_by_severity: severityCounts,
          undetermined_rule_ids: ruleIds,
          missing_facts: { type: 'array', items: { type: 'string' }, description: 'Every fact that would decide an undetermined rule.' },
        },
      },
    },
  },
  run(ctx, input) {
    // Facts are checked here, by the doctrine's compiled facts validator (see validationSchema).
    try {
      return canonicalEvaluation(evaluateFacts(ctx.doctrine, input.facts, { detail: input.detail ?? 'failures' }));
    } catch (err) {
      if (!(err instanceof SignetError)) throw err;
      throw new SignetError(
        err.code,
        `Invalid arguments for doctrine_evaluate: ${err.message}`,
        err.details.map((d) => ({ ...d, where: d.where ? `arguments.${d.where}` : 'arguments.facts' })),
      );
    }
  },
};
