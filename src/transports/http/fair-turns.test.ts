import { describe, expect, it } from 'vitest';
import { FairTurns, QUANTUM_MS } from './fair-turns.js';

const round = () => new Promise<void>((resolve) => setImmediate(resolve));
/**
 * The turns' clock, moved by the test alone: a request costs what the test says it does,
 * however slowly a loaded machine runs it.
 */
let clock = 0;
const now = () => clock;
/** Work that takes longer than a principal may run in one round. */
const spin = (ms: number) => {
  clock += ms;
};
/** A turn asked for, and whether it has started. */
const ask = (turns: FairTurns, slot: string) => {
  const s = { started: false, end: turns.take(slot) };
  void s.end.then(() => {
    s.started = true;
  });
  return s;
};
const microtasks = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('FairTurns', () => {
  it("runs one principal's requests one at a time in arrival order, and never makes another principal wait", async () => {
    const turns = new FairTurns(now);
    const log: string[] = [];
    const a1 = await turns.take('a');
    const queued = (name: string) =>
      turns.take('a').then((end) => {
        log.push(name);
        return end;
      });
    const a2 = queued('a2');
    const a3 = queued('a3');
    const b1 = await turns.take('b'); // a is busy, b is not
    log.push('b1');
    a1();
    a1(); // ending twice changes nothing
    (await a2)();
    (await a3)();
    b1();
    expect(log).toEqual(['b1', 'a2', 'a3']);
    await round();
    expect(turns.lanes).toBe(0); // idle lanes are forgotten when the round ends
  });

  it("runs a principal's cheap requests at once and back to back, in the round they came", async () => {
    const turns = new FairTurns(now);
    const first = ask(turns, 'a');
    await microtasks();
    expect(first.started).toBe(true); // no wait for the loop to go round
    const second = ask(turns, 'a');
    await microtasks();
    expect(second.started).toBe(false); // one at a time
    (await first.end)();
    await microtasks();
    expect(second.started).toBe(true);
    (await second.end)();
  });

  it('makes a principal that spent its quantum this round wait for the next, even when it has nothing running', async () => {
    const turns = new FairTurns(now);
    const costly = await turns.take('a');
    spin(QUANTUM_MS + 1);
    costly();
    // The next body of the same principal completes in the same poll: it must not run now.
    const next = ask(turns, 'a');
    const other = ask(turns, 'b');
    await microtasks();
    expect(next.started).toBe(false);
    expect(other.started).toBe(true); // another principal is not held back
    await round();
    await round();
    expect(next.started).toBe(true);
    (await next.end)();
    (await other.end)();
  });
});
