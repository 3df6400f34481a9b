// A declared-facts file (`signet check --facts FILE`): what a person states about a deployment
// that its files cannot show, each fact with the reason it is stated (docs/checking.md). The
// hand-written fact sets of deploy/facts/ are of this shape, so any of them can be declared.
import { parse as parseTree } from '@humanwhocodes/momoa';
import { factsProblems } from '../doctrine/evaluate.js';
import type { Doctrine } from '../doctrine/types.js';
import { type ErrorDetail, SignetError } from '../errors.js';
import { sha256Tag } from '../shared/hash.js';
import { isObject } from '../shared/json.js';
import { parseStrictJson } from '../signing/strict-json.js';
import { type Facts, leaves, sameValue, setLeaf } from './facts-tree.js';

export const DECLARED_FORMAT = 'signet-declared/1';
const MEMBERS = new Set(['format', 'description', 'sources', 'notes', 'facts', 'deployments']);
/** A declared file is written by a person: a megabyte is far more than any needs. */
export const MAX_DECLARED_BYTES = 1024 * 1024;

export interface Declared {
  /** The file's name as given (a subject of the attestation). */
  path: string;
  sha256: string;
  /** Facts stated for every deployment. */
  facts: Facts;
  /** Facts stated for one deployment, by its name (over `facts`). */
  deployments: Map<string, Facts>;
  /** Dotted path → why it is stated (from `notes`). */
  why: Map<string, string>;
  /** Dotted path of a fact the file leaves out on purpose → why (a note about a fact it does not state). */
  leftOut: Map<string, string>;
  /** Dotted path (or `deployments.NAME.` + path) → its line in the file. */
  lines: Map<string, number>;
}

/** The line of every member of a JSON text, by dotted path (member names joined with dots). */
function memberLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  type Node = ReturnType<typeof parseTree>['body'];
  const walk = (node: Node, path: string) => {
    if (node.type !== 'Object') return;
    for (const member of node.members) {
      const name = member.name.type === 'String' ? member.name.value : member.name.name;
      const at = path ? `${path}.${name}` : name;
      lines.set(at, member.name.loc.start.line);
      walk(member.value, at);
    }
  };
  walk(parseTree(text, { mode: 'json' }).body, '');
  return lines;
}

function fail(path: string, message: string, details: ErrorDetail[] = []): never {
  throw new SignetError('invalid_arguments', `${path}: ${message}`, details);
}

