// What a person still has to declare to complete a deployment's verdict, smallest first
// (docs/checking.md, "Completing a verdict"). Listing every undecided fact asks for what no rule
// needs: an HTTP server reviewed without its clients needs client.reviewed: false, not the 29
// client facts that answer makes moot. So the facts come in three groups:
// - gates: facts a rule's `when` (or a scope area) reads and the facts leave open; one answer
//   can take a whole group of rules out, so they come first, each with what its values do;
// - needed: facts the checks of rules that already apply read: needed whatever the gates say;
// - conditional: facts only rules behind an open gate read: needed only if the answers keep
//   those rules applicable. Declaring the gates and asking again gives the exact rest.
import { leafSchemas } from '../collect/sheet.js';
import { brokenConstraints } from '../doctrine/consistency.js';
import { decideOver, type Facts, perDoctrine } from '../doctrine/facts.js';
import { scanLogic } from '../doctrine/json-logic.js';
import { compile } from '../doctrine/partial-logic.js';
import type { Doctrine, FactsConstraint } from '../doctrine/types.js';
import { setLeaf } from './facts-tree.js';
import type { CheckedDeployment } from './report.js';

export interface GateEffect {
  value: unknown;
  /** Undetermined baseline rules this value makes not applicable. */
  settles: string[];
  /** A scope area this value declares out of scope, and whether this deployment's minimum allows it. */
  outOfScope?: { area: string; allowed: boolean };
}

export interface DeclareGuide {
  /** Facts that decide whether rules or a scope area apply, most decisive first. */
  gates: { fact: string; rules: string[]; effects: GateEffect[] }[];
  /** Facts that rules which apply already need, by how many rules need them. */
  needed: { fact: string; rules: string[] }[];
  /** Facts needed only if the gates' answers keep the rules that read them applicable. */
  conditional: { fact: string; rules: string[] }[];
}

const compiled = perDoctrine((doctrine: Doctrine) => ({
  rules: new Map(
    doctrine.rules.map((r) => [
      r.id,
      {
        when: r.when === undefined ? null : { logic: r.when, node: compile(r.when), vars: scanLogic(r.when).vars },
        check: { logic: r.check, node: compile(r.check), vars: scanLogic(r.check).vars },
      },
    ]),
  ),
  areas: doctrine.areas.map((a) => ({
    id: a.id,
    out: { logic: a.out_of_scope, node: compile(a.out_of_scope), vars: scanLogic(a.out_of_scope).vars },
    required: { logic: a.required, node: compile(a.required), vars: scanLogic(a.required).vars },
  })),
}));

type Cond = { logic: unknown; node: ReturnType<typeof compile>; vars: readonly string[] };
const decideCond = (c: Cond, facts: Facts) => decideOver(c.logic, c.node, c.vars, facts);
const openFacts = (r: ReturnType<typeof decideCond>): string[] => (typeof r === 'boolean' ? [] : [...r]);

/** The values a fact can take, where the schema lists them (booleans and enums). */
function domain(doctrine: Doctrine, fact: string): unknown[] {
  const s = leafSchemas(doctrine).get(fact) as { type?: string; enum?: unknown[] } | undefined;
  if (s?.enum) return [...s.enum];
  if (s?.type === 'boolean') return [false, true];
  return [];
}

export interface Choices {
  /** The schema's values (booleans and enums) the facts already known leave possible; null for other types. */
  values: unknown[] | null;
  /** Each value left out, with the consistency constraint it would break. */
  refused: { value: unknown; constraint: FactsConstraint }[];
}

/**
 * What a person may declare for an undecided fact: a value that contradicts the facts already
 * known would be refused at the next check (tls.enabled false leaves no "mtls"; FACTS-009), so
 * it is never offered.
 */
export function choices(doctrine: Doctrine, facts: Facts, fact: string): Choices {
  const all = domain(doctrine, fact);
  if (all.length === 0) return { values: null, refused: [] };
  const values: unknown[] = [];
  const refused: Choices['refused'] = [];
  for (const value of all) {
    const broken = brokenConstraints(doctrine, withFact(facts, fact, value));
    if (broken.length === 0) values.push(value);
    else refused.push({ value, constraint: broken[0]! });
  }
  return { values, refused };
}

function withFact(facts: Facts, fact: string, value: unknown): Facts {
  const copy = structuredClone(facts);
  setLeaf(copy, fact, value);
  return copy;
}

