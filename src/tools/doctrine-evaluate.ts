import { checkFacts, evaluateFacts, evaluateOutcomes, summarize, toFinding, type Detail, type Outcome } from '../doctrine/evaluate.js';
import type { Rule } from '../doctrine/types.js';
import { canonicalJson, PreCanonical } from '../signing/canonical.js';
import { SignetError } from '../errors.js';
import type { ToolDefinition } from './types.js';

interface Input {
  facts: Record<string, unknown>;
  detail?: Detail;
}

/**
 * The signed result as canonical JSON, built from per-rule fragments: a finding is a pure
 * function of its rule and outcome, so each rule has a handful of distinct findings and each
 * is canonicalised once. The one canonical-bytes shortcut of evaluation, kept here, where the
 * result meets signing; doctrine/ returns plain data. A test checks the bytes equal
 * canonicalize(evaluateFacts(...)).
 */
const fragments = new WeakMap<Rule, Map<string, string>>();

function canonicalFinding(rule: Rule, outcome: Outcome, explained: boolean): string {
  const memo = `${outcome.status}|${explained}|${outcome.missing_facts ? outcome.missing_facts.join(',') : ''}|${outcome.reason ?? ''}`;
  let byOutcome = fragments.get(rule);
  if (!byOutcome) fragments.set(rule, (byOutcome = new Map()));
  let json = byOutcome.get(memo);
  if (json === undefined) byOutcome.set(memo, (json = canonicalJson(toFinding(rule, outcome, explained))));
  return json;
}

export function evaluationCanonical(doctrine: Parameters<typeof evaluateFacts>[0], facts: Record<string, unknown>, detail: Detail): PreCanonical {
  const outcomes = evaluateOutcomes(doctrine, facts, { validated: true });
  const full = detail === 'full';
  let parts = '';
  doctrine.rules.forEach((rule, i) => {
    parts += (i > 0 ? ',' : '') + canonicalFinding(rule, outcomes[i]!, full || outcomes[i]!.status === 'fail');
  });
  const json = `{"findings":[${parts}],"summary":${canonicalJson(summarize(doctrine.rules, outcomes))}}`;
  return new PreCanonical(json, () => evaluateFacts(doctrine, facts, { validated: true, detail }));
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
    'Check facts about one deployment (the shape is in inputSchema.properties.facts) against every rule of the doctrine. Returns one finding per rule, in rule id order: id, title, severity and status: pass, fail, not_applicable (the rule\'s condition does not hold for this deployment) or undetermined (facts it needs were not given; missing_facts names them). Failed findings also carry category, rationale, remediation and references (detail "full" adds them to every finding; doctrine_get gives any rule in full). The summary\'s verdict is fail, incomplete (nothing failed, but some rules could not be decided: never read that as a pass) or pass, with counts, the failed and undetermined rule ids, most severe first, and facts_needed: give those facts and evaluate again. Deterministic: the same facts always give the same signed output.',
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
            status: { enum: ['pass', 'fail', 'not_applicable', 'undetermined'] },
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
        required: ['verdict', 'complete', 'rules', 'pass', 'fail', 'not_applicable', 'undetermined'],
        properties: {
          verdict: { enum: ['fail', 'incomplete', 'pass'], description: 'fail: a rule failed; incomplete: none failed but some could not be decided; pass: every rule in scope passed' },
          complete: { type: 'boolean', description: 'every rule in scope was decided' },
          rules: { type: 'integer' },
          pass: { type: 'integer' },
          fail: { type: 'integer' },
          not_applicable: { type: 'integer' },
          undetermined: { type: 'integer' },
          failed_by_severity: { type: 'object', additionalProperties: { type: 'integer' } },
          highest_failed_severity: { type: ['string', 'null'] },
          failed_rule_ids: { type: 'array', items: { type: 'string' } },
          undetermined_rule_ids: { type: 'array', items: { type: 'string' } },
          facts_needed: { type: 'array', items: { type: 'string' }, description: 'facts that would decide the undetermined rules' },
        },
      },
    },
  },
  run(ctx, input) {
    // Facts are checked here, by the doctrine's compiled facts validator (see validationSchema).
    try {
      checkFacts(ctx.doctrine, input.facts);
      return evaluationCanonical(ctx.doctrine, input.facts, input.detail ?? 'failures');
    } catch (err) {
      if (!(err instanceof SignetError)) throw err;
      throw new SignetError(err.code, `Invalid arguments for doctrine_evaluate: ${err.message}`, err.details.map((d) => ({ ...d, where: d.where ? `arguments.${d.where}` : 'arguments.facts' })));
    }
  },
};
