import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AppContext } from './context.js';
import { SignetError } from './errors.js';
import { ajv } from './schema/ajv.js';

/** JSON-RPC code for an unknown resource URI (MCP specification). */
export const RESOURCE_NOT_FOUND = -32002;

// Stateless and reusable across Server instances; a fresh one per instance would
// compile Ajv's meta-schemas on every HTTP request.
const sharedValidator = new AjvJsonSchemaValidator(ajv);

function instructions(ctx: AppContext): string {
  const m = ctx.doctrine.meta;
  return (
    `Signet answers from the doctrine "${m.title}" ${m.version} (${ctx.footer.doctrine_hash}). ` +
    'Start with doctrine_info; find rules and documents with doctrine_search and doctrine_get; ' +
    'check a deployment with doctrine_evaluate. Every tool result is signed (structuredContent.footer); ' +
    'verify_output or `signet verify` checks a result.'
  );
}

/**
 * A fresh MCP server over the shared, read-only context. Cheap to build: tool
 * definitions, schemas, validators, resources and signatures all live in the context,
 * so HTTP can afford one server per request (no shared per-request state).
 */
export function createServer(ctx: AppContext): Server {
  // The low-level Server: tools/list is prebuilt, and every tools/call, including
  // invalid arguments, must come back as a signed result (McpServer answers those itself).
  const server = new Server(ctx.serverInfo, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: instructions(ctx),
    jsonSchemaValidator: sharedValidator,
  });
  const tools = { tools: ctx.tools.toolList };
  server.setRequestHandler(ListToolsRequestSchema, () => tools);
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    try {
      return ctx.tools.call(request.params.name, request.params.arguments).result;
    } catch (err) {
      if (err instanceof SignetError && err.code === 'unknown_tool') {
        // A plain error with a code: McpError would prefix "MCP error -32602:" to the wire message.
        throw Object.assign(new Error(`Unknown tool: ${request.params.name}. tools/list names the available tools.`), { code: ErrorCode.InvalidParams });
      }
      throw err;
    }
  });
  const resources = { resources: ctx.resources.list };
  const templates = { resourceTemplates: ctx.resources.templates };
  server.setRequestHandler(ListResourcesRequestSchema, () => resources);
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => templates);
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const found = ctx.resources.read(request.params.uri);
    if (!found) throw Object.assign(new Error(`Resource not found: ${request.params.uri}`), { code: RESOURCE_NOT_FOUND });
    return found;
  });
  return server;
}