/** Reads and checks a declared-facts file; every problem is named by file and member. */
export function parseDeclared(doctrine: Doctrine, path: string, bytes: Uint8Array): Declared {
  if (bytes.length > MAX_DECLARED_BYTES) fail(path, `larger than ${MAX_DECLARED_BYTES} bytes: a declared-facts file states a few facts`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return fail(path, 'is not UTF-8 text');
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return fail(path, parsed.message);
  const value = parsed.value;
  if (!isObject(value)) return fail(path, `must be a JSON object (${DECLARED_FORMAT}, docs/checking.md)`);
  for (const k of Object.keys(value)) {
    if (!MEMBERS.has(k)) fail(path, `unknown member "${k.slice(0, 60)}" (allowed: ${[...MEMBERS].join(', ')})`);
  }
  if (value['format'] !== undefined && value['format'] !== DECLARED_FORMAT) fail(path, `format must be "${DECLARED_FORMAT}"`);
  if (value['description'] !== undefined && typeof value['description'] !== 'string') fail(path, 'description must be a string');
  const sources = value['sources'];
  if (sources !== undefined && !(Array.isArray(sources) && sources.every((s) => typeof s === 'string'))) {
    fail(path, 'sources must be an array of strings (the files a person read)');
  }
  if (value['facts'] === undefined && value['deployments'] === undefined)
    fail(path, 'declares nothing: give "facts", "deployments" or both');

  const problems: ErrorDetail[] = [];
  // A template's placeholder left in (`"<true | false>"`): say so, rather than which type it is not.
  const unfilled = (where: string, f: unknown) => {
    if (!isObject(f)) return;
    for (const [leaf, v] of leaves(f))
      if (typeof v === 'string' && /^<.*>$/s.test(v))
        problems.push({
          where: `${path}: ${where}.${leaf}`,
          message: `still the template's placeholder ${v}: write the value that is true, or delete the fact`,
        });
  };
  unfilled('facts', value['facts']);
  if (isObject(value['deployments'])) for (const [n, f] of Object.entries(value['deployments'])) unfilled(`deployments.${n}`, f);
  if (problems.length > 0) fail(path, `${problems.length} fact${problems.length === 1 ? '' : 's'} not filled in`, problems);
  const facts = value['facts'] ?? {};
  if (!isObject(facts)) fail(path, 'facts must be an object of nested facts');
  problems.push(...factsProblems(doctrine, facts, `${path}: facts`));
  const deployments = new Map<string, Facts>();
  const perDeployment = value['deployments'] ?? {};
  if (!isObject(perDeployment)) fail(path, 'deployments must be an object: deployment name → nested facts');
  for (const [name, own] of Object.entries(perDeployment).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!isObject(own)) {
      problems.push({ where: `${path}: deployments.${name}`, message: 'must be an object of nested facts' });
      continue;
    }
    problems.push(...factsProblems(doctrine, own, `${path}: deployments.${name}`));
    // The same fact twice, for all deployments and for this one, with two values: say which.
    for (const [leaf, v] of leaves(own)) {
      const common = leaves(facts).find(([p]) => p === leaf);
      if (common && !sameValue(common[1], v)) {
        problems.push({
          where: `${path}: deployments.${name}.${leaf}`,
          message: `${JSON.stringify(v)} here, but facts.${leaf} says ${JSON.stringify(common[1])} for every deployment`,
        });
      }
    }
    deployments.set(name, own);
  }

  const declaredPaths = new Set([...leaves(facts), ...[...deployments.values()].flatMap((f) => leaves(f))].map(([p]) => p));
  const schemaPaths = new Set(doctrine.factPaths);
  const why = new Map<string, string>();
  const leftOut = new Map<string, string>();
  const notes = value['notes'] ?? [];
  if (!Array.isArray(notes)) fail(path, 'notes must be an array of {facts: [dotted paths], note}');
  notes.forEach((n: unknown, i) => {
    const where = `${path}: notes[${i}]`;
    if (
      !isObject(n) ||
      typeof n['note'] !== 'string' ||
      !Array.isArray(n['facts']) ||
      Object.keys(n).some((k) => k !== 'facts' && k !== 'note')
    ) {
      problems.push({ where, message: 'must be {"facts": ["dotted.path", …], "note": "why"}' });
      return;
    }
    for (const f of n['facts']) {
      // A note explains a fact the file states, or one it leaves out on purpose; either way a fact of the schema.
      if (typeof f !== 'string' || !schemaPaths.has(f)) {
        problems.push({ where, message: `${JSON.stringify(f)} is not a fact of the doctrine's schema` });
        continue;
      }
      const into = declaredPaths.has(f) ? why : leftOut;
      into.set(f, into.has(f) ? `${into.get(f)} ${n['note']}` : n['note']);
    }
  });
  if (problems.length > 0) fail(path, `${problems.length} problem${problems.length === 1 ? '' : 's'}`, problems);

  const lines = memberLines(text);
  return { path, sha256: sha256Tag(bytes), facts, deployments, why, leftOut, lines };
}

/** The facts declared for one deployment: the common ones with its own over them (never contradicting). */
export function declaredFor(declared: Declared, name: string): { facts: Facts; line: (leaf: string) => number | undefined } {
  const facts: Facts = {};
  for (const [leaf, v] of leaves(declared.facts)) setLeaf(facts, leaf, v);
  const own = declared.deployments.get(name);
  if (own) for (const [leaf, v] of leaves(own)) setLeaf(facts, leaf, v);
  return {
    facts,
    line: (leaf) => (own && declared.lines.get(`deployments.${name}.${leaf}`)) || declared.lines.get(`facts.${leaf}`),
  };
}