export function declareGuide(doctrine: Doctrine, d: CheckedDeployment): DeclareGuide {
  const { rules, areas } = compiled(doctrine);
  const open = d.summary.undetermined_rule_ids;
  const gates = new Map<string, Set<string>>();
  const needed = new Map<string, Set<string>>();
  const conditional = new Map<string, Set<string>>();
  const add = (into: Map<string, Set<string>>, fact: string, id: string) => into.set(fact, (into.get(fact) ?? new Set()).add(id));
  for (const id of open) {
    const r = rules.get(id)!;
    const applies = r.when ? decideCond(r.when, d.facts) : true;
    const checkOpen = openFacts(decideCond(r.check, d.facts));
    if (applies === true) for (const f of checkOpen) add(needed, f, id);
    else {
      for (const f of openFacts(applies)) add(gates, f, id);
      for (const f of checkOpen) add(conditional, f, id);
    }
  }
  // Areas the facts may still declare out of scope (client.reviewed: false): their facts are gates too.
  const openAreas = areas.filter((a) => typeof decideCond(a.out, d.facts) !== 'boolean');
  for (const a of openAreas)
    for (const f of [...openFacts(decideCond(a.out, d.facts)), ...openFacts(decideCond(a.required, d.facts))])
      add(gates, f, `scope:${a.id}`);

  const gateList = [...gates.entries()].map(([fact, ids]) => {
    const effects: GateEffect[] = [];
    for (const value of choices(doctrine, d.facts, fact).values ?? []) {
      const facts = withFact(d.facts, fact, value);
      const settles = open.filter((id) => {
        const w = rules.get(id)!.when;
        return w !== null && ids.has(id) && decideCond(w, facts) === false;
      });
      const e: GateEffect = { value, settles };
      for (const a of openAreas) {
        if (decideCond(a.out, facts) !== true) continue;
        const required = decideCond(a.required, facts);
        e.outOfScope = { area: a.id, allowed: required === false };
      }
      if (settles.length > 0 || e.outOfScope) effects.push(e);
    }
    return { fact, rules: [...ids].filter((i) => !i.startsWith('scope:')).sort(), effects };
  });
  const most = (g: (typeof gateList)[number]) => Math.max(0, ...g.effects.map((e) => e.settles.length + (e.outOfScope ? 1 : 0)));
  gateList.sort((a, b) => most(b) - most(a) || b.rules.length - a.rules.length || cmp(a.fact, b.fact));
  // Two gates a consistency constraint ties: the more decisive first, the other after its answer
  // (authentication.method "none" decides authentication.required; container.used every container fact).
  const kept: typeof gateList = [];
  const deferred = new Set<string>();
  for (const g of gateList) {
    const tiedTo = constraintVars(doctrine).some((c) => c.includes(g.fact) && kept.some((k) => c.includes(k.fact)));
    // A gate whose rules one answer to a gate before it takes out waits for that answer
    // (client.reviewed: false takes out every rule client.uses_oauth would).
    const moot = kept.some((k) => k.effects.some((e) => g.rules.every((id) => e.settles.includes(id))));
    if (tiedTo || moot) {
      deferred.add(g.fact);
      for (const id of g.rules) add(conditional, g.fact, id);
    } else kept.push(g);
  }
  const list = (m: Map<string, Set<string>>, skip: (f: string) => boolean) =>
    [...m.entries()]
      .filter(([f]) => !skip(f))
      .map(([fact, ids]) => ({ fact, rules: [...ids].sort() }))
      .sort((a, b) => b.rules.length - a.rules.length || cmp(a.fact, b.fact));
  // A fact that a consistency constraint ties to an open gate waits for the gate's answer
  // (container.used: false forbids every other container fact; FACTS-013).
  const tied = new Set<string>();
  for (const c of constraintVars(doctrine))
    if (c.some((v) => gates.has(v) && !deferred.has(v))) for (const v of c) if (!gates.has(v) || deferred.has(v)) tied.add(v);
  for (const f of tied) {
    const ids = needed.get(f);
    if (!ids) continue;
    needed.delete(f);
    for (const id of ids) add(conditional, f, id);
  }
  const neededList = list(needed, (f) => gates.has(f));
  return {
    gates: kept,
    needed: neededList,
    conditional: list(conditional, (f) => (gates.has(f) && !deferred.has(f)) || needed.has(f)),
  };
}

const constraintVars = perDoctrine((doctrine: Doctrine) => doctrine.constraints.map((c) => scanLogic(c.check).vars));

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What declaring a gate's values does, in a few words: `false takes 29 rules out (the clients area, allowed here)`. */
export function effectText(e: GateEffect): string {
  const parts = [];
  if (e.settles.length > 0) parts.push(`takes ${e.settles.length} rule${e.settles.length === 1 ? '' : 's'} out`);
  if (e.outOfScope)
    parts.push(
      e.outOfScope.allowed
        ? `puts the ${e.outOfScope.area} area out of scope, which this deployment's minimum allows`
        : `puts the ${e.outOfScope.area} area out of scope, part of this deployment's minimum: limited scope, never pass`,
    );
  return `${JSON.stringify(e.value)} ${parts.join(' and ')}`;
}

/** The facts a template asks for now: the gates, then what the rules that apply need. */
export function factsToDeclare(g: DeclareGuide): string[] {
  return [...g.gates.map((x) => x.fact), ...g.needed.map((x) => x.fact)];
}
