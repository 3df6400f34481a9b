// The official MCP clients, the way users run them: v1 (2025 revisions) and v2 with
// `versionNegotiation: 'auto'` and pinned to 2026-07-28, over stdio or HTTP. One small
// interface so the same checks run against every client, transport and stack.

import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { SIGNED_MESSAGE } from '../../src/signing/format.js';
import { opensslVerify } from './openssl.js';
import { CLI } from './paths.js';

export type ClientKind = 'v1' | 'v2-auto' | 'v2-pin';
export const CLIENT_KINDS: ClientKind[] = ['v1', 'v2-auto', 'v2-pin'];

export type Endpoint = { http: string; headers?: Record<string, string> } | { stdio: Record<string, string> };

export interface AnyClient {
  kind: ClientKind;
  protocolVersion(): string | undefined;
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  readResource(uri: string): Promise<{ contents: Record<string, unknown>[] }>;
  close(): Promise<void>;
}

const info = { name: 'signet-test', version: '1.0.0' };

function stdioParams(env: Record<string, string>) {
  return {
    command: process.execPath,
    args: [CLI],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
    stderr: 'pipe' as const,
  };
}

export async function connectClient(kind: ClientKind, endpoint: Endpoint): Promise<AnyClient> {
  if (kind === 'v1') {
    const client = new ClientV1(info);
    const transport =
      'http' in endpoint
        ? new HttpV1(new URL(endpoint.http), { requestInit: { headers: endpoint.headers ?? {} } })
        : new StdioV1(stdioParams(endpoint.stdio));
    await client.connect(transport);
    return {
      kind,
      protocolVersion: () => (transport as { protocolVersion?: string }).protocolVersion ?? '2025-11-25',
      listTools: () => client.listTools(),
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
      readResource: async (uri) => (await client.readResource({ uri })) as { contents: Record<string, unknown>[] },
      close: () => client.close(),
    };
  }
  const mode = kind === 'v2-auto' ? ('auto' as const) : { pin: '2026-07-28' };
  const client = new ClientV2(info, { versionNegotiation: { mode } });
  const transport =
    'http' in endpoint
      ? new HttpV2(new URL(endpoint.http), { requestInit: { headers: endpoint.headers ?? {} } })
      : new StdioV2(stdioParams(endpoint.stdio));
  await client.connect(transport);
  return {
    kind,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools() as Promise<{ tools: { name: string }[] }>,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as unknown as Record<string, unknown>,
    readResource: async (uri) => (await client.readResource({ uri })) as unknown as { contents: Record<string, unknown>[] },
    close: () => client.close(),
  };
}

/** Signet's tools, sorted by name: what every tools/list must answer. */
export const TOOL_NAMES = ['deployment_check', 'doctrine_evaluate', 'doctrine_get', 'doctrine_info', 'doctrine_search', 'verify_output'];

/** Every tool and a resource through one client; every footer checked with OpenSSL. */
export async function exerciseEveryTool(client: AnyClient): Promise<void> {
  expect(client.protocolVersion()).toBe(client.kind === 'v1' ? '2025-11-25' : '2026-07-28');
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
  const results = [
    await client.callTool('doctrine_info', {}),
    await client.callTool('doctrine_search', { query: 'bearer key', limit: 3 }),
    await client.callTool('doctrine_get', { id: 'TLS-001' }),
    await client.callTool('doctrine_evaluate', { facts: { transport: { kind: 'http' }, tls: { enabled: false } } }),
  ];
  results.push(await client.callTool('verify_output', { output: results[2] }));
  for (const r of results) {
    const footer = (r['structuredContent'] as { footer: Record<string, string> }).footer;
    expect(
      opensslVerify(
        footer['doctrine_public_key']!,
        SIGNED_MESSAGE.output(footer['signature_format']!, footer['output_hash']!),
        footer['output_signature']!,
      ),
    ).toBe(true);
    expect((r['content'] as { text: string }[])[0]!.text).toBe(JSON.stringify(r['structuredContent']));
  }
  expect((results[4]!['structuredContent'] as { result: { status: string } }).result.status).toBe('trusted');
  // The check over MCP: files in, a signed report and a signed attestation out.
  const check = await client.callTool('deployment_check', {
    files: [{ path: 'compose.yml', text: 'services:\n  web:\n    image: nginx:1.27\n' }],
    declared: { path: 'declared.json', text: '{"facts":{"transport":{"kind":"http"},"tls":{"enabled":false}}}' },
  });
  const checked = check['structuredContent'] as {
    ok: boolean;
    footer: Record<string, string>;
    result: { report: { verdict: string }; attestation: { payloadType: string } };
  };
  expect(checked.ok).toBe(true);
  expect(checked.result.attestation.payloadType).toBe('application/vnd.in-toto+json');
  const f = checked.footer;
  expect(
    opensslVerify(f['doctrine_public_key']!, SIGNED_MESSAGE.output(f['signature_format']!, f['output_hash']!), f['output_signature']!),
  ).toBe(true);
  const read = await client.readResource('doctrine://manifest');
  expect(read.contents[0]!['_meta']).toBeDefined();
}
