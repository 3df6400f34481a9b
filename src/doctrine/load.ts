import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { SignetError } from '../errors.js';
import { ajv, metaSchemaErrors } from '../schema/ajv.js';
import { ajvDetails } from '../schema/errors.js';
import { type DoctrineFile, readDoctrineFiles, SIGNATURE_FILE } from './files.js';
import { doctrineJsonSchema, frontMatterSchema, publisherSignatureSchema, ruleFileSchema } from './format-schemas.js';
import { splitFrontMatter } from './front-matter.js';
import { scanLogic } from './json-logic.js';
import { buildManifest, normaliseLineEndings } from './manifest.js';
import type {
  Doctrine,
  DoctrineDocument,
  DoctrineMeta,
  DoctrinePublisherSignature,
  FactsConstraint,
  Problem,
  Rule,
  ScopeArea,
  Severity,
} from './types.js';

const validateDoctrineJson = ajv.compile(doctrineJsonSchema);
const validateRuleFile = ajv.compile(ruleFileSchema);
const validateFrontMatter = ajv.compile(frontMatterSchema);
const validatePublisher = ajv.compile(publisherSignatureSchema);

function ajvProblems(file: string, errors: ErrorObject[] | null | undefined): Problem[] {
  return ajvDetails(`${file}: `, errors, { limit: Infinity }).map((d) => ({ where: d.where!, message: d.message }));
}

function parseJson(file: DoctrineFile, problems: Problem[]): unknown {
  try {
    return JSON.parse(file.bytes.toString('utf8'));
  } catch (err) {
    problems.push({ where: file.path, message: `not valid JSON: ${(err as Error).message}` });
    return undefined;
  }
}

/** Dotted paths declared by a facts schema's nested `properties`. */
function collectFactPaths(schema: unknown, prefix = '', out: string[] = []): string[] {
  if (schema === null || typeof schema !== 'object') return out;
  const props = (schema as { properties?: Record<string, unknown> }).properties;
  if (!props || typeof props !== 'object') return out;
  for (const [name, child] of Object.entries(props)) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push(path);
    collectFactPaths(child, path, out);
  }
  return out;
}

export interface CheckResult {
  doctrine: Doctrine | null;
  problems: Problem[];
}

export interface CheckOptions {
  /** Also validate facts_schema against the JSON Schema meta-schema (slower; `doctrine check` does). */
  metaSchema?: boolean;
}

// ---- the phases of a check: each reads what it needs and adds to one list of problems ----

/** doctrine.json: present, JSON, and of the doctrine format. */
function readMeta(files: DoctrineFile[], problems: Problem[]): { meta: DoctrineMeta | null; present: boolean } {
  const metaFile = files.find((f) => f.path === 'doctrine.json');
  if (!metaFile) {
    problems.push({ where: 'doctrine.json', message: 'missing: a doctrine folder needs doctrine.json' });
    return { meta: null, present: false };
  }
  const raw = parseJson(metaFile, problems);
  if (raw === undefined) return { meta: null, present: true };
  if (validateDoctrineJson(raw)) return { meta: raw as unknown as DoctrineMeta, present: true };
  problems.push(...ajvProblems('doctrine.json', validateDoctrineJson.errors));
  return { meta: null, present: true };
}

/** The facts schema, compiled strictly so that typos in the schema itself are caught here. */
function compileFactsSchema(meta: DoctrineMeta, options: CheckOptions, problems: Problem[]) {
  const where = 'doctrine.json: facts_schema';
  const metaErrors = options.metaSchema ? metaSchemaErrors(meta.facts_schema) : [];
  for (const m of metaErrors) problems.push({ where, message: `not a valid JSON Schema: ${m}` });
  try {
    return {
      validateFacts: ajv.compile(meta.facts_schema) as Doctrine['validateFacts'],
      factPaths: collectFactPaths(meta.facts_schema).sort(),
    };
  } catch (err) {
    problems.push({ where, message: `not a valid JSON Schema: ${(err as Error).message}` });
    return { validateFacts: null, factPaths: [] };
  }
}

/** documents/<id>.md: front matter with an id equal to the file name. */
function readDocument(file: DoctrineFile, problems: Problem[]): DoctrineDocument | null {
  const source = normaliseLineEndings(file.bytes).toString('utf8');
  const fm = splitFrontMatter(source);
  if (!fm) {
    problems.push({ where: file.path, message: 'missing front matter (a first line "---", YAML with id and title, a closing "---")' });
    return null;
  }
  if (!validateFrontMatter(fm.data)) {
    problems.push(...ajvProblems(`${file.path} front matter`, validateFrontMatter.errors));
    return null;
  }
  const data = fm.data as { id: string; title: string; tags?: string[] };
  const expected = file.path.slice('documents/'.length, -'.md'.length);
  if (data.id !== expected) {
    problems.push({ where: `${file.path} front matter: id`, message: `id "${data.id}" must equal the file name "${expected}"` });
  }
  return { id: data.id, title: data.title, tags: data.tags ?? [], path: file.path, body: fm.body, source };
}

