// Facts that contradict each other describe no deployment, and evaluating them would sign a
// verdict about a fiction: the doctrine's consistency constraints refuse them before any rule
// runs, naming each constraint broken and the facts it read.
import { SignetError } from '../errors.js';
import { decideOver, type Facts, factAt, hasFact, perDoctrine } from './facts.js';
import { compile } from './partial-logic.js';
import type { Doctrine, FactsConstraint } from './types.js';

const compiled = perDoctrine((doctrine) => doctrine.constraints.map((constraint) => ({ constraint, node: compile(constraint.check) })));

/** The constraints the facts make false (missing facts never do). */
export function brokenConstraints(doctrine: Doctrine, facts: Facts): FactsConstraint[] {
  return compiled(doctrine)
    .filter((c) => decideOver(c.constraint.check, c.node, c.constraint.facts, facts) === false)
    .map((c) => c.constraint);
}

/** Throws invalid_arguments when the facts make any constraint false (missing facts never do). */
export function checkConsistency(doctrine: Doctrine, facts: Facts): void {
  const broken = brokenConstraints(doctrine, facts);
  if (broken.length === 0) return;
  throw new SignetError(
    'invalid_arguments',
    `facts contradict each other (${broken.map((c) => c.id).join(', ')}): ${broken[0]!.message}${broken.length > 1 ? '; ...' : ''}`,
    broken.map((c) => {
      const given = c.facts.filter((p) => hasFact(facts, p));
      return {
        where: given.map((p) => `facts.${p}`).join(', '),
        message: `${c.id}: ${c.message} (given: ${given.map((p) => `${p} = ${JSON.stringify(factAt(facts, p))}`).join(', ')})`,
      };
    }),
  );
}
