// Issue 17, H2: one API-key holder floods the server through the proxy with 1 MB bodies of
// deeply nested arrays (the pen test's payload) from many connections at once, while another
// key goes on calling. The server must stay up, keep its memory under the container's limit,
// and keep the other key's latency near what it was before the flood. Issue 26, M2 and M3: one
// key's costly requests, eight in flight, refused after their body was read (malformed 1 MB
// bodies, batches over the limit) or within its budget (verify_output on the largest text it
// takes), must be charged and must not stall another key. Run on both stacks.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/http-server.js';

export interface FloodTarget {
  baseUrl: string;
  /** The flooding principal's key and another principal's key (key-store mode). */
  floodKey: string;
  otherKey: string;
  clientAddress?: string;
  /** The Host header to send when baseUrl names an address the stack does not answer for. */
  host?: string;
  /** The server's resident memory now, in MiB (process: VmRSS; compose: the container's usage). */
  serverMemoryMiB(): Promise<number>;
  /** The most memory the server may use (the container's limit). */
  memoryLimitMiB: number;
  /** True when the server process is the one that started the suite (no crash, no restart). */
  sameServer(): Promise<boolean>;
  /** A new API key (its own budgets), for a flood that must start with a full budget. */
  newKey(name: string): Promise<string>;
  stop(): Promise<void>;
}

const SENDERS = 12;
const FLOOD_MS = 8000;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A principal's request headers, with the Host the stack answers for. */
const headersFor = (t: FloodTarget, key: string) => ({ ...HEADERS, ...(t.host ? { host: t.host } : {}), authorization: `Bearer ${key}` });

/** A call as the victim makes it, timed: its status and its milliseconds. */
function timed(call: (id: string) => Promise<{ status: number }>): (id: string) => Promise<{ status: number; ms: number }> {
  return async (id) => {
    const start = performance.now();
    const r = await call(id);
    return { status: r.status, ms: performance.now() - start };
  };
}

/** The victim's latencies before a flood: `n` calls one after another, each answered 200. */
async function baselineOf(victim: (id: string) => Promise<{ status: number; ms: number }>, n: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await victim(`base-${i}`);
    expect(r.status).toBe(200);
    ms.push(r.ms);
  }
  return ms;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function defineFloodSuite(name: string, getTarget: () => Promise<FloodTarget>): void {
  describe(`${name}: one principal's flood of deeply nested bodies (H2)`, () => {
    it('keeps the server up, under its memory limit, and another key at its usual latency', async () => {
      const t = await getTarget();
      try {
        await flood(name, t);
      } finally {
        await t.stop();
      }
    }, 120_000);
  });

  describe(`${name}: one principal's costly requests (issue 26, M2 and M3)`, () => {
    let t: FloodTarget;
    beforeAll(async () => {
      t = await getTarget();
    }, 300_000);
    afterAll(async () => t?.stop());

    it('M2: malformed 1 MB tools/call bodies, refused after they were read, are charged (429 past the budget) and stall no one', async () => {
      // Valid JSON up to a trailing " x": the parser reads the whole megabyte before refusing it.
      const body = (i: number) => `${rpcCall(i, 'doctrine_search', { query: 'x'.repeat(999_800) })} x`;
      const r = await costFlood(`${name} M2 malformed`, t, { requests: 70, body });
      expect(r.statuses.get(200) ?? 0).toBe(0);
      expect(r.statuses.get(400)).toBe(60); // charged as 60 calls...
      expect(r.statuses.get(429) ?? 0).toBeGreaterThanOrEqual(10); // ...then over budget, whatever the body
      expect(r.statuses.get(400) ?? 0).toBeLessThanOrEqual(60);
      expect(r.flooderAfter).toBe(429);
    }, 180_000);

    it('M2: batches over the message limit are charged every message they hold and stall no one', async () => {
      // 33 tools/call messages of ~29 KB: one over SIGNET_MAX_BATCH_MESSAGES, refused by the router.
      const body = (i: number) =>
        `[${Array.from({ length: 33 }, (_, j) => rpcCall(i * 100 + j, 'doctrine_search', { query: 'y'.repeat(29_000) })).join(',')}]`;
      const r = await costFlood(`${name} M2 batches`, t, { requests: 70, body });
      expect(r.statuses.get(400) ?? 0).toBeLessThanOrEqual(1); // the first batch: 33 of 60 charged, then refused by the router
      expect(r.statuses.get(429) ?? 0).toBeGreaterThanOrEqual(69);
      expect(r.flooderAfter).toBe(429);
    }, 180_000);

    it("M3: verify_output on the largest text it takes, 60 calls inside one key's budget, stalls no one", async () => {
      // The pen test sent 126,000 numbers; that is now refused before parsing (more than
      // 25,000 values). This is the most the strict reader may be asked: 24,990, one varied
      // per call so that none is served from the cache.
      const output = (i: number) => `[${i},${'0,'.repeat(24_988)}0]`;
      const body = (i: number) => rpcCall(i, 'verify_output', { output: output(i) });
      const r = await costFlood(`${name} M3 verify_output`, t, { requests: 60, body });
      expect(r.statuses.get(200) ?? 0).toBeGreaterThanOrEqual(55);
      expect([...r.statuses.keys()].filter((s) => s >= 500)).toEqual([]);
      expect(r.flooderAfter).toBe(429);
    }, 180_000);
  });
}

