import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI } from './paths.js';

export interface ServerProcess {
  proc: ChildProcess;
  port: number;
  url: string;
  logs(): string;
  /** Parsed JSON log lines so far. */
  logLines(): Record<string, unknown>[];
  exit: Promise<number | null>;
  stop(): Promise<number | null>;
  /** Log lines arrive on another pipe than HTTP responses: wait until one matches. */
  waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** Starts the built `signet serve --http` on an ephemeral loopback port and waits for "signet ready". */
export async function startHttpServer(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--http', ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', SIGNET_HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  proc.stdout!.on('data', (c: Buffer) => (logs += c));
  proc.stderr!.on('data', (c: Buffer) => (logs += c));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs}`)), 20_000);
    const check = () => {
      const m = /"msg":"signet ready"/.test(logs) && /"port":(\d+)/.exec(logs);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stderr!.on('data', check);
    exit.then((code) => reject(new Error(`server exited with ${code}:\n${logs}`)));
  });
  const logLines = () =>
    logs
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    logs: () => logs,
    logLines,
    exit,
    waitForLog: async (predicate, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logLines().find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching log line within ${timeoutMs} ms:\n${logs}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exit;
    },
  };
}

export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'signet-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/**
 * One HTTP request with full control: source address (to act as another client IP),
 * raw headers (duplicates included), chunked or fixed bodies.
 */
export function rawRequest(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string> | [string, string][];
    body?: string | Buffer;
    localAddress?: string;
    chunked?: boolean;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headerList: [string, string][] = Array.isArray(opts.headers) ? opts.headers : Object.entries(opts.headers ?? {});
    const flat: string[] = [];
    // Raw header arrays get no automatic Host header.
    if (!headerList.some(([k]) => k.toLowerCase() === 'host')) flat.push('host', u.host);
    for (const [k, v] of headerList) flat.push(k, v);
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? 'POST',
        localAddress: opts.localAddress,
        headers: flat,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) {
      if (opts.chunked) {
        const buf = Buffer.from(opts.body);
        for (let i = 0; i < buf.length; i += 64 * 1024) req.write(buf.subarray(i, i + 64 * 1024));
      } else req.write(opts.body);
    }
    req.end();
  });
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function rpc(method: string, params?: unknown, id: number | string = 1): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
}
