import { describe, expect, it } from 'vitest';
import { FairTurns } from './fair-turns.js';

const round = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('FairTurns', () => {
  it("runs one principal's requests one at a time in arrival order, and never makes another principal wait", async () => {
    const turns = new FairTurns();
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
    expect(turns.running).toBe(2);
    a1();
    a1(); // ending twice changes nothing
    (await a2)();
    (await a3)();
    b1();
    expect(log).toEqual(['b1', 'a2', 'a3']);
    expect(turns.running).toBe(0);
  });

  it('starts even a free principal from the check phase, never inside the I/O callback that read it', async () => {
    const turns = new FairTurns();
    let started = false;
    const first = turns.take('a').then((end) => {
      started = true;
      return end;
    });
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(started).toBe(false);
    await round();
    expect(started).toBe(true);
    (await first)();
  });

  it("starts a principal's next request only after the event loop went round, never within the same tick", async () => {
    const turns = new FairTurns();
    const first = await turns.take('a');
    let started = false;
    const next = turns.take('a').then((end) => {
      started = true;
      return end;
    });
    first();
    // Promise jobs alone (what an await chain runs) do not start it: I/O gets its turn first.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(started).toBe(false);
    await round();
    await round();
    expect(started).toBe(true);
    (await next)();
  });
});
