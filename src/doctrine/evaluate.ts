import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { SignetError } from '../errors.js';
import { SEVERITIES, type Doctrine, type Rule, type Severity } from './types.js';

export type FindingStatus = 'pass' | 'fail' | 'not_applicable';

export interface Finding {
  rule_id: string;
  title: string;
  severity: Severity;
  status: FindingStatus;
  /** not_applicable only: why (missing facts, or the rule's `when` did not hold). */
  reason?: string;
  /** not_applicable because of missing facts: which. */
  missing_facts?: string[];
  /** Failed findings (every finding with detail "full"): what to do about it. */
  category?: string;
  rationale?: string;
  remediation?: string;
  references?: string[];
}

/**
 * "failures" (default): the explanation (category, rationale, remediation, references)
 * only where a rule failed, which keeps the signed output small; "full": on every finding.
 */
export type Detail = 'failures' | 'full';

export interface Evaluation {
  findings: Finding[];
  summary: {
    rules: number;
    pass: number;
    fail: number;
    not_applicable: number;
    failed_by_severity: Record<Severity, number>;
    /** The most severe failed rule's severity, or null when nothing failed. */
    highest_failed_severity: Severity | null;
    /** Rule ids that failed, most severe first, then by id. */
    failed_rule_ids: string[];
  };
}

const splitPaths = new Map<string, string[]>();

function hasFact(facts: Record<string, unknown>, path: string): boolean {
  let parts = splitPaths.get(path);
  if (!parts) splitPaths.set(path, (parts = path.split('.')));
  let node: unknown = facts;
  for (const part of parts) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== undefined;
}

function evaluateRule(rule: Rule, facts: Record<string, unknown>): Pick<Finding, 'status' | 'reason' | 'missing_facts'> {
  const missing = rule.facts.filter((p) => !hasFact(facts, p));
  if (missing.length > 0) return { status: 'not_applicable', reason: 'missing facts', missing_facts: missing };
  if (rule.when !== undefined && !jsonLogic.truthy(jsonLogic.apply(rule.when as RulesLogic, facts))) {
    return { status: 'not_applicable', reason: 'condition for this rule does not hold' };
  }
  const passed = jsonLogic.truthy(jsonLogic.apply(rule.check as RulesLogic, facts));
  return { status: passed ? 'pass' : 'fail' };
}

/** Validates facts against the doctrine's schema, then evaluates every rule, in rule id order. */
export function evaluateFacts(doctrine: Doctrine, facts: unknown, options: { validated?: boolean; detail?: Detail } = {}): Evaluation {
  if (!options.validated && !doctrine.validateFacts(facts)) {
    const errors = (doctrine.validateFacts.errors ?? []).slice(0, 20);
    throw new SignetError(
      'invalid_arguments',
      `facts do not match the doctrine's facts schema (${errors.length} problem${errors.length === 1 ? '' : 's'} shown)`,
      errors.map((e) => ({
        where: `facts${e.instancePath.replace(/\//g, '.')}`,
        message: e.keyword === 'additionalProperties' ? `unknown fact "${String(e.params['additionalProperty'])}"` : (e.message ?? 'invalid'),
      })),
    );
  }
  const f = facts as Record<string, unknown>;
  const full = options.detail === 'full';
  const findings: Finding[] = doctrine.rules.map((rule) => {
    const outcome = evaluateRule(rule, f);
    const finding: Finding = { rule_id: rule.id, title: rule.title, severity: rule.severity, ...outcome };
    if (full || outcome.status === 'fail') {
      finding.category = rule.category;
      finding.rationale = rule.rationale;
      finding.remediation = rule.remediation;
      finding.references = rule.references;
    }
    return finding;
  });
  const failed_by_severity = { critical: 0, high: 0, medium: 0, low: 0 } as Record<Severity, number>;
  let pass = 0;
  let fail = 0;
  for (const x of findings) {
    if (x.status === 'pass') pass++;
    else if (x.status === 'fail') {
      fail++;
      failed_by_severity[x.severity]++;
    }
  }
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  const failedIds = findings
    .filter((x) => x.status === 'fail')
    .sort((a, b) => rank(a.severity) - rank(b.severity) || (a.rule_id < b.rule_id ? -1 : 1))
    .map((x) => x.rule_id);
  return {
    findings,
    summary: {
      rules: findings.length,
      pass,
      fail,
      not_applicable: findings.length - pass - fail,
      failed_by_severity,
      highest_failed_severity: SEVERITIES.find((s) => failed_by_severity[s] > 0) ?? null,
      failed_rule_ids: failedIds,
    },
  };
}
