// Reading facts by dotted path, and deciding a condition over facts that may be incomplete.
// Shared by the rules, the scope areas and the consistency constraints, so all three treat a
// missing fact the same way: unknown, never null.
import { decide, evaluatePartial, type Node, type Partial } from './partial-logic.js';
import type { Doctrine } from './types.js';

export type Facts = Record<string, unknown>;

const splitPaths = new Map<string, string[]>();

/** The value at `path`, or undefined when the facts do not give it. */
export function factAt(facts: Facts, path: string): unknown {
  let parts = splitPaths.get(path);
  if (!parts) splitPaths.set(path, (parts = path.split('.')));
  let node: unknown = facts;
  for (const part of parts) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, part)) return undefined;
    node = (node as Facts)[part];
  }
  return node;
}

export const hasFact = (facts: Facts, path: string): boolean => factAt(facts, path) !== undefined;

/** The paths of `vars` the facts do not give, or null when they give them all. */
export function missingOf(vars: readonly string[], facts: Facts): string[] | null {
  let missing: string[] | null = null;
  for (const path of vars) if (!hasFact(facts, path)) (missing ??= []).push(path);
  return missing;
}

/**
 * A condition in three values: true, false, or the missing facts that leave it open. `logic`
 * and its compiled `node` read `vars`; with every one given, JSON Logic decides it directly.
 */
export function decideOver(logic: unknown, node: Node, vars: readonly string[], facts: Facts): Partial {
  const missing = missingOf(vars, facts);
  return missing === null ? decide(logic, facts) : evaluatePartial(node, facts, new Set(missing));
}

/** What a doctrine compiles once (rules, areas, constraints), kept as long as the doctrine. */
export function perDoctrine<T>(build: (doctrine: Doctrine) => T): (doctrine: Doctrine) => T {
  const cache = new WeakMap<Doctrine, T>();
  return (doctrine) => {
    let value = cache.get(doctrine);
    if (value === undefined) cache.set(doctrine, (value = build(doctrine)));
    return value;
  };
}
