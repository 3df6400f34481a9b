// A deliberately weak MCP server, written for the probe's tests: every defence the doctrine asks
// for is missing on purpose, so each of the probe's checks has something to find. Never use it
// for anything else.
//   - no Origin or Host check, `Access-Control-Allow-Origin: *` on every answer
//   - optional key, accepted in Authorization or in `?api_key=`; a known session id alone is enough
//   - no body limit; malformed JSON answered 500 with the exception's stack
//   - any protocol revision echoed back; guessable session ids; no header validation (2026-07-28)
//   - a legacy HTTP+SSE endpoint at /sse; OAuth metadata for another resource, and its own
//     authorization server's without Client ID Metadata Documents or RFC 9207 iss
//   - over TLS: TLS 1.0 and up, no HSTS
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface WeakServerOptions {
  /** A key the server asks for (header or ?api_key=); none: anyone is served. */
  key?: string;
  tls?: { key: string; cert: string };
}

export interface WeakServer {
  url: string;
  /** Requests received, by method and path. */
  requests: string[];
  close(): Promise<void>;
}

const TOOLS = [
  { name: 'run_shell', description: 'Runs a command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
  {
    name: 'read_file',
    description: 'Reads a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
];

export async function startWeakServer(options: WeakServerOptions = {}): Promise<WeakServer> {
  const requests: string[] = [];
  const sessions = new Set<string>();
  let nextSession = 1;

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://weak.invalid');
    requests.push(`${req.method} ${url.pathname}`);
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'GET, POST, DELETE', 'access-control-allow-headers': '*' }).end();
      return;
    }
    const origin = `${options.tls ? 'https' : 'http'}://${req.headers.host}`;
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: 'https://another.example/mcp', authorization_servers: [origin] }));
      return;
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      // Its own authorization server: no Client ID Metadata Documents, no RFC 9207 iss.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token` }));
      return;
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages?sessionId=1\n\n');
      req.on('close', () => res.end());
      return;
    }
    if (url.pathname !== '/mcp') {
      res.writeHead(404).end('not found');
      return;
    }
    const session = req.headers['mcp-session-id'];
    const authorised =
      !options.key ||
      req.headers.authorization === `Bearer ${options.key}` ||
      url.searchParams.get('api_key') === options.key ||
      (typeof session === 'string' && sessions.has(session));
    if (!authorised) {
      res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let message: { id?: unknown; method?: string; params?: Record<string, unknown> };
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).stack }));
        return;
      }
      const reply = (result: unknown, headers: Record<string, string> = {}) =>
        res
          .writeHead(200, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      switch (message.method) {
        case 'initialize': {
          const id = `session-${nextSession++}`;
          sessions.add(id);
          return reply(
            {
              protocolVersion: message.params?.['protocolVersion'],
              capabilities: { tools: {} },
              serverInfo: { name: 'weak', version: '0' },
            },
            { 'mcp-session-id': id },
          );
        }
        case 'server/discover':
          return reply({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
        case 'ping':
          return reply({});
        case 'tools/list':
          return reply({ tools: TOOLS });
        case 'tools/call':
          return reply({ isError: true, content: [{ type: 'text', text: `no tool ${String(message.params?.['name'])}` }] });
        case undefined:
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: new TypeError('method is undefined').stack }));
          return;
        default:
          if (message.id === undefined) return void res.writeHead(202).end();
          return reply({});
      }
    });
  };

  const server: Server = options.tls
    ? createHttps({ ...options.tls, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }, handler)
    : createHttp(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
