// `signet check --declare-template FILE`: a declared-facts skeleton (signet-declared/1) with
// exactly the facts the verdict still needs now (the gates, then what the rules that apply
// need: src/check/guide.ts), each with a placeholder naming its allowed values and a note
// holding its description. Facts already declared are kept with their notes, so the person
// fills in one file and asks again until nothing is left. A placeholder is not a value of the
// schema: a template checked before it is filled in is refused, naming each unfilled fact.
import { leafSchemas } from '../collect/sheet.js';
import type { Doctrine } from '../doctrine/types.js';
import { PROBE_FACTS } from '../probe/findings.js';
import { DECLARED_FORMAT, type Declared } from './declared.js';
import { leaves, setLeaf } from './facts-tree.js';
import { type DeclareGuide, declareGuide, effectText, factsToDeclare } from './guide.js';
import type { CheckReport } from './report.js';

type Schema = { type?: string; enum?: unknown[]; items?: Schema; description?: string };

/** `<true | false>`, `<production | staging | development>`, `<integer>`: what to write instead. */
export function placeholder(schema: Schema | undefined): string {
  if (!schema) return '<value>';
  if (schema.enum) return `<${schema.enum.map((v) => JSON.stringify(v)).join(' | ')}>`;
  if (schema.type === 'boolean') return '<true | false>';
  if (schema.type === 'array') return `<array of ${placeholder(schema.items).slice(1, -1)}>`;
  return `<${schema.type ?? 'value'}>`;
}

export interface Template {
  /** The file's JSON text. */
  text: string;
  /** Facts it asks for now, per deployment. */
  asked: Map<string, string[]>;
}

export function declareTemplate(report: CheckReport, doctrine: Doctrine, declared: Declared | null): Template {
  const schemas = leafSchemas(doctrine) as Map<string, Schema>;
  const guides = new Map<string, DeclareGuide>(report.deployments.map((d) => [d.name, declareGuide(doctrine, d)]));
  const asked = new Map<string, string[]>([...guides].map(([n, g]) => [n, factsToDeclare(g)]));
  // A fact every deployment needs goes under `facts` (one value for all); the rest per deployment.
  const names = [...asked.keys()];
  const everywhere = names.length === 0 ? [] : asked.get(names[0]!)!.filter((f) => names.every((n) => asked.get(n)!.includes(f)));
  const common: Record<string, unknown> = structuredClone(declared?.facts ?? {});
  const own = new Map<string, Record<string, unknown>>([...(declared?.deployments ?? new Map())].map(([n, f]) => [n, structuredClone(f)]));
  const notes: { facts: string[]; note: string }[] = [];
  for (const [path, note] of [...(declared?.why ?? []), ...(declared?.leftOut ?? [])]) notes.push({ facts: [path], note });

  const effects = new Map<string, string>();
  for (const g of guides.values())
    for (const gate of g.gates) if (gate.effects.length) effects.set(gate.fact, gate.effects.map(effectText).join('; '));
  const noted = new Set<string>();
  const ask = (into: Record<string, unknown>, fact: string) => {
    setLeaf(into, fact, placeholder(schemas.get(fact)));
    if (noted.has(fact)) return;
    noted.add(fact);
    const effect = effects.get(fact);
    notes.push({
      facts: [fact],
      note: `TODO: why you state it (what you checked).${effect ? ` Decide it first: ${effect}.` : ''}${(PROBE_FACTS as readonly string[]).includes(fact) ? ' signet check --probe URL may decide it.' : ''} ${fact}: ${schemas.get(fact)?.description ?? ''}`,
    });
  };
  for (const f of everywhere) ask(common, f);
  for (const [name, facts] of asked) {
    const rest = facts.filter((f) => !everywhere.includes(f));
    if (!rest.length) continue;
    const mine = own.get(name) ?? {};
    for (const f of rest) ask(mine, f);
    own.set(name, mine);
  }
  const count = new Set([...asked.values()].flat()).size;
  const file: Record<string, unknown> = {
    format: DECLARED_FORMAT,
    description: `What the files do not show, for signet check. Replace each "<…>" with the value that is true and each TODO with why you state it (delete a fact you cannot state: it stays undecided). ${count} fact${count === 1 ? '' : 's'} asked now; check again with --facts and --declare-template to get what your answers leave open.`,
  };
  if (leaves(common).length || own.size === 0) file['facts'] = common;
  if (own.size) file['deployments'] = Object.fromEntries([...own].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  if (notes.length) file['notes'] = notes;
  return { text: `${JSON.stringify(file, null, 2)}\n`, asked };
}
