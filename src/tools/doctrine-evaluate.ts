import { type Detail, evaluateFacts, REASONS } from '../doctrine/evaluate.js';
import { SEVERITIES } from '../doctrine/types.js';
import { SignetError } from '../errors.js';
import { canonicalEvaluation, canonicalSummary } from './canonical-result.js';
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
const areaIds = { type: 'array', items: { type: 'string' } };
const areaCoverage = {
  type: 'object',
  required: ['rules', 'checked', 'not_applicable', 'undetermined'],
  properties: {
    rules: { type: 'integer', minimum: 0 },
    checked: { type: 'integer', minimum: 0 },
    not_applicable: { type: 'integer', minimum: 0 },
    undetermined: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
};

export const doctrineEvaluate: ToolDefinition<Input> = {
  name: 'doctrine_evaluate',
  title: 'Evaluate a deployment against the doctrine',
  description:
    'Check facts about one deployment (the shape is in inputSchema.properties.facts; every fact is optional; facts are nested ' +
    'objects, {"transport": {"kind": "http"}}, not dotted keys such as "transport.kind") against every rule of ' +
    'the doctrine. Returns one finding per rule, in rule id order, with a status: pass or fail (the rule applies and its check ' +
    'holds or not); not_applicable (its condition is false for these facts); undetermined (the facts given cannot decide whether ' +
    'it applies or whether it holds: missing_facts names the facts that would). A fact you leave out never passes or excuses a ' +
    'rule: it leaves the rule undetermined. Facts that contradict each other are refused, naming them. The summary gives counts per ' +
    'status, how many rules were checked (per area in coverage), the failed and undetermined rule ids (most severe first), every ' +
    'missing fact, the scope (areas declared out of scope, and the minimum this kind of deployment must cover) and verdict: fail ' +
    'if a baseline rule failed, otherwise incomplete if one is undetermined, otherwise limited_scope if the facts declare part of ' +
    'the minimum scope out of scope, otherwise pass. Advisory rules (extras and drafts, marked advisory) are reported in ' +
    'summary.advisories and never change the verdict. Only verdict "pass" means the deployment meets the baseline as described. ' +
    'Failed findings also carry category, rationale, remediation and references (detail "full" adds them to every finding; ' +
    'detail "summary" returns the summary alone, a few kilobytes, for clients with a small context; doctrine_get gives any rule ' +
    "in full). Several servers are several deployments, one evaluation each; a review's verdict is the worst of them. Deterministic: the same facts always give the same signed output. Describe what is " +
    'deployed, not what is intended, and test what you can.',
  inputSchema: (doctrine) => ({
    type: 'object',
    required: ['facts'],
    properties: {
      facts: factsSubschema(doctrine.meta.facts_schema),
      detail: {
        enum: ['failures', 'full', 'summary'],
        default: 'failures',
        description:
          'How much comes back: "failures" (default) explains the failed findings only (category, rationale, remediation, ' +
          'references); "full" explains every finding; "summary" returns the summary without findings (it still names every ' +
          'failed and undetermined rule and every missing fact).',
      },
    },
    additionalProperties: false,
  }),
  validationSchema: () => ({
    type: 'object',
    required: ['facts'],
    properties: { facts: { type: 'object' }, detail: { enum: ['failures', 'full', 'summary'] } },
    additionalProperties: false,
  }),
  resultSchema: {
    type: 'object',
    required: ['summary'],
    additionalProperties: false,
    properties: {
      findings: {
        type: 'array',
        description: 'One per rule, in rule id order; absent with detail "summary".',
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
            advisory: { const: true, description: 'An extra or a draft: reported, never part of the verdict.' },
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
          'checked',
          'complete',
          'verdict',
          'failed_by_severity',
          'highest_failed_severity',
          'failed_rule_ids',
          'undetermined_by_severity',
          'undetermined_rule_ids',
          'missing_facts',
          'advisories',
          'scope',
          'coverage',
        ],
        additionalProperties: false,
        properties: {
          rules: { type: 'integer' },
          pass: { type: 'integer' },
          fail: { type: 'integer' },
          not_applicable: { type: 'integer' },
          undetermined: { type: 'integer' },
          checked: { type: 'integer', description: 'Rules whose check ran (pass + fail).' },
          complete: { type: 'boolean', description: 'true when no baseline rule and no part of the scope is undetermined.' },
          verdict: {
            enum: ['fail', 'incomplete', 'limited_scope', 'pass'],
            description:
              'fail if a baseline rule failed; otherwise incomplete if a baseline rule or the scope is undetermined; otherwise ' +
              'limited_scope if an area of the minimum scope is declared out of scope; otherwise pass.',
          },
          failed_by_severity: severityCounts,
          highest_failed_severity: { enum: [...SEVERITIES, null] },
          failed_rule_ids: ruleIds,
          undetermined_by_severity: severityCounts,
          undetermined_rule_ids: ruleIds,
          missing_facts: { type: 'array', items: { type: 'string' }, description: 'Every fact that would decide an undetermined rule.' },
          advisories: {
            type: 'object',
            required: ['rules', 'failed_rule_ids', 'undetermined_rule_ids'],
            properties: { rules: { type: 'integer', minimum: 0 }, failed_rule_ids: ruleIds, undetermined_rule_ids: ruleIds },
            additionalProperties: false,
          },
          scope: {
            type: 'object',
            required: ['declared_out_of_scope', 'minimum', 'minimum_unmet', 'undetermined'],
            properties: { declared_out_of_scope: areaIds, minimum: areaIds, minimum_unmet: areaIds, undetermined: areaIds },
            additionalProperties: false,
          },
          coverage: { type: 'object', additionalProperties: areaCoverage, description: 'Per area (rule category).' },
        },
      },
    },
  },
  run(ctx, input) {
    // Facts are checked here, by the doctrine's compiled facts validator (see validationSchema).
    try {
      const evaluation = evaluateFacts(ctx.doctrine, input.facts, { detail: input.detail ?? 'failures' });
      return input.detail === 'summary' ? canonicalSummary(evaluation) : canonicalEvaluation(evaluation);
    } catch (err) {
      if (!(err instanceof SignetError)) throw err;
      throw new SignetError(
        err.code,
        `Invalid arguments for doctrine_evaluate: ${err.message}`,
        // A contradiction names several facts ("facts.a, facts.b"): each is an argument path.
        err.details.map((d) => ({
          ...d,
          where: d.where
            ? d.where
                .split(', ')
                .map((w) => `arguments.${w}`)
                .join(', ')
            : 'arguments.facts',
        })),
      );
    }
  },
};
