// Both protocol eras, end to end: the v1 client (2025-11-25) and the v2 client negotiating
// ('auto') or pinned to 2026-07-28 connect over stdio and HTTP and call every tool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_KINDS, connectClient, exerciseEveryTool } from '../helpers/mcp-clients.js';
import { rawRequest, rpc, startHttpServer, type ServerProcess } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

describe('official MCP clients of both eras', () => {
  const dataDir = tempDir('signet-clients-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => server?.stop());

  it.each(CLIENT_KINDS)('%s over HTTP', async (kind) => {
    const client = await connectClient(kind, { http: server.url });
    try {
      await exerciseEveryTool(client);
    } finally {
      await client.close();
    }
  });

  it.each(CLIENT_KINDS)('%s over stdio', async (kind) => {
    const client = await connectClient(kind, { stdio: { SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_LOG_LEVEL: 'warn' } });
    try {
      await exerciseEveryTool(client);
    } finally {
      await client.close();
    }
  });

  it('signs the same bytes for the same call in both eras and over both transports', async () => {
    const args = { id: 'AUTH-001' };
    const texts = new Set<string>();
    for (const kind of CLIENT_KINDS) {
      for (const endpoint of [{ http: server.url }, { stdio: { SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_LOG_LEVEL: 'warn' } }]) {
        const client = await connectClient(kind, endpoint);
        try {
          const r = await client.callTool('doctrine_get', args);
          texts.add((r['content'] as { text: string }[])[0]!.text);
        } finally {
          await client.close();
        }
      }
    }
    expect(texts.size).toBe(1);
  });

  it('keeps concurrent clients apart: each answer carries its own id and its own result', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => i);
    const answers = await Promise.all(
      ids.map((i) =>
        rawRequest(server.url, {
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: rpc('tools/call', { name: 'doctrine_search', arguments: { query: `rule ${i % 7}`, limit: 1 + (i % 5) } }, `client-${i}`),
        }),
      ),
    );
    for (const [i, r] of answers.entries()) {
      const body = r.json();
      expect(body.id).toBe(`client-${i}`);
      const sc = body.result.structuredContent;
      expect(sc.tool).toBe('doctrine_search');
      expect(sc.result.hits.length).toBeLessThanOrEqual(1 + (i % 5));
      expect(sc.result.query).toBe(`rule ${i % 7}`);
    }
  });
});
