// Is a tool's inputSchema strict and bounded (doctrine TOOL-003)? The top level rejects unknown
// members (additionalProperties: false); every string is bounded (maxLength, or enum/const);
// every array has maxItems; every nested object is closed or bounded (maxProperties); nothing
// accepts any value unchecked. References are followed inside the schema only: a remote $ref
// cannot be judged from here and counts as unbounded.
import { isRecord } from './mcp.js';

const MAX_DEPTH = 32;

/** The problems of one schema, each with its JSON pointer; empty when strict and bounded. */
export function schemaProblems(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(schema)) return ['the inputSchema is not an object'];
  if (schema['additionalProperties'] !== false && schema['unevaluatedProperties'] !== false) {
    problems.push('/: accepts members it does not declare (no additionalProperties: false)');
  }
  walk(schema, schema, '', 0, problems, new Set());
  return [...new Set(problems)];
}

function resolve(root: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node)) return undefined;
    node = node[part];
  }
  return node;
}

function typesOf(s: Record<string, unknown>): string[] {
  const t = s['type'];
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

function walk(root: Record<string, unknown>, s: unknown, at: string, depth: number, problems: string[], seen: Set<unknown>): void {
  const where = at === '' ? '/' : at;
  if (depth > MAX_DEPTH) return void problems.push(`${where}: nested deeper than ${MAX_DEPTH} levels`);
  if (s === false) return;
  if (!isRecord(s)) return void problems.push(`${where}: accepts any value`);
  if (seen.has(s)) return;
  seen.add(s);
  if (typeof s['$ref'] === 'string') {
    const target = resolve(root, s['$ref']);
    if (target === undefined) return void problems.push(`${where}: $ref ${s['$ref']} is not inside the schema`);
    walk(root, target, at, depth + 1, problems, seen);
  }
  const branches = ['anyOf', 'oneOf', 'allOf'].flatMap((k) =>
    Array.isArray(s[k]) ? (s[k] as unknown[]).map((b, i) => ({ b, p: `${at}/${k}/${i}` })) : [],
  );
  for (const { b, p } of branches) walk(root, b, p, depth + 1, problems, seen);
  if ('enum' in s || 'const' in s) return;
  const types = typesOf(s);
  if (types.length === 0 && branches.length === 0 && typeof s['$ref'] !== 'string') {
    if (!('properties' in s) && !('items' in s)) return void problems.push(`${where}: no type: accepts any value`);
  }
  if (types.includes('string') && typeof s['maxLength'] !== 'number') problems.push(`${where}: a string without maxLength`);
  if (types.includes('array') || 'items' in s) {
    if (typeof s['maxItems'] !== 'number' && !Array.isArray(s['prefixItems']) && !finiteSet(s))
      problems.push(`${where}: an array without maxItems`);
    if ('items' in s) walk(root, s['items'], `${at}/items`, depth + 1, problems, seen);
  }
  if (types.includes('object') || 'properties' in s) {
    const closed = s['additionalProperties'] === false || s['unevaluatedProperties'] === false;
    if (!closed && at !== '') {
      if (typeof s['maxProperties'] !== 'number') problems.push(`${where}: an object open to any members without maxProperties`);
      if (isRecord(s['additionalProperties']))
        walk(root, s['additionalProperties'], `${at}/additionalProperties`, depth + 1, problems, seen);
    }
    const props = s['properties'];
    if (isRecord(props)) {
      for (const [k, v] of Object.entries(props))
        walk(root, v, `${at}/properties/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1, problems, seen);
    }
  }
}

/** uniqueItems over a finite set of values (an enum, a const, booleans) bounds an array as maxItems would. */
function finiteSet(s: Record<string, unknown>): boolean {
  const items = s['items'];
  if (s['uniqueItems'] !== true || !isRecord(items)) return false;
  return Array.isArray(items['enum']) || 'const' in items || items['type'] === 'boolean';
}

/** Whether any property of a schema is marked for an Mcp-Param-* header (2026-07-28 `x-mcp-header`). */
export function headerParams(schema: unknown): string[] {
  const found: string[] = [];
  const visit = (s: unknown, at: string, depth: number) => {
    if (!isRecord(s) || depth > MAX_DEPTH) return;
    if ('x-mcp-header' in s) found.push(at === '' ? '/' : at);
    for (const [k, v] of Object.entries(s)) {
      if (isRecord(v)) visit(v, `${at}/${k}`, depth + 1);
      else if (Array.isArray(v)) {
        for (const [i, x] of v.entries()) visit(x, `${at}/${k}/${i}`, depth + 1);
      }
    }
  };
  visit(schema, '', 0);
  return found;
}
