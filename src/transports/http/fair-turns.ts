// Each principal's requests take turns on the event loop. What runs after a body is read
// (parse, scope, charge, evaluate, sign, verify) is synchronous, and it used to run inside the
// I/O callback that completed the body: eight bodies of one principal completing in one poll
// of the event loop ran back to back while everyone else's requests, even their connections,
// waited for the next poll (pen test M2/M3 of issue 26: another principal's p50 went from 1 ms
// to 150-230 ms, its worst wait to 2.5-9.9 s). Here every request starts its work from the
// loop's check phase (setImmediate), after the poll that read it, and a principal's next
// request only once its previous one was answered: each round of the loop runs at most one
// request per principal, and every read and accept pending in between is served first. Bodies
// in flight stay bounded per principal by the body gate, so a queue holds at most that many.

/** Ends a turn: the principal's next request, if any, starts on the next round of the loop. */
export type EndTurn = () => void;

export class FairTurns {
  /** Per principal with a request running: the requests waiting behind it, in arrival order. */
  readonly #waiting = new Map<string, (() => void)[]>();

  /** Resolves when `slot` (a principal) may run; the caller ends the turn once its answer is built. */
  take(slot: string): Promise<EndTurn> {
    return new Promise((resolve) => {
      const start = () => resolve(this.#end(slot));
      const queue = this.#waiting.get(slot);
      if (queue !== undefined) queue.push(start);
      else {
        this.#waiting.set(slot, []);
        setImmediate(start);
      }
    });
  }

  /** Principals with a request running (for tests and metrics). */
  get running(): number {
    return this.#waiting.size;
  }

  #end(slot: string): EndTurn {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.#waiting.get(slot)?.shift();
      if (next === undefined) this.#waiting.delete(slot);
      else setImmediate(next);
    };
  }
}
