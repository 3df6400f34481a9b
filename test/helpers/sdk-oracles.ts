// The official MCP SDKs, wired over Signet's own context the way an SDK server would be, and
// served over HTTP by the same @hono/node-server Signet runs on, so status, headers and bytes
// can be compared one for one: the v1 low-level Server with a stateless Streamable HTTP
// transport per request (what Signet ran before its router, JSON responses) and the v2
// createMcpHandler serving both eras (JSON response mode). The differential test holds the
// router to their answers.
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, ResourceNotFoundError, Server as ServerV2 } from '@modelcontextprotocol/server';
import type { AppContext } from '../../src/context.js';
import { CACHE_TTL_MS, instructions } from '../../src/protocol/answers.js';

export type FetchHandler = (request: Request) => Promise<Response>;

const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } };

function callTool(ctx: AppContext, name: string, args: unknown) {
  if (!ctx.tools.has(name))
    throw Object.assign(new Error(`Unknown tool: ${name}. tools/list names the available tools.`), { code: -32602 });
  return ctx.tools.call(name, args).result;
}

/** A read, or the SDK's own resource-not-found error (v1: -32002 with data.uri; v2: ResourceNotFoundError). */
function readResource(ctx: AppContext, uri: string, sdk: 'v1' | 'v2') {
  const found = ctx.resources.read(uri);
  if (found) return found;
  throw sdk === 'v1'
    ? Object.assign(new Error(`Resource not found: ${uri}`), { code: -32002, data: { uri } })
    : new ResourceNotFoundError(uri);
}

/** The v1 SDK path Signet used before the router: a fresh low-level Server and transport per request. */
export function v1Oracle(ctx: AppContext): FetchHandler {
  return async (request) => {
    const server = new ServerV1(ctx.serverInfo, { capabilities: CAPABILITIES, instructions: instructions(ctx) });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ctx.tools.toolList }) as never);
    server.setRequestHandler(CallToolRequestSchema, (r) => callTool(ctx, r.params.name, r.params.arguments) as never);
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: ctx.resources.list }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: ctx.resources.templates }));
    server.setRequestHandler(ReadResourceRequestSchema, (r) => readResource(ctx, r.params.uri, 'v1') as never);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const r = await transport.handleRequest(request);
      // Buffer the answer before the server closes, as a per-request server must.
      return new Response(r.status === 202 || r.body === null ? null : await r.arrayBuffer(), { status: r.status, headers: r.headers });
    } finally {
      await transport.close();
      await server.close();
    }
  };
}

/** The v2 SDK's dual-era entry, with cache hints set the way Signet sets them. */
export function v2Oracle(ctx: AppContext): FetchHandler {
  const hint = { ttlMs: CACHE_TTL_MS, cacheScope: 'public' as const };
  const handler = createMcpHandler(
    () => {
      const server = new ServerV2(ctx.serverInfo, {
        capabilities: CAPABILITIES,
        instructions: instructions(ctx),
        cacheHints: {
          'server/discover': hint,
          'tools/list': hint,
          'resources/list': hint,
          'resources/templates/list': hint,
          'resources/read': hint,
        },
      });
      server.setRequestHandler('tools/list', () => ({ tools: ctx.tools.toolList }) as never);
      server.setRequestHandler('tools/call', (r) => callTool(ctx, r.params.name, r.params.arguments) as never);
      server.setRequestHandler('resources/list', () => ({ resources: ctx.resources.list }) as never);
      server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: ctx.resources.templates }) as never);
      server.setRequestHandler('resources/read', (r) => readResource(ctx, r.params.uri, 'v2') as never);
      return server;
    },
    { responseMode: 'json' },
  );
  return (request) => handler.fetch(request);
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves a fetch handler on a loopback port with @hono/node-server, as Signet is served (its default keep-alive too). */
export async function serveFetch(handler: FetchHandler): Promise<Served> {
  let server: ServerType;
  await new Promise<void>((resolve) => {
    server = serve({ fetch: handler, hostname: '127.0.0.1', port: 0, serverOptions: { keepAliveTimeout: 65_000 } }, () => resolve());
  });
  const port = (server!.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** SSE frames (v2's 2025-era leg streams even in JSON mode) as the JSON body the same messages make. */
export function unframe(text: string): string {
  const data = text
    .split('\n\n')
    .map((frame) =>
      frame
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice(6),
    )
    .filter((d): d is string => d !== undefined);
  return data.length === 1 ? data[0]! : `[${data.join(',')}]`;
}
