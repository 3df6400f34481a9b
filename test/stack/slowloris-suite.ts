// Issue 17, M3: slowloris against the proxy without a key. 2,200 connections that trickle a
// header byte every two seconds took half of the legitimate requests down when nginx had 1024
// connections per worker. Now: legitimate calls keep succeeding during the attack, and one
// address's slow bodies are capped by limit_conn (429 past SIGNET_PROXY_CONNECTIONS_PER_CLIENT).
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/http-server.js';

export interface SlowlorisTarget {
  baseUrl: string;
  key: string;
  /** Where legitimate calls come from, and where the attack comes from (the same on compose: the host). */
  clientAddress?: string;
  attackAddress?: string;
  /** SIGNET_PROXY_CONNECTIONS_PER_CLIENT as the target runs it. */
  connectionsPerClient: number;
  stop(): Promise<void>;
}

const SLOW = 2200;
const ATTACK_MS = 8000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function openSlow(url: URL, localAddress: string | undefined, firstBytes: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress }, () => {
      socket.write(firstBytes);
      resolve(socket);
    });
    socket.on('error', () => resolve(null));
  });
}

export function defineSlowlorisSuite(name: string, start: () => Promise<SlowlorisTarget>): void {
  let started: Promise<SlowlorisTarget> | null = null;
  const getTarget = () => (started ??= start());
  describe(`${name}: slowloris against the proxy (M3)`, () => {
    afterAll(async () => {
      if (started) await (await started).stop();
    });

    it(`keeps serving legitimate calls while ${SLOW} connections trickle their headers`, async () => {
      const t = await getTarget();
      const url = new URL(t.baseUrl);
      const sockets: Socket[] = [];
      let answeredEarly = 0;
      try {
        for (let i = 0; i < SLOW; i += 200) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(200, SLOW - i) }, () =>
              openSlow(url, t.attackAddress, `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\n`),
            ),
          );
          for (const s of batch) if (s) sockets.push(s);
        }
        for (const s of sockets) s.on('data', () => answeredEarly++);
        const trickle = setInterval(() => {
          for (const s of sockets) if (!s.destroyed) s.write('X');
        }, 2000);
        const latencies: number[] = [];
        const statuses: number[] = [];
        const deadline = Date.now() + ATTACK_MS;
        try {
          while (Date.now() < deadline) {
            const start = performance.now();
            const r = await rawRequest(`${t.baseUrl}/mcp`, {
              headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
              body: JSON.stringify({ jsonrpc: '2.0', id: statuses.length, method: 'tools/list' }),
              localAddress: t.clientAddress,
            }).catch(() => ({ status: 0 }));
            latencies.push(performance.now() - start);
            statuses.push(r.status);
            await new Promise((res) => setTimeout(res, 100));
          }
        } finally {
          clearInterval(trickle);
        }
        const sorted = [...latencies].sort((a, b) => a - b);
        const alive = sockets.filter((s) => !s.destroyed).length;
        console.log(
          `[slowloris figures] ${name}: ${JSON.stringify({
            slow_connections: sockets.length,
            still_open_at_end: alive,
            legitimate_calls: statuses.length,
            legitimate_ok: statuses.filter((s) => s === 200).length,
            p50_ms: +percentile(sorted, 50).toFixed(1),
            p99_ms: +percentile(sorted, 99).toFixed(1),
          })}`,
        );
        expect(sockets.length).toBe(SLOW);
        // The attack held its connections (nginx neither refused nor answered them)...
        expect(alive).toBeGreaterThan(SLOW * 0.95);
        expect(answeredEarly).toBe(0);
        // ...and every legitimate call went through.
        expect(statuses.length).toBeGreaterThan(20);
        expect(statuses.filter((s) => s !== 200)).toEqual([]);
      } finally {
        for (const s of sockets) s.destroy();
      }
    }, 60_000);

    it('caps the connections one address holds with slow bodies (limit_conn): 429 past the cap, and the address is served again once they close', async () => {
      const t = await getTarget();
      const url = new URL(t.baseUrl);
      const over = 8;
      const head = `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
      const sockets: Socket[] = [];
      const answers: string[] = [];
      try {
        for (let i = 0; i < t.connectionsPerClient + over; i++) {
          const s = await openSlow(url, t.attackAddress, head);
          if (!s) continue;
          s.on('data', (d: Buffer) => answers.push(d.toString('latin1')));
          sockets.push(s);
        }
        await new Promise((res) => setTimeout(res, 1000));
        const refused = answers.filter((a) => a.startsWith('HTTP/1.1 429'));
        expect(refused.length).toBeGreaterThanOrEqual(over);
        expect(refused.length).toBeLessThanOrEqual(over + 2);
        expect(refused[0]).toMatch(/"error":"too_many_requests"/);
      } finally {
        for (const s of sockets) s.destroy();
      }
      await new Promise((res) => setTimeout(res, 300));
      const after = await rawRequest(`${t.baseUrl}/mcp`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/list' }),
        localAddress: t.attackAddress,
      });
      expect(after.status).toBe(200);
    }, 60_000);
  });
}
