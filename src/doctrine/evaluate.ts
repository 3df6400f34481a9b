import { LogicEngine } from 'json-logic-engine';
import { SignetError } from '../errors.js';
import { canonicalJson, PreCanonical } from '../signing/canonical.js';
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

// JSON Logic via json-logic-engine's interpreter: the same results as json-logic-js on every
// operator a doctrine may use (tested against it on random facts), about 4x faster, with no
// code generation (its `build` compiler uses eval; `run` does not).
const logic = new LogicEngine();
/** JSON Logic truthiness, as the spec defines it ([] is false, unlike JavaScript). */
function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
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

const NO_CONDITION = { status: 'not_applicable', reason: 'condition for this rule does not hold' } as const;
const PASS = { status: 'pass' } as const;
const FAIL = { status: 'fail' } as const;

function evaluateRule(rule: Rule, facts: Record<string, unknown>): Pick<Finding, 'status' | 'reason' | 'missing_facts'> {
  let missing: string[] | null = null;
  for (const path of rule.facts) if (!hasFact(facts, path)) (missing ??= []).push(path);
  if (missing !== null) return { status: 'not_applicable', reason: 'missing facts', missing_facts: missing };
  if (rule.when !== undefined && !truthy(logic.run(rule.when, facts))) return NO_CONDITION;
  return truthy(logic.run(rule.check, facts)) ? PASS : FAIL;
}

/** Every member a finding can have, in canonical (UTF-16) order: findings are built in this order. */
const FINDING_KEYS = [
  'rule_id', 'title', 'severity', 'status', 'reason', 'missing_facts', 'category', 'rationale', 'remediation', 'references',
].sort() as (keyof Finding)[];

const STATUS_MEMBER: Record<FindingStatus, string> = {
  pass: '"status":"pass"',
  fail: '"status":"fail"',
  not_applicable: '"status":"not_applicable"',
};

/**
 * A rule's fixed members as canonical `"key":value` text, computed once per rule: a
 * finding repeats its rule's title and explanation, so canonicalising them on every call
 * is wasted work.
 */
const fragments = new WeakMap<Rule, Partial<Record<keyof Finding, string>>>();

function fragmentsOf(rule: Rule): Partial<Record<keyof Finding, string>> {
  let f = fragments.get(rule);
  if (!f) {
    f = {};
    for (const key of ['rule_id', 'title', 'severity', 'category', 'rationale', 'remediation', 'references'] as const) {
      f[key] = `${JSON.stringify(key)}:${canonicalJson(rule[key === 'rule_id' ? 'id' : key])}`;
    }
    fragments.set(rule, f);
  }
  return f;
}

/** Whole canonical findings per rule, by outcome, for the outcomes that carry no per-call data. */
const wholeFindings = new WeakMap<Rule, Map<string, string>>();

/** JCS of one finding: fixed members from the rule's fragments, the rest canonicalised here. */
function canonicalFinding(rule: Rule, finding: Finding): string {
  // Only missing_facts varies between calls with the same status; everything else repeats.
  const memo = finding.missing_facts === undefined ? `${finding.status}|${finding.reason ?? ''}|${finding.category !== undefined}` : null;
  let byOutcome = wholeFindings.get(rule);
  if (memo !== null) {
    const hit = byOutcome?.get(memo);
    if (hit !== undefined) return hit;
  }
  const frag = fragmentsOf(rule);
  let out = '';
  for (const key of FINDING_KEYS) {
    const value = finding[key];
    if (value === undefined) continue;
    out += (out === '' ? '{' : ',') + (frag[key] ?? (key === 'status' ? STATUS_MEMBER[finding.status] : `${JSON.stringify(key)}:${canonicalJson(value)}`));
  }
  out += '}';
  if (memo !== null) {
    if (!byOutcome) wholeFindings.set(rule, (byOutcome = new Map()));
    byOutcome.set(memo, out);
  }
  return out;
}

function checkFacts(doctrine: Doctrine, facts: unknown): asserts facts is Record<string, unknown> {
  if (doctrine.validateFacts(facts)) return;
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

interface Options {
  /** The caller already checked the facts against the schema. */
  validated?: boolean;
  detail?: Detail;
}

function evaluate(doctrine: Doctrine, facts: unknown, options: Options, canonical: boolean): { evaluation: Evaluation; json: string | null } {
  if (!options.validated) checkFacts(doctrine, facts);
  const f = facts as Record<string, unknown>;
  const full = options.detail === 'full';
  const parts: string[] = [];
  const findings: Finding[] = doctrine.rules.map((rule) => {
    const outcome = evaluateRule(rule, f);
    const finding: Finding = { rule_id: rule.id, title: rule.title, severity: rule.severity, status: outcome.status };
    if (outcome.reason !== undefined) finding.reason = outcome.reason;
    if (outcome.missing_facts !== undefined) finding.missing_facts = outcome.missing_facts;
    const explained = full || outcome.status === 'fail';
    if (explained) {
      finding.category = rule.category;
      finding.rationale = rule.rationale;
      finding.remediation = rule.remediation;
      finding.references = rule.references;
    }
    if (canonical) parts.push(canonicalFinding(rule, finding));
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
  const evaluation: Evaluation = {
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
  const json = canonical ? `{"findings":[${parts.join(',')}],"summary":${canonicalJson(evaluation.summary)}}` : null;
  return { evaluation, json };
}

/** Validates facts against the doctrine's schema, then evaluates every rule, in rule id order. */
export function evaluateFacts(doctrine: Doctrine, facts: unknown, options: Options = {}): Evaluation {
  return evaluate(doctrine, facts, options, false).evaluation;
}

/**
 * evaluateFacts, with the result's canonical JSON built from per-rule fragments: what
 * doctrine_evaluate signs. Tests check it equals canonicalJson(evaluation) byte for byte.
 */
export function evaluateFactsCanonical(doctrine: Doctrine, facts: unknown, options: Options = {}): PreCanonical {
  const { evaluation, json } = evaluate(doctrine, facts, options, true);
  return new PreCanonical(evaluation, json!);
}