/** How long a costly flood lasts at least. */
const FLOOD_MIN_MS = 4000;
/**
 * Victim calls a costly flood lasts for at least: with 200, p99 is not simply the worst call (with
 * the 91 a slow moment left once, it was), within FLOOD_MAX_MS.
 */
const VICTIM_SAMPLES = 200;
const FLOOD_MAX_MS = 30_000;

const rpcCall = (id: number, name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/**
 * `requests` bodies from a new key, eight in flight (the pen test's M2/M3 set-up), while a second
 * new key calls tools/list one request at a time; the victim's latency before and during, the
 * server's memory, and what the flooding key gets after.
 */
async function costFlood(label: string, t: FloodTarget, spec: { requests: number; body: (i: number) => string }) {
  // The victim's calls go round four keys of its own: each stays inside the proxy's per-principal
  // rate (600 a minute, burst 100) however densely the victim samples.
  const floodKey = await t.newKey('cost-flood');
  const victimKeys = await Promise.all([1, 2, 3, 4].map((n) => t.newKey(`cost-victim-${n}`)));
  const send = (key: string, body: string | Buffer) =>
    rawRequest(`${t.baseUrl}/mcp`, { headers: headersFor(t, key), body, localAddress: t.clientAddress });
  let calls = 0;
  const victim = timed((id) =>
    send(victimKeys[calls++ % victimKeys.length]!, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })),
  );
  const baseline = await baselineOf(victim, 30);
  const memoryBefore = await t.serverMemoryMiB();
  let peakMiB = memoryBefore;
  // The flooder on a thread of its own (flood-sender.mjs), eight in flight: at least `requests`,
  // for at least FLOOD_MIN_MS and until the victim has VICTIM_SAMPLES calls, going round the
  // bodies again (the key over its budget by then, as a runaway loop would be). The whole
  // flood stays inside the limiter's one-minute window, so the budget never refills.
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL('./flood-sender.mjs', import.meta.url), {
    workerData: {
      url: `${t.baseUrl}/mcp`,
      headers: headersFor(t, floodKey),
      localAddress: t.clientAddress,
      bodies: Array.from({ length: spec.requests }, (_, i) => Buffer.from(spec.body(i))),
      inFlight: 8,
      minUntil: Date.now() + FLOOD_MIN_MS,
      deadline: Date.now() + FLOOD_MAX_MS,
      stop,
    },
  });
  let flooding = true;
  const report = once(worker, 'message').finally(() => {
    flooding = false;
  }) as Promise<[{ statuses: [number, number][]; answers: [number, string][] }]>;
  const sampler = (async () => {
    while (flooding) {
      peakMiB = Math.max(peakMiB, await t.serverMemoryMiB());
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  // One call after another, 5 ms apart: enough of them (VICTIM_SAMPLES) that their p99 is not simply their worst.
  const during: { status: number; ms: number }[] = [];
  for (let i = 0; flooding; i++) {
    during.push(await victim(`during-${i}`));
    if (during.length >= VICTIM_SAMPLES) Atomics.store(stop, 0, 1);
    await new Promise((r) => setTimeout(r, 5));
  }
  const [[done]] = await Promise.all([report, sampler]);
  await worker.terminate();
  const statuses = new Map(done.statuses);
  const flooderAfter = (await send(floodKey, rpcCall(9999, 'doctrine_info', {}))).status;

  const base = [...baseline].sort((a, b) => a - b);
  const lat = during.map((d) => d.ms).sort((a, b) => a - b);
  const figures = {
    flood_statuses: Object.fromEntries(statuses),
    flood_answers: Object.fromEntries(done.answers),
    victim_calls: during.length,
    baseline_p50_ms: +percentile(base, 50).toFixed(1),
    baseline_p99_ms: +percentile(base, 99).toFixed(1),
    during_p50_ms: +percentile(lat, 50).toFixed(1),
    during_p99_ms: +percentile(lat, 99).toFixed(1),
    during_max_ms: +(lat.at(-1) ?? 0).toFixed(1),
    memory_before_mib: +memoryBefore.toFixed(1),
    memory_peak_mib: +peakMiB.toFixed(1),
    flooder_after: flooderAfter,
  };
  console.log(`[flood figures] ${label}: ${JSON.stringify(figures)}`);
  // The victim is never refused and keeps its latency: the pen test measured a p50 of 149-232
  // ms (M2) and worst waits of 2.5-9.9 s (M3) against 1-9 ms. The bound is 100 ms at
  // p99 on these stacks; the same run's baseline widens it on a machine other work loads.
  expect(during.filter((d) => d.status !== 200)).toEqual([]);
  expect(during.length).toBeGreaterThanOrEqual(VICTIM_SAMPLES);
  expect(figures.during_p99_ms).toBeLessThan(Math.max(100, 3 * figures.baseline_p99_ms));
  expect(peakMiB).toBeLessThan(t.memoryLimitMiB);
  expect(await t.sameServer()).toBe(true);
  return { statuses, flooderAfter, figures };
}

async function flood(name: string, t: FloodTarget): Promise<void> {
  // 1 MB, the proxy's body limit: 520,000 levels would not fit; the shape is what matters.
  const n = 500_000;
  const deep = '['.repeat(n) + ']'.repeat(n);
  const ping = (i: number | string) =>
    rawRequest(`${t.baseUrl}/mcp`, {
      headers: headersFor(t, t.otherKey),
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
      localAddress: t.clientAddress,
    });
  const victim = timed(ping);
  const baseline = await baselineOf(victim, 20);
  const memoryBefore = await t.serverMemoryMiB();

  let flooding = true;
  const floodStatuses = new Map<number, number>();
  const answers = new Map<number, string>();
  const sender = async () => {
    while (flooding) {
      const r = await rawRequest(`${t.baseUrl}/mcp`, {
        headers: headersFor(t, t.floodKey),
        body: deep,
        localAddress: t.clientAddress,
      }).catch((err: Error) => ({ status: 0, body: err.message }));
      if (!answers.has(r.status)) answers.set(r.status, r.body.slice(0, 160));
      floodStatuses.set(r.status, (floodStatuses.get(r.status) ?? 0) + 1);
    }
  };
  let peakMiB = memoryBefore;
  const sampler = (async () => {
    while (flooding) {
      peakMiB = Math.max(peakMiB, await t.serverMemoryMiB());
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const senders = Array.from({ length: SENDERS }, sender);
  const during: { status: number; ms: number }[] = [];
  const deadline = Date.now() + FLOOD_MS;
  await new Promise((r) => setTimeout(r, 500)); // the flood under way
  for (let i = 0; Date.now() < deadline; i++) {
    during.push(await victim(`flood-${i}`));
    await new Promise((r) => setTimeout(r, 50));
  }
  flooding = false;
  await Promise.all([...senders, sampler]);

  const base = [...baseline].sort((a, b) => a - b);
  const lat = during.map((d) => d.ms).sort((a, b) => a - b);
  const figures = {
    flood_requests: [...floodStatuses.values()].reduce((a, b) => a + b, 0),
    flood_statuses: Object.fromEntries(floodStatuses),
    flood_answers: Object.fromEntries(answers),
    other_calls: during.length,
    baseline_p50_ms: +percentile(base, 50).toFixed(1),
    baseline_p99_ms: +percentile(base, 99).toFixed(1),
    during_p50_ms: +percentile(lat, 50).toFixed(1),
    during_p99_ms: +percentile(lat, 99).toFixed(1),
    memory_before_mib: +memoryBefore.toFixed(1),
    memory_peak_mib: +peakMiB.toFixed(1),
  };
  console.log(`[flood figures] ${name}: ${JSON.stringify(figures)}`);

  // Every flood request was refused (400 for the shape, 429 once the budget was spent);
  // none was served and none broke the server.
  expect([...floodStatuses.keys()].filter((s) => s === 200 || s >= 500)).toEqual([]);
  expect(figures.flood_requests).toBeGreaterThan(SENDERS);
  // The other key was never refused and kept its latency: the pen test measured 1.2-2.1 s
  // against 3 ms. The bound is generous (two cores shared with the flood's own senders) and
  // relative to the baseline measured in the same run.
  expect(during.filter((d) => d.status !== 200)).toEqual([]);
  expect(figures.during_p50_ms).toBeLessThan(Math.max(10 * figures.baseline_p50_ms, 100));
  expect(figures.during_p99_ms).toBeLessThan(Math.max(20 * figures.baseline_p99_ms, 500));
  expect(peakMiB).toBeLessThan(t.memoryLimitMiB);
  expect(await t.sameServer()).toBe(true);
  expect((await ping('after')).status).toBe(200);
}
