import { SignetError } from '../errors.js';
import { scanLogic } from './json-logic.js';
import { compile, decide, evaluatePartial, type Node } from './partial-logic.js';
import { type Doctrine, type Rule, SEVERITIES, type Severity } from './types.js';

/**
 * pass / fail: the rule applies and its check holds or not. not_applicable: its `when`
 * is false for these facts. undetermined: the facts given cannot decide whether it applies
 * or whether it holds; `missing_facts` names the facts that would.
 */
export type FindingStatus = 'pass' | 'fail' | 'not_applicable' | 'undetermined';
export type Verdict = 'fail' | 'incomplete' | 'pass';

export interface Finding {
  rule_id: string;
  title: string;
  severity: Severity;
  status: FindingStatus;
  /** not_applicable and undetermined: why. */
  reason?: string;
  /** undetermined: the missing facts that would decide the rule, sorted. */
  missing_facts?: readonly string[];
  /** Failed findings (every finding with detail "full"): what to do about it. */
  category?: string;
  rationale?: string;
  remediation?: string;
  references?: readonly string[];
}

/**
 * "failures" (default): the explanation (category, rationale, remediation, references)
 * only where a rule failed, which keeps the signed output small; "full": on every finding.
 */
export type Detail = 'failures' | 'full';

export interface Summary {
  rules: number;
  pass: number;
  fail: number;
  not_applicable: number;
  undetermined: number;
  /** true when every rule was decided: nothing is undetermined. */
  complete: boolean;
  /** fail if any rule failed; otherwise incomplete if any is undetermined; otherwise pass. */
  verdict: Verdict;
  failed_by_severity: Record<Severity, number>;
  /** The most severe failed rule's severity, or null when nothing failed. */
  highest_failed_severity: Severity | null;
  /** Rule ids that failed, most severe first, then by id. */
  failed_rule_ids: string[];
  undetermined_by_severity: Record<Severity, number>;
  /** Rule ids left undetermined, most severe first, then by id. */
  undetermined_rule_ids: string[];
  /** Every fact that would decide an undetermined rule, sorted: what to find out next. */
  missing_facts: string[];
}

/** Plain data. Findings are frozen and shared between evaluations with the same outcome. */
export interface Evaluation {
  findings: readonly Finding[];
  summary: Summary;
}

export const REASONS = {
  notApplicable: 'condition for this rule does not hold',
  scopeUndetermined: 'its condition needs facts that were not given',
  checkUndetermined: 'it applies, but its check needs facts that were not given',
} as const;

interface CompiledRule {
  rule: Rule;
  whenVars: readonly string[];
  checkVars: readonly string[];
  when: Node | null;
  check: Node;
  /** Decided findings by status and detail: [pass, fail, not_applicable] × [short, explained]. */
  decided: (Finding | undefined)[];
  /** Undetermined findings by reason, detail and missing facts. */
  undetermined: Map<string, Finding>;
  /** Every fact the rule reads; when none is given, the outcome depends on the rule alone. */
  vars: readonly string[];
  /** That outcome, by detail: [short, full]. */
  nothingGiven: (Finding | undefined)[];
}

const compiled = new WeakMap<Doctrine, CompiledRule[]>();

