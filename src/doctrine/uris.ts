// How doctrine entries are named outside the process: resource URIs and the public view of
// a rule (what doctrine_get answers and doctrine://rules/{id} reads; the same object).
import type { Rule } from './types.js';

export function documentUri(id: string): string {
  return `doctrine://documents/${id}`;
}

export function ruleUri(id: string): string {
  return `doctrine://rules/${id}`;
}

/** A rule without where it was loaded from, `when` always present (null when it has none). */
export function publicRule(rule: Rule): Omit<Rule, 'path'> & { when: unknown } {
  const { path: _path, ...rest } = rule;
  return { ...rest, when: rule.when ?? null };
}
