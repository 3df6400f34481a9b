// `signet check --declare-template FILE`: a declared-facts skeleton (signet-declared/1) with
// exactly the facts the verdict still needs now (the gates, then what the rules that apply
// need: src/check/guide.ts), each with a placeholder naming its allowed values and a note
// holding its description. Facts already declared are kept with their notes, so the person
// fills in one file and asks again until nothing is left. A placeholder is not a value of the
// schema: a template checked before it is filled in is refused, naming each unfilled fact.
import { leafSchemas } from '../collect/sheet.js';
import { factAt } from '../doctrine/facts.js';
import type { Doctrine, FactsConstraint } from '../doctrine/types.js';
import { PROBE_FACTS } from '../probe/findings.js';
import { DECLARED_FORMAT, type Declared } from './declared.js';
import { leaves, setLeaf } from './facts-tree.js';
import { choices, type DeclareGuide, declareGuide, effectText, factsToDeclare } from './guide.js';
import { sourceLabel } from './merge.js';
import type { CheckedDeployment, CheckReport } from './report.js';

type Schema = { type?: string; enum?: unknown[]; items?: Schema; description?: string };

/**
 * `<true | false>`, `<"production" | "staging" | "development">`, `<integer>`: what to write
 * instead; `values`, where given, are the ones the known facts leave possible.
 */
export function placeholder(schema: Schema | undefined, values?: readonly unknown[] | null): string {
  if (!schema) return '<value>';
  if (values) {
    const shown = schema.type === 'boolean' ? [true, false].filter((v) => values.includes(v)) : values;
    return `<${shown.map((v) => JSON.stringify(v)).join(' | ')}>`;
  }
  if (schema.enum) return `<${schema.enum.map((v) => JSON.stringify(v)).join(' | ')}>`;
  if (schema.type === 'boolean') return '<true | false>';
  if (schema.type === 'array') return `<array of ${placeholder(schema.items).slice(1, -1)}>`;
  return `<${schema.type ?? 'value'}>`;
}

/** `tls.enabled = false from compose.yaml:12`: the known facts a refused value would contradict. */
function given(d: CheckedDeployment, c: FactsConstraint): string {
  const known = c.facts.filter((p) => factAt(d.facts, p) !== undefined);
  return known
    .map((p) => {
      const from = (d.sources[p] ?? []).map(sourceLabel);
      return `${p} = ${JSON.stringify(factAt(d.facts, p))}${from.length ? ` from ${from.join(', ')}` : ''}`;
    })
    .join(', ');
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
  // Per deployment, the values each asked fact may still take: one that contradicts a known fact is left out.
  const byName = new Map(report.deployments.map((d) => [d.name, d]));
  const offers = new Map<string, Map<string, { text: string; refused: string[] }>>();
  for (const [name, facts] of asked) {
    const d = byName.get(name)!;
    const mine = new Map<string, { text: string; refused: string[] }>();
    for (const f of facts) {
      const c = choices(doctrine, d.facts, f);
      mine.set(f, {
        text: placeholder(schemas.get(f), c.values),
        refused: c.refused.map(
          ({ value, constraint }) => `${JSON.stringify(value)} (${constraint.id}: ${constraint.message}; ${given(d, constraint)})`,
        ),
      });
    }
    offers.set(name, mine);
  }
  const offer = (name: string, f: string) => offers.get(name)!.get(f)!;
  // A fact goes under `facts` when every deployment asks it with the same values.
  const everywhere =
    names.length === 0
      ? []
      : asked.get(names[0]!)!.filter((f) => names.every((n) => asked.get(n)!.includes(f) && offer(n, f).text === offer(names[0]!, f).text));
  const common: Record<string, unknown> = structuredClone(declared?.facts ?? {});
  const own = new Map<string, Record<string, unknown>>([...(declared?.deployments ?? new Map())].map(([n, f]) => [n, structuredClone(f)]));
  const notes: { facts: string[]; note: string }[] = [];
  for (const [path, note] of [...(declared?.why ?? []), ...(declared?.leftOut ?? [])]) notes.push({ facts: [path], note });

  const effects = new Map<string, string>();
  for (const g of guides.values())
    for (const gate of g.gates) if (gate.effects.length) effects.set(gate.fact, gate.effects.map(effectText).join('; '));
  const noted = new Map<string, { facts: string[]; note: string }>();
  const ask = (into: Record<string, unknown>, fact: string, from: string, forAll: boolean) => {
    const { text, refused } = offer(from, fact);
    setLeaf(into, fact, text);
    const leftOut = refused.length ? ` Left out${forAll || names.length === 1 ? '' : ` for ${from}`}: ${refused.join('; ')}.` : '';
    const kept = noted.get(fact);
    if (kept) {
      if (leftOut && !kept.note.includes(leftOut)) kept.note += leftOut;
      return;
    }
    const effect = effects.get(fact);
    const note = {
      facts: [fact],
      note: `TODO: why you state it (what you checked).${effect ? ` Decide it first: ${effect}.` : ''}${(PROBE_FACTS as readonly string[]).includes(fact) ? ' signet check --probe URL may decide it.' : ''} ${fact}: ${schemas.get(fact)?.description ?? ''}${leftOut}`,
    };
    noted.set(fact, note);
    notes.push(note);
  };
  for (const f of everywhere) ask(common, f, names[0]!, true);
  for (const [name, facts] of asked) {
    const rest = facts.filter((f) => !everywhere.includes(f));
    if (!rest.length) continue;
    const mine = own.get(name) ?? {};
    for (const f of rest) ask(mine, f, name, false);
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
