import { SignetError } from '../errors.js';
import { checkConsistency } from './consistency.js';
import { decideOver, type Facts, hasFact, missingOf, perDoctrine } from './facts.js';
import { scanLogic } from './json-logic.js';
import { compile, type Node } from './partial-logic.js';
import { type ScopeSummary, scopeOf } from './scope.js';
import { type Doctrine, type Rule, SEVERITIES, type Severity } from './types.js';

export type { ScopeSummary } from './scope.js';

/**
 * pass / fail: the rule applies and its check holds or not. not_applicable: its `when`
 * is false for these facts. undetermined: the facts given cannot decide whether it applies
 * or whether it holds; `missing_facts` names the facts that would.
 */
export type FindingStatus = 'pass' | 'fail' | 'not_applicable' | 'undetermined';
/**
 * fail: a baseline rule failed. incomplete: none failed, but a baseline rule (or whether an area
 * is in scope) is undetermined. limited_scope: everything checked passed, but the facts declare
 * out of scope an area this kind of deployment must cover. pass: none of these.
 */
export type Verdict = 'fail' | 'incomplete' | 'limited_scope' | 'pass';

export interface Finding {
  rule_id: string;
  title: string;
  severity: Severity;
  status: FindingStatus;
  /** Present (true) on an advisory rule's finding: it never changes the verdict. */
  advisory?: true;
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
 * only where a rule failed, which keeps the signed output small; "full": on every finding;
 * "summary": the tools layer returns the summary alone (the findings here are as for "failures").
 */
export type Detail = 'failures' | 'full' | 'summary';

/** How much of one area (a rule category) the facts let the evaluation check. */
export interface AreaCoverage {
  rules: number;
  /** Rules whose check ran: pass or fail. */
  checked: number;
  not_applicable: number;
  undetermined: number;
}

export interface Summary {
  /** Counts per status over every rule, advisories included; they add up to rules. */
  rules: number;
  pass: number;
  fail: number;
  not_applicable: number;
  undetermined: number;
  /** Rules whose check actually ran (pass + fail): how much of the baseline these facts checked. */
  checked: number;
  /** true when nothing that decides the verdict is undetermined (baseline rules and the scope). */
  complete: boolean;
  verdict: Verdict;
  /** Baseline rules only (advisories are in `advisories`): the failures that decide the verdict. */
  failed_by_severity: Record<Severity, number>;
  /** The most severe failed baseline rule's severity, or null when none failed. */
  highest_failed_severity: Severity | null;
  /** Baseline rule ids that failed, most severe first, then by id. */
  failed_rule_ids: string[];
  undetermined_by_severity: Record<Severity, number>;
  /** Baseline rule ids left undetermined, most severe first, then by id. */
  undetermined_rule_ids: string[];
  /** Every fact that would decide an undetermined baseline rule or the scope, sorted: what to find out next. */
  missing_facts: string[];
  /** Advisory rules (extras and drafts): reported, never part of the verdict. */
  advisories: { rules: number; failed_rule_ids: string[]; undetermined_rule_ids: string[] };
  scope: ScopeSummary;
  /** Per area (rule category), how many rules were checked, not applicable or undetermined. */
  coverage: Record<string, AreaCoverage>;
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

const compileRules = perDoctrine((doctrine): CompiledRule[] =>
  doctrine.rules.map((rule) => ({
    rule,
    whenVars: rule.when === undefined ? [] : scanLogic(rule.when).vars,
    checkVars: scanLogic(rule.check).vars,
    when: rule.when === undefined ? null : compile(rule.when),
    check: compile(rule.check),
    decided: [],
    undetermined: new Map(),
    vars: rule.facts,
    nothingGiven: [],
  })),
);

function finding(rule: Rule, status: FindingStatus, explained: boolean, reason?: string, missing?: readonly string[]): Finding {
  const f: Finding = { rule_id: rule.id, title: rule.title, severity: rule.severity, status };
  if (rule.advisory) f.advisory = true;
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
function evaluateRule(c: CompiledRule, facts: Facts, full: boolean): Finding {
  if (c.vars.length > 0 && c.vars.every((v) => !hasFact(facts, v))) return (c.nothingGiven[full ? 1 : 0] ??= outcome(c, facts, full));
  return outcome(c, facts, full);
}

function outcome(c: CompiledRule, facts: Facts, full: boolean): Finding {
  if (c.when) {
    const applies = decideOver(c.rule.when, c.when, c.whenVars, facts);
    if (applies === false) return decided(c, 2, full);
    if (applies !== true) return undetermined(c, true, [...applies, ...(missingOf(c.checkVars, facts) ?? [])], full);
  }
  const holds = decideOver(c.rule.check, c.check, c.checkVars, facts);
  if (holds === true) return decided(c, 0, full);
  if (holds === false) return decided(c, 1, full);
  return undetermined(c, false, holds, full);
}

/**
 * A fact written with a dotted key (`"transport.kind"`, the form doctrine_get and the docs
 * print) where the schema wants nested objects: refused with the nested form to write
 * instead, so one deployment has one spelling (and one input hash).
 */
function dottedKeyMessage(doctrine: Doctrine, facts: unknown, instancePath: string, key: string): string | null {
  if (!key.includes('.')) return null;
  const parents = instancePath.split('/').filter((p) => p !== '');
  const path = [...parents, ...key.split('.')].join('.');
  if (!doctrine.factPaths.includes(path)) return null;
  let holder: unknown = facts;
  for (const p of parents) holder = (holder as Facts | undefined)?.[p];
  const value = JSON.stringify((holder as Facts | undefined)?.[key]) ?? 'null';
  const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  const nested = key.split('.').reduceRight((inner, part) => `{${JSON.stringify(part)}:${inner}}`, shown);
  return `unknown fact "${key}": facts are nested objects, not dotted keys; write ${nested}${parents.length > 0 ? ` inside ${parents.join('.')}` : ''}`;
}

/** Why facts do not match the doctrine's facts schema (at most 20 problems), or [] when they do. */
export function factsProblems(doctrine: Doctrine, facts: unknown, prefix = 'facts'): { where: string; message: string }[] {
  if (doctrine.validateFacts(facts)) return [];
  return (doctrine.validateFacts.errors ?? []).slice(0, 20).map((e) => {
    const key = String(e.params['additionalProperty']);
    return {
      where: `${prefix}${e.instancePath.replace(/\//g, '.')}`,
      // Unknown facts by name (dotted keys with their nested form), enums with their allowed values.
      message:
        e.keyword === 'additionalProperties'
          ? (dottedKeyMessage(doctrine, facts, e.instancePath, key) ?? `unknown fact "${key}"`)
          : e.keyword === 'enum'
            ? `must be one of ${JSON.stringify(e.params['allowedValues'])}`
            : (e.message ?? 'invalid'),
    };
  });
}

function checkFacts(doctrine: Doctrine, facts: unknown): asserts facts is Facts {
  const problems = factsProblems(doctrine, facts);
  if (problems.length === 0) return;
  throw new SignetError(
    'invalid_arguments',
    `facts do not match the doctrine's facts schema (${problems.length} problem${problems.length === 1 ? '' : 's'} shown)`,
    problems,
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

function summarize(doctrine: Doctrine, findings: readonly Finding[], facts: Facts): Summary {
  const failed = buckets();
  const open = buckets();
  const advisories = { rules: 0, failed_rule_ids: [] as string[], undetermined_rule_ids: [] as string[] };
  const coverage: Record<string, AreaCoverage> = {};
  const missing = new Set<string>();
  const counts = { pass: 0, fail: 0, not_applicable: 0, undetermined: 0 };
  const rules = compileRules(doctrine);
  for (let i = 0; i < findings.length; i++) {
    const f = findings[i]!;
    const category = rules[i]!.rule.category;
    const area = (coverage[category] ??= { rules: 0, checked: 0, not_applicable: 0, undetermined: 0 });
    area.rules++;
    counts[f.status]++;
    if (f.status === 'pass' || f.status === 'fail') area.checked++;
    else if (f.status === 'not_applicable') area.not_applicable++;
    else area.undetermined++;
    if (f.advisory) {
      advisories.rules++;
      if (f.status === 'fail') advisories.failed_rule_ids.push(f.rule_id);
      else if (f.status === 'undetermined') advisories.undetermined_rule_ids.push(f.rule_id);
    } else if (f.status === 'fail') failed[f.severity].push(f.rule_id);
    else if (f.status === 'undetermined') {
      open[f.severity].push(f.rule_id);
      for (const m of f.missing_facts!) missing.add(m);
    }
  }
  const scope = scopeOf(doctrine, facts, missing);
  const failed_by_severity = zero();
  const undetermined_by_severity = zero();
  for (const s of SEVERITIES) {
    failed_by_severity[s] = failed[s].length;
    undetermined_by_severity[s] = open[s].length;
  }
  const failedIds = bySeverity(failed);
  const openIds = bySeverity(open);
  const complete = openIds.length === 0 && scope.undetermined.length === 0;
  return {
    rules: findings.length,
    ...counts,
    checked: counts.pass + counts.fail,
    complete,
    verdict: failedIds.length > 0 ? 'fail' : !complete ? 'incomplete' : scope.minimum_unmet.length > 0 ? 'limited_scope' : 'pass',
    failed_by_severity,
    highest_failed_severity: SEVERITIES.find((s) => failed_by_severity[s] > 0) ?? null,
    failed_rule_ids: failedIds,
    undetermined_by_severity,
    undetermined_rule_ids: openIds,
    missing_facts: [...missing].sort(),
    advisories,
    scope,
    coverage,
  };
}

/** Validates facts against the doctrine's schema, then evaluates every rule, in rule id order. */
export function evaluateFacts(doctrine: Doctrine, facts: unknown, options: Options = {}): Evaluation {
  if (!options.validated) checkFacts(doctrine, facts);
  checkConsistency(doctrine, facts as Facts);
  const full = options.detail === 'full';
  const findings = compileRules(doctrine).map((c) => evaluateRule(c, facts as Facts, full));
  return { findings, summary: summarize(doctrine, findings, facts as Facts) };
}