/** rules/<name>.json: every rule, with the facts its JSON Logic reads. */
function readRules(file: DoctrineFile, problems: Problem[]): Rule[] {
  const raw = parseJson(file, problems);
  if (raw === undefined) return [];
  if (!validateRuleFile(raw)) {
    problems.push(...ajvProblems(file.path, validateRuleFile.errors));
    // Keep going over what is there, so one run reports every problem of the file.
    if (!Array.isArray((raw as { rules?: unknown }).rules)) return [];
  }
  const rules: Rule[] = [];
  for (const [i, r] of ((raw as { rules: (Omit<Rule, 'path' | 'facts' | 'advisory'> & { advisory?: boolean })[] }).rules ?? []).entries()) {
    if (r === null || typeof r !== 'object') continue;
    const vars = new Set<string>();
    for (const key of ['when', 'check'] as const) {
      if (r[key] === undefined) continue;
      const scan = scanLogic(r[key], key);
      for (const e of scan.errors) problems.push({ where: `${file.path}: rules.${i}.${e}`, message: 'invalid JSON Logic' });
      for (const v of scan.vars) vars.add(v);
    }
    rules.push({ ...r, severity: r.severity as Severity, advisory: r.advisory === true, path: file.path, facts: [...vars].sort() });
  }
  return rules;
}

/** Unique ids, references that resolve, and facts the schema declares. */
function checkReferences(documents: DoctrineDocument[], rules: Rule[], factPaths: string[] | null, problems: Problem[]): void {
  const docIds = new Set<string>();
  for (const d of documents) {
    if (docIds.has(d.id)) problems.push({ where: `${d.path} front matter: id`, message: `duplicate document id "${d.id}"` });
    docIds.add(d.id);
  }
  const ruleIds = new Map<string, string>();
  const known = new Set(factPaths ?? []);
  for (const r of rules) {
    const first = ruleIds.get(r.id);
    if (first) problems.push({ where: `${r.path}: ${r.id}.id`, message: `duplicate rule id "${r.id}" (first in ${first})` });
    else ruleIds.set(r.id, r.path);
    for (const ref of Array.isArray(r.references) ? r.references : []) {
      if (ref.startsWith('doc:') && !docIds.has(ref.slice(4))) {
        problems.push({ where: `${r.path}: ${r.id}.references`, message: `broken reference "${ref}": no document with that id` });
      }
    }
    if (factPaths === null) continue; // no usable facts schema: already reported
    for (const v of r.facts) {
      if (!known.has(v)) problems.push({ where: `${r.path}: ${r.id}`, message: `uses fact "${v}", which facts_schema does not declare` });
    }
  }
}

/** The facts a piece of doctrine.json's JSON Logic reads, with its problems reported. */
function logicFacts(where: string, logic: unknown, known: Set<string> | null, problems: Problem[]): string[] {
  const scan = scanLogic(logic, where);
  for (const e of scan.errors) problems.push({ where: `doctrine.json: ${e}`, message: 'invalid JSON Logic' });
  if (known)
    for (const v of [...scan.vars, ...scan.presence])
      if (!known.has(v))
        problems.push({ where: `doctrine.json: ${where}`, message: `uses fact "${v}", which facts_schema does not declare` });
  return scan.vars;
}

