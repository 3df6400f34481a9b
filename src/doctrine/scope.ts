// Which areas the facts declare out of scope, and whether that leaves out part of the minimum
// scope of this kind of deployment (doctrine.json's scope.areas): the difference between a
// clean review and a review that looked away.
import { decideOver, type Facts, perDoctrine } from './facts.js';
import { scanLogic } from './json-logic.js';
import { compile } from './partial-logic.js';
import type { Doctrine } from './types.js';

export interface ScopeSummary {
  /** Areas the facts declare out of scope (e.g. client.reviewed: false), by id. */
  declared_out_of_scope: string[];
  /** Areas this kind of deployment must cover for a pass (its minimum scope), by id. */
  minimum: string[];
  /** Areas of the minimum scope that the facts declare out of scope: the verdict is then limited_scope. */
  minimum_unmet: string[];
  /** Areas whose scope or whose place in the minimum the facts leave open. */
  undetermined: string[];
}

const compiled = perDoctrine((doctrine) =>
  doctrine.areas.map((area) => ({
    area,
    outOfScope: compile(area.out_of_scope),
    required: compile(area.required),
    outVars: scanLogic(area.out_of_scope).vars,
    requiredVars: scanLogic(area.required).vars,
  })),
);

/** The scope of an evaluation; adds to `missing` the facts that would decide an open area. */
export function scopeOf(doctrine: Doctrine, facts: Facts, missing: Set<string>): ScopeSummary {
  const scope: ScopeSummary = { declared_out_of_scope: [], minimum: [], minimum_unmet: [], undetermined: [] };
  for (const c of compiled(doctrine)) {
    const out = decideOver(c.area.out_of_scope, c.outOfScope, c.outVars, facts);
    const required = decideOver(c.area.required, c.required, c.requiredVars, facts);
    const id = c.area.id;
    if (out === true) scope.declared_out_of_scope.push(id);
    if (required === true) scope.minimum.push(id);
    if (out === true && required === true) scope.minimum_unmet.push(id);
    else if (out !== false && required !== false) {
      // Either could still make the area an unmet part of the minimum scope: say which facts decide it.
      scope.undetermined.push(id);
      for (const open of [out, required]) if (open !== true) for (const m of open as readonly string[]) missing.add(m);
    }
  }
  return scope;
}