function compileRules(doctrine: Doctrine): CompiledRule[] {
  let rules = compiled.get(doctrine);
  if (!rules) {
    rules = doctrine.rules.map((rule) => ({
      rule,
      whenVars: rule.when === undefined ? [] : scanLogic(rule.when).vars,
      checkVars: scanLogic(rule.check).vars,
      when: rule.when === undefined ? null : compile(rule.when),
      check: compile(rule.check),
      decided: [],
      undetermined: new Map(),
      vars: rule.facts,
      nothingGiven: [],
    }));
    compiled.set(doctrine, rules);
  }
  return rules;
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

function missingOf(vars: readonly string[], facts: Record<string, unknown>): string[] | null {
  let missing: string[] | null = null;
  for (const path of vars) if (!hasFact(facts, path)) (missing ??= []).push(path);
  return missing;
}

function finding(rule: Rule, status: FindingStatus, explained: boolean, reason?: string, missing?: readonly string[]): Finding {
  const f: Finding = { rule_id: rule.id, title: rule.title, severity: rule.severity, status };
  if (reason !== undefined) f.reason = reason;
  if (missing !== undefined) f.missing_facts = Object.freeze([...missing]);
  if (explained) {
    f.category = rule.category;
    f.rationale = rule.rationale;
    f.remediation = rule.remediation;
    f.references = rule.references;
  }
  return Object.freeze(f);
}

const DECIDED: readonly FindingStatus[] = ['pass', 'fail', 'not_applicable'];

function decided(c: CompiledRule, index: 0 | 1 | 2, full: boolean): Finding {
  const explained = full || index === 1;
  const slot = index * 2 + (explained ? 1 : 0);
  return (c.decided[slot] ??= finding(c.rule, DECIDED[index]!, explained, index === 2 ? REASONS.notApplicable : undefined));
}

function undetermined(c: CompiledRule, scope: boolean, missing: readonly string[], full: boolean): Finding {
  const sorted = [...new Set(missing)].sort();
  const key = `${scope ? 's' : 'c'}${full ? '+' : '-'}${sorted.join(',')}`;
  let f = c.undetermined.get(key);
  if (!f) {
    const reason = scope ? REASONS.scopeUndetermined : REASONS.checkUndetermined;
    c.undetermined.set(key, (f = finding(c.rule, 'undetermined', full, reason, sorted)));
  }
  return f;
}

/** Scope from `when` first, then the check; missing facts make either undecided, never false. */
function evaluateRule(c: CompiledRule, facts: Record<string, unknown>, full: boolean): Finding {
  if (c.vars.length > 0 && c.vars.every((v) => !hasFact(facts, v))) return (c.nothingGiven[full ? 1 : 0] ??= outcome(c, facts, full));
  return outcome(c, facts, full);
}

function outcome(c: CompiledRule, facts: Record<string, unknown>, full: boolean): Finding {
  if (c.when) {
    const whenMissing = missingOf(c.whenVars, facts);
    const applies = whenMissing === null ? decide(c.rule.when, facts) : evaluatePartial(c.when, facts, new Set(whenMissing));
    if (applies === false) return decided(c, 2, full);
    if (applies !== true) return undetermined(c, true, [...applies, ...(missingOf(c.checkVars, facts) ?? [])], full);
  }
  const checkMissing = missingOf(c.checkVars, facts);
  const holds = checkMissing === null ? decide(c.rule.check, facts) : evaluatePartial(c.check, facts, new Set(checkMissing));
  if (holds === true) return decided(c, 0, full);
  if (holds === false) return decided(c, 1, full);
  return undetermined(c, false, holds, full);
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

const zero = (): Record<Severity, number> => ({ critical: 0, high: 0, medium: 0, low: 0 });
const buckets = (): Record<Severity, string[]> => ({ critical: [], high: [], medium: [], low: [] });
/** Most severe first, then by id: findings come in id order, so one bucket per severity keeps it. */
const bySeverity = (b: Record<Severity, string[]>) => SEVERITIES.flatMap((s) => b[s]);

function summarize(findings: readonly Finding[]): Summary {
  const failed = buckets();
  const open = buckets();
  const missing = new Set<string>();
  let pass = 0;
  let fail = 0;
  let undetermined = 0;
  for (const f of findings) {
    if (f.status === 'pass') pass++;
    else if (f.status === 'fail') {
      fail++;
      failed[f.severity].push(f.rule_id);
    } else if (f.status === 'undetermined') {
      undetermined++;
      open[f.severity].push(f.rule_id);
      for (const m of f.missing_facts!) missing.add(m);
    }
  }
  const failed_by_severity = zero();
  const undetermined_by_severity = zero();
  for (const s of SEVERITIES) {
    failed_by_severity[s] = failed[s].length;
    undetermined_by_severity[s] = open[s].length;
  }
  return {
    rules: findings.length,
    pass,
    fail,
    not_applicable: findings.length - pass - fail - undetermined,
    undetermined,
    complete: undetermined === 0,
    verdict: fail > 0 ? 'fail' : undetermined > 0 ? 'incomplete' : 'pass',
    failed_by_severity,
    highest_failed_severity: SEVERITIES.find((s) => failed_by_severity[s] > 0) ?? null,
    failed_rule_ids: bySeverity(failed),
    undetermined_by_severity,
    undetermined_rule_ids: bySeverity(open),
    missing_facts: [...missing].sort(),
  };
}

/** Validates facts against the doctrine's schema, then evaluates every rule, in rule id order. */
export function evaluateFacts(doctrine: Doctrine, facts: unknown, options: Options = {}): Evaluation {
  if (!options.validated) checkFacts(doctrine, facts);
  const full = options.detail === 'full';
  const findings = compileRules(doctrine).map((c) => evaluateRule(c, facts as Record<string, unknown>, full));
  return { findings, summary: summarize(findings) };
}
