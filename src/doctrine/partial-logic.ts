// A rule condition over incomplete facts. JSON Logic reads a missing fact as null, which
// would decide a rule from facts nobody gave. Here a missing fact is unknown instead, and
// unknown propagates the way Kleene's three-valued logic says: `and` is false as soon as one
// operand is false, `or` true as soon as one is true, otherwise unknown. Everything that is
// not a connective is a leaf evaluated by json-logic-engine, and only when every fact it
// reads is present, so leaves keep exactly JSON Logic's semantics.
import { LogicEngine } from 'json-logic-engine';
import { scanLogic } from './json-logic.js';

// json-logic-engine's interpreter: the same results as json-logic-js on every operator a
// doctrine may use (tested against it on random facts), with no code generation.
const logic = new LogicEngine();

/** JSON Logic truthiness, as the spec defines it ([] is false, unlike JavaScript). */
export function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** Truthiness of a complete evaluation: every fact the expression reads is present. */
export function decide(expression: unknown, facts: Record<string, unknown>): boolean {
  return truthy(logic.run(expression, facts));
}

export type Node =
  | { kind: 'leaf'; expression: unknown; vars: readonly string[] }
  | { kind: 'and' | 'or'; children: readonly Node[] }
  | { kind: 'not'; negate: boolean; child: Node }
  | { kind: 'if'; children: readonly Node[] };

/** Connectives become nodes; every other subexpression is a leaf. */
export function compile(expression: unknown): Node {
  if (expression !== null && typeof expression === 'object' && !Array.isArray(expression)) {
    const keys = Object.keys(expression);
    if (keys.length === 1) {
      const op = keys[0]!;
      const args = (expression as Record<string, unknown>)[op];
      const list = Array.isArray(args) ? args : [args];
      if ((op === 'and' || op === 'or') && list.length > 0) return { kind: op, children: list.map(compile) };
      if ((op === '!' || op === '!!') && list.length === 1) return { kind: 'not', negate: op === '!', child: compile(list[0]) };
      if ((op === 'if' || op === '?:') && list.length > 0) return { kind: 'if', children: list.map(compile) };
    }
  }
  return { kind: 'leaf', expression, vars: scanLogic(expression).vars };
}

/** A decided truth value, or the facts whose absence leaves it undecided (never empty). */
export type Partial = boolean | readonly string[];

const union = (parts: readonly (readonly string[])[]): string[] => [...new Set(parts.flat())];

/**
 * Evaluates `node` with the facts in `missing` unknown. An undecided result names the
 * missing facts that, once given, decide it (for `if`: every branch's, since which branch
 * applies is not known yet).
 */
export function evaluatePartial(node: Node, facts: Record<string, unknown>, missing: ReadonlySet<string>): Partial {
  switch (node.kind) {
    case 'leaf': {
      const absent = node.vars.filter((v) => missing.has(v));
      return absent.length > 0 ? absent : decide(node.expression, facts);
    }
    case 'and':
    case 'or': {
      const decisive = node.kind === 'or';
      const unknown: (readonly string[])[] = [];
      for (const child of node.children) {
        const value = evaluatePartial(child, facts, missing);
        if (value === decisive) return decisive;
        if (value !== !decisive) unknown.push(value as readonly string[]);
      }
      return unknown.length > 0 ? union(unknown) : !decisive;
    }
    case 'not': {
      const value = evaluatePartial(node.child, facts, missing);
      return typeof value === 'boolean' ? value !== node.negate : value;
    }
    case 'if': {
      // [condition, then, condition, then, ..., else]: the first true condition picks its branch.
      const c = node.children;
      for (let i = 0; i + 1 < c.length; i += 2) {
        const condition = evaluatePartial(c[i]!, facts, missing);
        if (condition === true) return evaluatePartial(c[i + 1]!, facts, missing);
        if (condition !== false) return union([condition, ...c.slice(i + 1).map((n) => varsOf(n).filter((v) => missing.has(v)))]);
      }
      return c.length % 2 === 1 ? evaluatePartial(c[c.length - 1]!, facts, missing) : false;
    }
  }
}

function varsOf(node: Node): string[] {
  if (node.kind === 'leaf') return [...node.vars];
  return union(node.kind === 'not' ? [varsOf(node.child)] : node.children.map(varsOf));
}
