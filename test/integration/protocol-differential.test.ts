// The official SDKs are the oracle: every request of the corpus goes through Signet's router
// and through the SDKs (v1 for 2025-era traffic, v2 createMcpHandler for both eras), and the
// answers must be the same bytes, status and content type. Where an SDK is wrong for this
// server, a named disagreement below says why and asserts what Signet answers instead.
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/protocol/router.js';
import { testContext } from '../helpers/context.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { v1Oracle, v2Oracle, type Answer } from '../helpers/sdk-oracles.js';
import { corpus, type Case } from './protocol-corpus.js';

interface Disagreement {
  why: string;
  /** Which SDK is wrong here, for which cases. */
  applies(c: Case, sdk: 'v1' | 'v2'): boolean;
  /** What Signet answers instead (asserted). */
  expect(mine: Answer, sdkAnswer: Answer): void;
}

const error = (a: Answer) => (JSON.parse(a.body) as { error: { code: number; message: string } }).error;
const named = (...names: string[]) => (c: Case) => names.some((n) => c.name === n);

const DISAGREEMENTS: Record<string, Disagreement> = {
  'invalid-params-wording': {
    why: 'The SDKs answer malformed params with their schema library\'s issue list as the message (v1, and v2 for initialize and resources/read, even as -32603 Internal error). Signet answers -32602 Invalid params with one sentence naming the field.',
    applies: (c) => /tools\/call (without params|without a name|name not a string|arguments an array)|initialize (without params|with a numeric version)|resources\/read without uri/.test(c.name),
    expect: (mine) => {
      expect(mine.status).toBe(200);
      expect(error(mine).code).toBe(-32602);
      expect(error(mine).message).toMatch(/^Invalid params: \S+ .*(params|protocolVersion|name|uri|arguments)/);
    },
  },
  'legacy-resource-not-found': {
    why: "v2's 2025-era leg reports an unknown resource as -32602; the 2025 revisions define -32002 for it, which v1 and Signet answer.",
    applies: (c, sdk) => sdk === 'v2' && c.era === 'legacy' && /resources\/read (doctrine:\/\/nope|file:)/.test(c.name),
    expect: (mine) => expect(error(mine).code).toBe(-32002),
  },
  'batch-answer-order': {
    why: 'v2 answers the members of a batch in the order they finish; Signet answers in request order, deterministically (JSON-RPC leaves the order open).',
    applies: (c, sdk) => sdk === 'v2' && Array.isArray(c.payload) && c.payload.length > 1,
    expect: (mine, sdk) => {
      const ids = (a: Answer) => (JSON.parse(a.body) as { id: unknown }[]).map((m) => JSON.stringify(m));
      expect(ids(mine).sort()).toEqual(ids(sdk).sort());
    },
  },
  'v1-invalid-message': {
    why: 'v1 answers a message that is not JSON-RPC with -32700 Parse error and id null. The JSON was parsed; JSON-RPC 2.0 calls this -32600 Invalid Request, as v2 and Signet answer.',
    applies: (c, sdk) => sdk === 'v1' && /legacy: (id (null|float|object|array|boolean)|jsonrpc 1\.0|no jsonrpc member|method not a string|params an array|a JSON (string|number)|an object that is no message|null|batch with an invalid element)$/.test(c.name),
    expect: (mine) => {
      expect(mine.status).toBe(400);
      expect(error(mine).code).toBe(-32600);
    },
  },
  'v1-empty-batch': {
    why: 'v1 accepts an empty batch with 202. JSON-RPC 2.0 makes it an Invalid Request, as v2 and Signet answer.',
    applies: (c, sdk) => sdk === 'v1' && named('legacy: empty batch')(c),
    expect: (mine) => expect([mine.status, error(mine).code]).toEqual([400, -32600]),
  },
  'legacy-headers-must-not-contradict': {
    why: 'The SDKs ignore Mcp-Method and Mcp-Name on 2025-era requests. Signet refuses them (-32020) when they contradict the body or label a batch, so a gateway that limits or routes by these headers (docs/proxy.md) cannot be fooled by a 2025-era client.',
    applies: named('legacy: tools/call with a contradicting Mcp-Name', 'legacy: tools/call disguised by Mcp-Method', 'legacy: batch carrying Mcp-Name'),
    expect: (mine) => expect([mine.status, error(mine).code]).toEqual([400, -32020]),
  },
  'batches-removed-in-2025-06-18': {
    why: 'Both SDKs accept a batch from a client that declared 2025-06-18, the revision that removed JSON-RPC batching. Signet refuses it (a client without the header is 2025-03-26, which allowed them).',
    applies: named('legacy: batch under MCP-Protocol-Version 2025-06-18'),
    expect: (mine) => {
      expect(mine.status).toBe(400);
      expect(error(mine)).toMatchObject({ code: -32600, message: expect.stringMatching(/2025-06-18 does not allow JSON-RPC batches/) });
    },
  },
};

describe('the router answers like the official MCP SDKs', () => {
  const ctx = testContext({ SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_CACHE_ENTRIES: '0' });
  const router = new Router(ctx);
  const v1 = v1Oracle(ctx);
  const v2 = v2Oracle(ctx);
  const cases = corpus();
  const used = new Set<string>();

  const mine = (c: Case): Answer => {
    const h = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const r = router.route(c.payload, { transport: 'http', headers: { protocolVersion: h['mcp-protocol-version'], method: h['mcp-method'], name: h['mcp-name'] } });
    return { status: r.status, contentType: r.body === null ? null : 'application/json', body: r.body ?? '' };
  };

  function compare(c: Case, sdk: 'v1' | 'v2', ours: Answer, theirs: Answer): void {
    if (ours.status === theirs.status && ours.body === theirs.body && ours.contentType === theirs.contentType) return;
    const rule = Object.entries(DISAGREEMENTS).find(([, d]) => d.applies(c, sdk));
    if (!rule) {
      expect.fail(`${c.name}: differs from ${sdk}\n  signet ${ours.status} ${ours.body.slice(0, 400)}\n  ${sdk}     ${theirs.status} ${theirs.body.slice(0, 400)}`);
    }
    used.add(rule[0]);
    rule[1].expect(ours, theirs);
  }

  it('has a corpus of at least 200 requests over both eras', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => c.era === 'modern').length).toBeGreaterThanOrEqual(80);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const ours = mine(c);
    compare(c, 'v2', ours, await v2(c.payload, c.headers));
    if (c.era === 'legacy') compare(c, 'v1', ours, await v1(c.payload, c.headers));
  });

  it('every documented disagreement is still real (none is stale)', () => {
    expect([...used].sort()).toEqual(Object.keys(DISAGREEMENTS).sort());
  });
});
