// The official MCP SDKs, wired over Signet's own context the way an SDK server would be:
// the v1 low-level Server with a stateless Streamable HTTP transport per request (what
// Signet ran before its router, JSON responses) and the v2 createMcpHandler serving both
// eras (JSON response mode). The differential test holds the router to their bytes.
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, Server as ServerV2 } from '@modelcontextprotocol/server';
import type { AppContext } from '../../src/context.js';
import { CACHE_TTL_MS, instructions } from '../../src/protocol/answers.js';

export interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

export type Headers = Record<string, string>;

function callTool(ctx: AppContext, name: string, args: unknown) {
  if (!ctx.tools.has(name)) throw Object.assign(new Error(`Unknown tool: ${name}. tools/list names the available tools.`), { code: -32602 });
  return ctx.tools.call(name, args).result;
}
function readResource(ctx: AppContext, uri: string) {
  const found = ctx.resources.read(uri);
  if (!found) throw Object.assign(new Error(`Resource not found: ${uri}`), { code: -32002 });
  return found;
}

/** The v1 SDK path Signet used before the router: fresh low-level Server + transport per request. */
export function v1Oracle(ctx: AppContext): (payload: unknown, headers: Headers) => Promise<Answer> {
  return async (payload, headers) => {
    const server = new ServerV1(ctx.serverInfo, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: instructions(ctx),
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ctx.tools.toolList }) as never);
    server.setRequestHandler(CallToolRequestSchema, (r) => callTool(ctx, r.params.name, r.params.arguments) as never);
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: ctx.resources.list }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: ctx.resources.templates }));
    server.setRequestHandler(ReadResourceRequestSchema, (r) => readResource(ctx, r.params.uri) as never);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const request = new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
      const r = await transport.handleRequest(request, { parsedBody: payload });
      return { status: r.status, contentType: r.headers.get('content-type'), body: await r.text() };
    } finally {
      await transport.close();
      await server.close();
    }
  };
}

/** SSE frames of the v2 legacy leg, as the JSON body the same messages make (one, or a batch array). */
function unframe(text: string): string {
  const data = text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: '))?.slice(6))
    .filter((d): d is string => d !== undefined);
  return data.length === 1 ? data[0]! : `[${data.join(',')}]`;
}

/** The v2 SDK's dual-era entry, with cache hints set the way Signet sets them. */
export function v2Oracle(ctx: AppContext): (payload: unknown, headers: Headers, raw?: string) => Promise<Answer & { framed: boolean }> {
  const hint = { ttlMs: CACHE_TTL_MS, cacheScope: 'public' as const };
  const handler = createMcpHandler(
    () => {
      const server = new ServerV2(ctx.serverInfo, {
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
        instructions: instructions(ctx),
        cacheHints: { 'server/discover': hint, 'tools/list': hint, 'resources/list': hint, 'resources/templates/list': hint, 'resources/read': hint },
      });
      server.setRequestHandler('tools/list', () => ({ tools: ctx.tools.toolList }) as never);
      server.setRequestHandler('tools/call', (r) => callTool(ctx, r.params.name, r.params.arguments) as never);
      server.setRequestHandler('resources/list', () => ({ resources: ctx.resources.list }) as never);
      server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: ctx.resources.templates }) as never);
      server.setRequestHandler('resources/read', (r) => readResource(ctx, r.params.uri) as never);
      return server;
    },
    { responseMode: 'json' },
  );
  return async (payload, headers, raw) => {
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: raw ?? JSON.stringify(payload),
    });
    const r = await handler.fetch(request);
    const contentType = r.headers.get('content-type');
    const text = await r.text();
    const framed = contentType === 'text/event-stream';
    return { status: r.status, contentType: framed ? 'application/json' : contentType, body: framed ? unframe(text) : text, framed };
  };
}
