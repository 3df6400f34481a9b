// The official SDKs are the oracle: every request of the corpus goes over HTTP to the built
// Signet server (the whole edge and the router) and to the SDKs served by the same
// @hono/node-server (v1 for 2025-era traffic, v2 createMcpHandler for both eras), and the
// answers must agree in status, headers and bytes. Two headers are left out of the comparison,
// and only those: Date (the clock) and X-Request-Id (a fresh random id per request, which only
// Signet sends). Where an SDK is wrong for this server, a named disagreement below says why and
// asserts what Signet answers instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext } from '../helpers/context.js';
import { JSON_HEADERS, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { type Served, serveFetch, unframe, v1Oracle, v2Oracle } from '../helpers/sdk-oracles.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { type Case, corpus } from './protocol-corpus.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
type Sdk = 'v1' | 'v2';

interface Disagreement {
  why: string;
  /** Which SDK is wrong here, for which cases. */
  applies(c: Case, sdk: Sdk): boolean;
  /** What Signet answers instead (asserted). */
  expect(mine: Answer, sdkAnswer: Answer): void;
}

const UNCOMPARED = new Set(['date', 'x-request-id']);
/**
 * v2's 2025-era leg answers requests as an SSE stream even in JSON response mode. Signet
 * answers JSON, as v1 in JSON mode does: the stream's data must be the same bytes as Signet's
 * body, and for those answers the headers are compared with v1's (every legacy case is).
 */
let v2StreamedLegacy = 0;
const error = (a: Answer) => (JSON.parse(a.body) as { error: { code: number; message: string } }).error;
const named =
  (...names: string[]) =>
  (c: Case) =>
    names.some((n) => c.name === n);

const DISAGREEMENTS: Record<string, Disagreement> = {
  'invalid-params-wording': {
    why:
      "The SDKs answer malformed params with their schema library's issue list as the message (v1, and v2 for initialize " +
      'and resources/read, even as -32603 Internal error). Signet answers -32602 Invalid params with one sentence naming ' +
      'the field.',
    applies: (c) =>
      [
        'tools/call without params',
        'tools/call without a name',
        'tools/call name not a string',
        'tools/call arguments an array',
        'initialize without params',
        'initialize with a numeric version',
        'resources/read without uri',
      ].some((n) => c.name.endsWith(n)),
    expect: (mine) => {
      expect(mine.status).toBe(200);
      expect(error(mine).code).toBe(-32602);
      expect(error(mine).message).toMatch(/^Invalid params: \S+ .*(params|protocolVersion|name|uri|arguments)/);
    },
  },
  'legacy-resource-not-found': {
    why:
      "v2's 2025-era leg reports an unknown resource as -32602; the 2025 revisions define -32002 for it (with data.uri), " +
      'which v1 and Signet answer.',
    applies: (c, sdk) => sdk === 'v2' && c.era === 'legacy' && /resources\/read (doctrine:\/\/nope|file:)/.test(c.name),
    expect: (mine) => expect(JSON.parse(mine.body).error).toMatchObject({ code: -32002, data: { uri: expect.any(String) } }),
  },
  'batch-answer-order': {
    why:
      'v2 answers the members of a batch in the order they finish; Signet answers in request order, deterministically ' +
      '(JSON-RPC leaves the order open).',
    applies: (c, sdk) => sdk === 'v2' && Array.isArray(c.payload) && c.payload.length > 1,
    expect: (mine, sdk) => {
      const ids = (a: Answer) => (JSON.parse(a.body) as { id: unknown }[]).map((m) => JSON.stringify(m));
      expect(ids(mine).sort()).toEqual(ids(sdk).sort());
    },
  },
  'v1-invalid-message': {
    why:
      'v1 answers a message that is not JSON-RPC with -32700 Parse error and id null. The JSON was parsed; JSON-RPC 2.0 ' +
      'calls this -32600 Invalid Request, as v2 and Signet answer.',
    applies: (c, sdk) =>
      sdk === 'v1' &&
      [
        ...['null', 'float', 'object', 'array', 'boolean'].map((t) => `id ${t}`),
        'jsonrpc 1.0',
        'no jsonrpc member',
        'method not a string',
        'params an array',
        'a JSON string',
        'a JSON number',
        'an object that is no message',
        'null',
        'batch with an invalid element',
      ].some((n) => c.name === `legacy: ${n}`),
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
    why:
      'The SDKs ignore Mcp-Method and Mcp-Name on 2025-era requests. Signet refuses them (-32020) when they contradict ' +
      'the body or label a batch, so a gateway that limits or routes by these headers (docs/proxy.md) cannot be fooled by ' +
      'a 2025-era client.',
    applies: named(
      'legacy: tools/call with a contradicting Mcp-Name',
      'legacy: tools/call disguised by Mcp-Method',
      'legacy: batch carrying Mcp-Name',
    ),
    expect: (mine) => expect([mine.status, error(mine).code]).toEqual([400, -32020]),
  },
  'batches-removed-in-2025-06-18': {
    why:
      'Both SDKs accept a batch from a client that declared 2025-06-18, the revision that removed JSON-RPC batching. ' +
      'Signet refuses it (a client without the header is 2025-03-26, which allowed them).',
    applies: named('legacy: batch under MCP-Protocol-Version 2025-06-18'),
    expect: (mine) => {
      expect(mine.status).toBe(400);
      expect(error(mine)).toMatchObject({ code: -32600, message: expect.stringMatching(/2025-06-18 does not allow JSON-RPC batches/) });
    },
  },
  'json-only-clients': {
    why:
      'The SDKs refuse (406) a client whose Accept lists application/json without text/event-stream, although in JSON ' +
      'response mode they never stream, and refuse Accept: */* too (an RFC 9110 wildcard that admits both). Signet only ' +
      'ever answers JSON, so it serves any client that accepts JSON (and refuses one that accepts only ' +
      'text/event-stream).',
    applies: named('legacy: Accept application/json only', 'legacy: Accept */*'),
    expect: (mine, sdk) => {
      expect(sdk.status).toBe(406);
      expect(mine.status).toBe(200);
      expect(JSON.parse(mine.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: expect.any(Object) });
    },
  },
  'edge-refusals-wording': {
    why:
      'Refusals at the HTTP edge (malformed JSON, an empty body, a wrong Content-Type, an Accept without JSON, a DELETE ' +
      "on a stateless server) carry the same status and JSON-RPC code as the SDKs' but Signet's own message; a 405 also " +
      'carries Allow: POST.',
    applies: (c, sdk) =>
      /(malformed JSON|empty body|text\/plain content type|Accept text\/event-stream only)/.test(c.name) ||
      (sdk === 'v2' && /DELETE \/mcp/.test(c.name)),
    expect: (mine, sdk) => {
      expect(mine.status).toBe(sdk.status);
      expect(error(mine).code).toBe(error(sdk).code);
      expect(mine.headers['content-type']).toBe('application/json');
    },
  },
  'v1-stateless-delete': {
    why:
      'v1 answers DELETE /mcp with 200 on a stateless transport, where there is no session to end; v2 and Signet answer ' +
      '405 Method Not Allowed.',
    applies: (c, sdk) => sdk === 'v1' && named('legacy: DELETE /mcp')(c),
    expect: (mine) => {
      expect(mine.status).toBe(405);
      expect(mine.headers['allow']).toBe('POST');
    },
  },
};

describe('the router and its HTTP edge answer like the official MCP SDKs', () => {
  const dataDir = tempDir('signet-differential-');
  const env = {
    SIGNET_DATA_DIR: dataDir,
    SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
    SIGNET_CACHE_ENTRIES: '0',
    SIGNET_RATE_LIMIT_PER_MINUTE: '0',
    SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0',
  };
  const cases = corpus();
  const used = new Set<string>();
  let signet: ServerProcess;
  let v1: Served;
  let v2: Served;

  beforeAll(async () => {
    signet = await startHttpServer(env);
    // The oracles sign with the same key and doctrine as the server (same data dir).
    const ctx = testContext(env);
    v1 = await serveFetch(v1Oracle(ctx));
    v2 = await serveFetch(v2Oracle(ctx));
  });
  afterAll(async () => {
    await signet?.stop();
    await v1?.close();
    await v2?.close();
  });

  async function send(url: string, c: Case): Promise<Answer> {
    const method = c.httpMethod ?? 'POST';
    const r = await fetch(url, {
      method,
      headers: { ...JSON_HEADERS, ...c.headers },
      body: method === 'POST' ? (c.raw ?? JSON.stringify(c.payload)) : undefined,
    });
    const headers: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      if (!UNCOMPARED.has(k)) headers[k] = v;
    });
    return { status: r.status, headers, body: await r.text() };
  }

  function compare(c: Case, sdk: Sdk, ours: Answer, theirs: Answer): void {
    if (ours.status === theirs.status && ours.body === theirs.body && JSON.stringify(ours.headers) === JSON.stringify(theirs.headers))
      return;
    const rules = Object.entries(DISAGREEMENTS).filter(([, d]) => d.applies(c, sdk));
    if (rules.length === 0) {
      expect.fail(
        `${c.name}: differs from ${sdk}\n` +
          `  signet ${ours.status} ${JSON.stringify(ours.headers)} ${ours.body.slice(0, 400)}\n` +
          `  ${sdk}     ${theirs.status} ${JSON.stringify(theirs.headers)} ${theirs.body.slice(0, 400)}`,
      );
    }
    for (const [name, rule] of rules) {
      used.add(name);
      rule.expect(ours, theirs);
    }
  }

  it('has a corpus of at least 200 requests over both eras', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => c.era === 'modern').length).toBeGreaterThanOrEqual(80);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const ours = await send(signet.url, c);
    const fromV2 = await send(v2.url, c);
    if (c.era === 'legacy' && fromV2.headers['content-type'] === 'text/event-stream') {
      v2StreamedLegacy++;
      compare(c, 'v2', ours, { ...fromV2, headers: ours.headers, body: unframe(fromV2.body) });
    } else compare(c, 'v2', ours, fromV2);
    if (c.era === 'legacy') compare(c, 'v1', ours, await send(v1.url, c));
  });

  it('every documented disagreement is still real (none is stale)', () => {
    expect([...used].sort()).toEqual(Object.keys(DISAGREEMENTS).sort());
    expect(v2StreamedLegacy).toBeGreaterThan(50);
  });
});
