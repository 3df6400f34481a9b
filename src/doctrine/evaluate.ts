// Evaluating facts against the doctrine's rules. Scope first: a rule whose `when` is false
// does not apply, whatever else is missing. Then a rule that cannot be decided because facts
// it needs were not given is "undetermined", never a pass and never "not applicable": an
// incomplete description must not read as a clean bill of health. Plain data only; what
// the signed output looks like is the tools layer's business.
import { LogicEngine } from 'json-logic-engine';
import { SignetError } from '../errors.js';
import { ajvDetails } from '../schema/errors.js';
import { scanLogic } from './json-logic.js';
import { SEVERITIES, type Doctrine, type Rule, type Severity } from './types.js';

export type FindingStatus = 'pass' | 'fail' | 'not_applicable' | 'undetermined';

export interface Finding {
  rule_id: string;
  title: string;
  severity: Severity;
  status: FindingStatus;
  /** not_applicable and undetermined: why. */
  reason?: string;
  /** undetermined: the facts that would decide the rule. */
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

export type Verdict = 'fail' | 'incomplete' | 'pass';

export interface Summary {
  /** fail: a rule failed. incomplete: none failed, but some could not be decided. pass: every rule in scope passed. */
  verdict: Verdict;
  /** Every rule in scope was decided (no undetermined rule). */
  complete: boolean;
  rules: number;
  pass: number;
  fail: number;
  not_applicable: number;
  undetermined: number;
  failed_by_severity: Record<Severity, number>;
  /** The most severe failed rule's severity, or null when nothing failed. */
  highest_failed_severity: Severity | null;
  /** Rule ids that failed, most severe first, then by id. */
  failed_rule_ids: string[];
  /** Rule ids that could not be decided, most severe first, then by id. */
  undetermined_rule_ids: string[];
  /** The facts that would decide them, sorted. */
  facts_needed: string[];
}

export interface Evaluation {
  findings: Finding[];
  summary: Summary;
}

/** What a rule came to for some facts: a pure function of the rule and the facts. */
export interface Outcome {
  status: FindingStatus;
  reason?: string;
  missing_facts?: string[];
}

// JSON Logic via json-logic-engine's interpreter: the same results as json-logic-js on every
// operator a doctrine may use (tested against it on random facts), with no code generation
// (its `build` compiler uses eval; `run` does not).
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

/** The value of an expression whose facts were not all given, when it cannot be known. */
const UNKNOWN = Symbol('unknown');
type Value = unknown;

const varsOf = new WeakMap<object, string[]>();
function varsIn(node: object): string[] {
  let vars = varsOf.get(node);
  if (!vars) varsOf.set(node, (vars = scanLogic(node).vars));
  return vars;
}

/**
 * JSON Logic with three values: a missing fact is unknown, and so is anything that depends
 * on it, except where the logic decides without it (false in an `and`, true in an `or`).
 * Where every fact an operation reads is given, the engine evaluates it as usual.
 */
function partial(node: unknown, facts: Record<string, unknown>): Value | typeof UNKNOWN {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return varsIn(node).every((v) => hasFact(facts, v)) ? logic.run(node, facts) : UNKNOWN;
  const [op, raw] = Object.entries(node)[0] as [string, unknown];
  const args = Array.isArray(raw) ? raw : [raw];
  switch (op) {
    case 'and': {
      let unknown = false;
      let last: Value = true;
      for (const a of args) {
        const v = partial(a, facts);
        if (v === UNKNOWN) unknown = true;
        else if (!truthy(v)) return v;
        else last = v;
      }
      return unknown ? UNKNOWN : last;
    }
    case 'or': {
      let unknown = false;
      let last: Value = false;
      for (const a of args) {
        const v = partial(a, facts);
        if (v === UNKNOWN) unknown = true;
        else if (truthy(v)) return v;
        else last = v;
      }
      return unknown ? UNKNOWN : last;
    }
    case '!':
    case '!!': {
      const v = partial(args[0], facts);
      return v === UNKNOWN ? UNKNOWN : op === '!' ? !truthy(v) : truthy(v);
    }
    default:
      return varsIn(node).every((v) => hasFact(facts, v)) ? logic.run(node, facts) : UNKNOWN;
  }
}

function missingFacts(rule: Rule, facts: Record<string, unknown>): string[] {
  return rule.facts.filter((path) => !hasFact(facts, path));
}

const OUT_OF_SCOPE: Outcome = { status: 'not_applicable', reason: 'the rule does not apply: its condition does not hold for these facts' };
const PASS: Outcome = { status: 'pass' };
const FAIL: Outcome = { status: 'fail' };

/** One rule: scope from `when` first, then the check; undecidable parts say which facts they need. */
export function evaluateRule(rule: Rule, facts: Record<string, unknown>): Outcome {
  if (rule.when !== undefined) {
    const scope = partial(rule.when, facts);
    if (scope === UNKNOWN) {
      return { status: 'undetermined', reason: 'cannot tell whether the rule applies: facts are missing', missing_facts: missingFacts(rule, facts) };
    }
    if (!truthy(scope)) return OUT_OF_SCOPE;
  }
  const verdict = partial(rule.check, facts);
  if (verdict === UNKNOWN) {
    return { status: 'undetermined', reason: 'the rule applies, but facts it checks are missing', missing_facts: missingFacts(rule, facts) };
  }
  return truthy(verdict) ? PASS : FAIL;
}

/** The finding for a rule's outcome: `explained` adds what the rule is about and what to do. */
export function toFinding(rule: Rule, outcome: Outcome, explained: boolean): Finding {
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

export function checkFacts(doctrine: Doctrine, facts: unknown): asserts facts is Record<string, unknown> {
  if (doctrine.validateFacts(facts)) return;
  const errors = (doctrine.validateFacts.errors ?? []).slice(0, 20);
  throw new SignetError(
    'invalid_arguments',
    `facts do not match the doctrine's facts schema (${errors.length} problem${errors.length === 1 ? '' : 's'} shown)`,
    ajvDetails('facts', errors, { unknown: 'fact' }),
  );
}

const rank = (s: Severity) => SEVERITIES.indexOf(s);
const bySeverityThenId = (a: Rule, b: Rule) => rank(a.severity) - rank(b.severity) || (a.id < b.id ? -1 : 1);

export function summarize(rules: readonly Rule[], outcomes: readonly Outcome[]): Summary {
  const failed_by_severity = { critical: 0, high: 0, medium: 0, low: 0 } as Record<Severity, number>;
  const failed: Rule[] = [];
  const undetermined: Rule[] = [];
  const needed = new Set<string>();
  let pass = 0;
  outcomes.forEach((o, i) => {
    const rule = rules[i]!;
    if (o.status === 'pass') pass++;
    else if (o.status === 'fail') {
      failed.push(rule);
      failed_by_severity[rule.severity]++;
    } else if (o.status === 'undetermined') {
      undetermined.push(rule);
      for (const f of o.missing_facts ?? []) needed.add(f);
    }
  });
  return {
    verdict: failed.length > 0 ? 'fail' : undetermined.length > 0 ? 'incomplete' : 'pass',
    complete: undetermined.length === 0,
    rules: outcomes.length,
    pass,
    fail: failed.length,
    not_applicable: outcomes.length - pass - failed.length - undetermined.length,
    undetermined: undetermined.length,
    failed_by_severity,
    highest_failed_severity: SEVERITIES.find((s) => failed_by_severity[s] > 0) ?? null,
    failed_rule_ids: failed.sort(bySeverityThenId).map((r) => r.id),
    undetermined_rule_ids: undetermined.sort(bySeverityThenId).map((r) => r.id),
    facts_needed: [...needed].sort(),
  };
}

export interface Options {
  /** The caller already checked the facts against the schema. */
  validated?: boolean;
  detail?: Detail;
}

/** Every rule's outcome, in rule id order, after checking the facts against the schema. */
export function evaluateOutcomes(doctrine: Doctrine, facts: unknown, options: Options = {}): Outcome[] {
  if (!options.validated) checkFacts(doctrine, facts);
  return doctrine.rules.map((rule) => evaluateRule(rule, facts as Record<string, unknown>));
}

/** Validates facts against the doctrine's schema, then evaluates every rule, in rule id order. */
export function evaluateFacts(doctrine: Doctrine, facts: unknown, options: Options = {}): Evaluation {
  const outcomes = evaluateOutcomes(doctrine, facts, options);
  const full = options.detail === 'full';
  return {
    findings: doctrine.rules.map((rule, i) => toFinding(rule, outcomes[i]!, full || outcomes[i]!.status === 'fail')),
    summary: summarize(doctrine.rules, outcomes),
  };
}
