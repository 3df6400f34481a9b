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

type Outcome = Pick<Finding, 'status' | 'reason' | 'missing_facts'>;

function toFinding(rule: Rule, outcome: Outcome, explained: boolean): Finding {
  const finding: Finding = { rule_id: rule.id, title: rule.title, severity: rule.severity, status: outcome.status };
  if (outcome.reason !== undefined) finding.reason = outcome.reason;
  if (outcome.missing_facts !== undefined) finding.missing_facts = outcome.missing_facts;
  if (explained) {
    finding.category = rule.category;
    finding.rationale = rule.rationale;
    finding.remediation = rule.remediation;
    finding.references = rule.references;
  }
  return finding;
}

/** JCS of toFinding(rule, outcome, explained): fixed members from the rule's fragments. */
function canonicalFinding(rule: Rule, outcome: Outcome, explained: boolean): string {
  // Only missing_facts varies between calls with the same status; everything else repeats.
  const memo = outcome.missing_facts === undefined ? `${outcome.status}|${outcome.reason ?? ''}|${explained}` : null;
  let byOutcome = wholeFindings.get(rule);
  if (memo !== null) {
    const hit = byOutcome?.get(memo);
    if (hit !== undefined) return hit;
  }
  const finding = toFinding(rule, outcome, explained);
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

const rank = (s: Severity) => SEVERITIES.indexOf(s);

function summarize(rules: readonly Rule[], statuses: readonly FindingStatus[]): Evaluation['summary'] {
  const failed_by_severity = { critical: 0, high: 0, medium: 0, low: 0 } as Record<Severity, number>;
  const failed: Rule[] = [];
  let pass = 0;
  statuses.forEach((status, i) => {
    if (status === 'pass') pass++;
    else if (status === 'fail') {
      failed.push(rules[i]!);
      failed_by_severity[rules[i]!.severity]++;
    }
  });
  return {
    rules: statuses.length,
    pass,
    fail: failed.length,
    not_applicable: statuses.length - pass - failed.length,
    failed_by_severity,
    highest_failed_severity: SEVERITIES.find((s) => failed_by_severity[s] > 0) ?? null,
    failed_rule_ids: failed.sort((a, b) => rank(a.severity) - rank(b.severity) || (a.id < b.id ? -1 : 1)).map((r) => r.id),
  };
}

/** Validates facts against the doctrine's schema, then evaluates every rule, in rule id order. */
export function evaluateFacts(doctrine: Doctrine, facts: unknown, options: Options = {}): Evaluation {
  if (!options.validated) checkFacts(doctrine, facts);
  const full = options.detail === 'full';
  const findings = doctrine.rules.map((rule) => {
    const outcome = evaluateRule(rule, facts as Record<string, unknown>);
    return toFinding(rule, outcome, full || outcome.status === 'fail');
  });
  return { findings, summary: summarize(doctrine.rules, findings.map((f) => f.status)) };
}

/**
 * evaluateFacts as canonical JSON, built from per-rule fragments without building the
 * finding objects: what doctrine_evaluate signs. The value is computed only if asked for.
 * Tests check the JSON equals canonicalize(evaluateFacts(...)) byte for byte.
 */
export function evaluateFactsCanonical(doctrine: Doctrine, facts: unknown, options: Options = {}): PreCanonical {
  if (!options.validated) checkFacts(doctrine, facts);
  const full = options.detail === 'full';
  const rules = doctrine.rules;
  const statuses: FindingStatus[] = new Array(rules.length);
  let parts = '';
  for (let i = 0; i < rules.length; i++) {
    const outcome = evaluateRule(rules[i]!, facts as Record<string, unknown>);
    statuses[i] = outcome.status;
    parts += (i > 0 ? ',' : '') + canonicalFinding(rules[i]!, outcome, full || outcome.status === 'fail');
  }
  const json = `{"findings":[${parts}],"summary":${canonicalJson(summarize(rules, statuses))}}`;
  return new PreCanonical(json, () => evaluateFacts(doctrine, facts, { ...options, validated: true }));
}
