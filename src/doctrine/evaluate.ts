import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { SignetError } from '../errors.js';
import { SEVERITIES, type Doctrine, type Rule, type Severity } from './types.js';

export type FindingStatus = 'pass' | 'fail' | 'not_applicable';

export interface Finding {
  rule_id: string;
  title: string;
  category: string;
  severity: Severity;
  status: FindingStatus;
  /** For not_applicable: why (missing facts, or the rule's `when` did not hold). */
  reason: string | null;
  missing_facts: string[];
  /** Present on failed findings, or on every finding with detail "full". */
  rationale?: string;
  remediation?: string;
  references: string[];
}

/** "failures": rationale and remediation only where a rule failed (compact); "full": on every finding. */
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
    return { status: 'not_applicable', reason: 'condition for this rule does not hold', missing_facts: [] };
  }
  const passed = jsonLogic.truthy(jsonLogic.apply(rule.check as RulesLogic, facts));
  return { status: passed ? 'pass' : 'fail', reason: null, missing_facts: [] };
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
    const finding: Finding = { rule_id: rule.id, title: rule.title, category: rule.category, severity: rule.severity, ...outcome, references: rule.references };
    if (full || outcome.status === 'fail') {
      finding.rationale = rule.rationale;
      finding.remediation = rule.remediation;
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