/** doctrine.json's scope areas, consistency constraints and deployments: logic and paths that name declared facts, areas that are rule categories. */
function readScopeAndConstraints(meta: DoctrineMeta, rules: Rule[], factPaths: string[] | null, problems: Problem[]) {
  const known = factPaths ? new Set(factPaths) : null;
  const categories = new Set(rules.map((r) => r.category));
  const seen = new Set<string>();
  const areas: ScopeArea[] = (meta.scope?.areas ?? []).map((a, i) => {
    const where = `scope.areas.${i}`;
    if (!categories.has(a.id)) problems.push({ where: `doctrine.json: ${where}.id`, message: `"${a.id}" is not the category of any rule` });
    if (seen.has(a.id)) problems.push({ where: `doctrine.json: ${where}.id`, message: `duplicate area "${a.id}"` });
    seen.add(a.id);
    const facts = new Set([
      ...logicFacts(`${where}.out_of_scope`, a.out_of_scope, known, problems),
      ...logicFacts(`${where}.required`, a.required, known, problems),
    ]);
    return { ...a, facts: [...facts].sort() };
  });
  const ids = new Set<string>();
  const constraints: FactsConstraint[] = (meta.consistency ?? []).map((c, i) => {
    if (ids.has(c.id)) problems.push({ where: `doctrine.json: consistency.${i}.id`, message: `duplicate constraint id "${c.id}"` });
    ids.add(c.id);
    return { ...c, facts: logicFacts(`consistency.${i}.check`, c.check, known, problems) };
  });
  const d = meta.deployments;
  if (d && known) {
    const named = (list: string[], key: string) =>
      list.forEach((p, i) => {
        if (!known.has(p))
          problems.push({ where: `doctrine.json: deployments.${key}.${i}`, message: `"${p}" is not a fact of facts_schema` });
      });
    named(d.client_facts, 'client_facts');
    named(d.per_server_client_facts, 'per_server_client_facts');
    // Per-server client facts are client facts: each lies under one of client_facts.
    d.per_server_client_facts.forEach((p, i) => {
      if (!d.client_facts.some((g) => p === g || p.startsWith(`${g}.`)))
        problems.push({ where: `doctrine.json: deployments.per_server_client_facts.${i}`, message: `"${p}" is not under client_facts` });
    });
  }
  return { areas, constraints };
}

/** The optional publisher signature: its shape here, its validity by the caller. */
function readPublisher(dir: string, problems: Problem[]): DoctrinePublisherSignature | null {
  let text: string;
  try {
    text = readFileSync(join(dir, SIGNATURE_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const raw: unknown = JSON.parse(text);
    if (validatePublisher(raw)) return raw as unknown as DoctrinePublisherSignature;
    problems.push(...ajvProblems(SIGNATURE_FILE, validatePublisher.errors));
  } catch {
    problems.push({ where: SIGNATURE_FILE, message: 'not valid JSON' });
  }
  return null;
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Reads and validates a doctrine folder, collecting every problem rather than stopping at the first. */
export function checkDoctrine(dir: string, options: CheckOptions = {}): CheckResult {
  let files: DoctrineFile[];
  try {
    files = readDoctrineFiles(dir);
  } catch (err) {
    if (!(err instanceof SignetError)) throw err;
    const problems = err.details.length
      ? err.details.map((d) => ({ where: d.where ?? '.', message: d.message }))
      : [{ where: '.', message: err.message }];
    return { doctrine: null, problems };
  }
  const problems: Problem[] = [];
  const manifest = buildManifest(files);
  const { meta, present } = readMeta(files, problems);
  const { validateFacts, factPaths } = meta ? compileFactsSchema(meta, options, problems) : { validateFacts: null, factPaths: [] };

  const documents: DoctrineDocument[] = [];
  const rules: Rule[] = [];
  for (const file of files) {
    if (file.path === 'doctrine.json') continue;
    if (/^documents\/[^/]+\.md$/.test(file.path)) {
      const doc = readDocument(file, problems);
      if (doc) documents.push(doc);
    } else if (/^rules\/[^/]+\.json$/.test(file.path)) {
      rules.push(...readRules(file, problems));
    } else {
      problems.push({ where: file.path, message: 'unexpected file: a doctrine holds doctrine.json, documents/*.md and rules/*.json' });
    }
  }
  checkReferences(documents, rules, validateFacts ? factPaths : null, problems);
  const { areas, constraints } = meta
    ? readScopeAndConstraints(meta, rules, validateFacts ? factPaths : null, problems)
    : { areas: [], constraints: [] };
  if (present && rules.length === 0) problems.push({ where: 'rules/', message: 'a doctrine needs at least one rule' });
  const publisher = readPublisher(dir, problems);

  if (problems.length > 0 || !meta || !validateFacts) return { doctrine: null, problems };
  return {
    doctrine: {
      meta,
      documents: documents.sort(byId),
      rules: rules.sort(byId),
      manifest,
      hash: manifest.hash,
      areas,
      constraints,
      factPaths,
      validateFacts,
      publisher,
    },
    problems,
  };
}

/** Loads a doctrine or throws one error listing every problem with file and field. */
export function loadDoctrine(dir: string): Doctrine {
  const { doctrine, problems } = checkDoctrine(dir);
  if (!doctrine) {
    throw new SignetError(
      'doctrine_invalid',
      `Doctrine at ${dir} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems
        .slice(0, 5)
        .map((p) => `${p.where}: ${p.message}`)
        .join('; ')}${problems.length > 5 ? '; ...' : ''}`,
      problems,
    );
  }
  return doctrine;
}
