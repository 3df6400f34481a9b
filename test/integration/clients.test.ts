// Both protocol eras, end to end: the v1 client (2025-11-25) and the v2 client negotiating
// ('auto') or pinned to 2026-07-28 connect over stdio and HTTP and call every tool.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/signing/canonical.js';
import { rawRequest, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { CLIENT_KINDS, connectClient, exerciseEveryTool } from '../helpers/mcp-clients.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

describe('official MCP clients of both eras', () => {
  const dataDir = tempDir('signet-clients-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer({
      SIGNET_DATA_DIR: dataDir,
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_RATE_LIMIT_PER_MINUTE: '1000',
      // 120 requests at once from one address: room for all of them in flight (the bound has its own tests).
      SIGNET_MAX_CONCURRENT_BODIES: '200',
      SIGNET_MAX_CONCURRENT_BODIES_PER_PRINCIPAL: '200',
    });
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
    const client = await connectClient(kind, {
      stdio: { SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_LOG_LEVEL: 'warn' },
    });
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
      for (const endpoint of [
        { http: server.url },
        { stdio: { SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_LOG_LEVEL: 'warn' } },
      ]) {
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

  it('keeps concurrent clients of both eras apart: each answer carries its own id and its own result (GHSA-345p-7cg4-v4c7)', async () => {
    // 120 requests from 120 connections, issued at once and interleaved: the two eras, three
    // tools with per-request arguments, lists and reads, and refusals, each with its own id.
    const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const kinds = ['search', 'get', 'evaluate', 'list', 'read', 'bad-name'] as const;
    const requests = Array.from({ length: 120 }, (_, i) => {
      const modern = i % 2 === 1;
      const kind = kinds[Math.floor(i / 2) % kinds.length]!;
      const id = modern ? `client-${i}` : i * 1000 + 7;
      const params: Record<string, unknown> =
        kind === 'search'
          ? { name: 'doctrine_search', arguments: { query: `rule ${i}`, limit: 1 + (i % 5) } }
          : kind === 'get'
            ? { name: 'doctrine_get', arguments: { id: ['AUTH-001', 'TLS-001', 'AUTH-002'][i % 3] } }
            : kind === 'evaluate'
              ? { name: 'doctrine_evaluate', arguments: { facts: { transport: { kind: 'http' }, tls: { enabled: i % 4 === 0 } } } }
              : kind === 'read'
                ? { uri: 'doctrine://rules/TLS-001' }
                : kind === 'bad-name'
                  ? { name: `no_such_tool_${i}`, arguments: {} }
                  : {};
      const method = kind === 'list' ? 'tools/list' : kind === 'read' ? 'resources/read' : 'tools/call';
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (modern) {
        params['_meta'] = ENVELOPE;
        Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method });
        const name = method === 'tools/call' ? params['name'] : method === 'resources/read' ? params['uri'] : undefined;
        if (typeof name === 'string') headers['mcp-name'] = name;
      }
      return { i, modern, kind, id, params, headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) };
    });
    const answers = await Promise.all(requests.map((r) => rawRequest(server.url, { headers: r.headers, body: r.body })));
    for (const [n, r] of requests.entries()) {
      const body = answers[n]!.json();
      expect(body.id, `request ${r.i}`).toBe(r.id);
      if (r.kind === 'bad-name') {
        expect(body.error.message).toBe(`Unknown tool: no_such_tool_${r.i}. tools/list names the available tools.`);
        continue;
      }
      // Only 2026-07-28 answers carry resultType and serverInfo.
      expect(body.result.resultType, `request ${r.i}`).toBe(r.modern ? 'complete' : undefined);
      if (r.kind === 'list') expect(body.result.tools).toHaveLength(6);
      else if (r.kind === 'read') expect(body.result.contents[0].uri).toBe('doctrine://rules/TLS-001');
      else {
        const sc = body.result.structuredContent;
        expect(sc.tool).toBe((r.params as { name: string }).name);
        const args = (r.params as { arguments: Record<string, unknown> }).arguments;
        if (r.kind === 'search') {
          expect(sc.result.query).toBe(args['query']);
          expect(sc.result.hits.length).toBeLessThanOrEqual(args['limit'] as number);
        }
        if (r.kind === 'get') expect(sc.result.id ?? sc.result.rule?.id).toBe(args['id']);
        expect(sc.input_hash).toBe(`sha256:${createHash('sha256').update(canonicalJson(args)).digest('hex')}`);
      }
    }
  });
});
