// Nested facts read and written by dotted leaf path. A leaf is any value but a plain object
// (the facts schema's groups are objects; its facts are scalars and arrays).
import { isObject } from '../shared/json.js';

export type Facts = Record<string, unknown>;

/** Every leaf of nested facts as [dotted path, value], in key order of the input. */
export function leaves(facts: Facts, prefix = ''): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(facts)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObject(value)) out.push(...leaves(value, path));
    else out.push([path, value]);
  }
  return out;
}

/** Sets the leaf at `path`, creating its groups. */
export function setLeaf(facts: Facts, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = facts;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    node = isObject(next) ? next : (node[part] = {});
  }
  node[parts.at(-1)!] = value;
}

/** A deep copy of plain JSON facts. */
export function copyFacts(facts: Facts): Facts {
  return structuredClone(facts);
}

/** Two leaf values are the same fact: equal scalars, or arrays with the same items (the schema's arrays are sets). */
export function sameValue(a: unknown, b: unknown): boolean {
  const key = (v: unknown) => (Array.isArray(v) ? JSON.stringify(v.map((i) => JSON.stringify(i)).sort()) : JSON.stringify(v));
  return key(a) === key(b);
}
