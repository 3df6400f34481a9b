// Each principal's requests take turns on the event loop. What runs after a body is read
// (parse, scope, charge, evaluate, sign, verify) is synchronous, and it ran inside the I/O
// callback that completed the body: eight bodies of one principal completing in one poll of
// the event loop ran back to back while everyone else's requests, even their connections,
// waited for the next poll (pen test M2/M3 of issue 26: another principal's p50 went from 1 ms
// to 150-230 ms, its worst wait to 2.5-9.9 s).
//
// Here a principal's requests run one at a time, and each principal may use QUANTUM_MS of the
// event loop per round: a request starts at once while its principal is under that in this
// round (cheap calls lose nothing, and pile up against no in-flight bound), otherwise it waits
// for the next round, which a setImmediate tick opens after every read and accept pending by
// then was served. One request may overrun the quantum, so a round holds at most the quantum
// plus one request per principal that has work. Bodies in flight stay bounded per principal by
// the body gate, so a queue holds at most that many.
import { performance } from 'node:perf_hooks';

/** How long one principal's requests may run in one round of the event loop. */
export const QUANTUM_MS = 2;

/** Ends a turn: the principal's next request, if any, starts now or in the next round. */
export type EndTurn = () => void;

interface Lane {
  running: boolean;
  /** Requests waiting for their turn, in arrival order. */
  waiting: (() => void)[];
  /** The round `used` counts for. */
  round: number;
  /** Milliseconds this principal's requests ran in that round. */
  used: number;
}

export class FairTurns {
  readonly #lanes = new Map<string, Lane>();
  readonly #now: () => number;
  #round = 0;
  #armed = false;

  /** `now`: the clock turns are measured with (a test's own, so a slow machine changes no outcome). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Resolves when `slot` (a principal) may run; the caller ends the turn once its answer is built. */
  take(slot: string): Promise<EndTurn> {
    let lane = this.#lanes.get(slot);
    if (lane === undefined) {
      lane = { running: false, waiting: [], round: this.#round, used: 0 };
      this.#lanes.set(slot, lane);
    }
    this.#fresh(lane);
    if (!lane.running && lane.waiting.length === 0 && lane.used < QUANTUM_MS) return Promise.resolve(this.#start(lane));
    const queued = lane;
    return new Promise((resolve) => {
      queued.waiting.push(() => resolve(this.#start(queued)));
      this.#arm();
    });
  }

  /** Principals with a request running or waiting, or that ran in this round. */
  get lanes(): number {
    return this.#lanes.size;
  }

  #fresh(lane: Lane): void {
    if (lane.round === this.#round) return;
    lane.round = this.#round;
    lane.used = 0;
  }

  #start(lane: Lane): EndTurn {
    lane.running = true;
    const began = this.#now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      lane.running = false;
      this.#fresh(lane);
      lane.used += this.#now() - began;
      if (lane.waiting.length > 0 && lane.used < QUANTUM_MS) lane.waiting.shift()!();
      // The round ends at the next tick, which releases what waits and forgets idle lanes.
      this.#arm();
    };
  }

  /** One tick per round with work in it: never a loop of its own while nothing happens. */
  #arm(): void {
    if (this.#armed) return;
    this.#armed = true;
    setImmediate(() => {
      this.#armed = false;
      this.#round++;
      for (const [slot, lane] of this.#lanes) {
        if (lane.running) continue;
        const next = lane.waiting.shift();
        if (next === undefined) this.#lanes.delete(slot);
        else {
          this.#fresh(lane);
          next();
        }
      }
    });
  }
}
