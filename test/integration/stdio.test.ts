import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/signing/canonical.js';
import { SIGNED_MESSAGE, unsignedView } from '../../src/signing/format.js';
import { connectStdio, type StdioSession } from '../helpers/mcp-client.js';
import { TOOL_NAMES } from '../helpers/mcp-clients.js';
import { opensslSha256, opensslVerify } from '../helpers/openssl.js';
import { CLI, DEFAULT_DOCTRINE, FACTS } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

/** stdout of a stdio server: one JSON-RPC message per line. */
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

type Footer = Record<string, string>;

/** Verifies a footer with the OpenSSL CLI only: hash recomputed, both signatures checked. */
function expectOpensslValid(structured: Record<string, unknown>): void {
  const footer = structured['footer'] as Footer;
  expect(opensslSha256(canonicalJson(unsignedView(structured)))).toBe(footer['output_hash']);
  expect(
    opensslVerify(
      footer['doctrine_public_key']!,
      SIGNED_MESSAGE.output(footer['signature_format']!, footer['output_hash']!),
      footer['output_signature']!,
    ),
  ).toBe(true);
  expect(
    opensslVerify(
      footer['doctrine_public_key']!,
      SIGNED_MESSAGE.doctrine(footer['signature_format']!, footer['doctrine_hash']!),
      footer['doctrine_signature']!,
    ),
  ).toBe(true);
}

const facts = (name: string) => JSON.parse(readFileSync(FACTS(name), 'utf8'));

describe('stdio end to end (real signet process, MCP SDK client, OpenSSL)', () => {
  const dataDir = tempDir('signet-stdio-');
  let session: StdioSession;

  beforeAll(async () => {
    session = await connectStdio({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE });
  });
  afterAll(async () => session?.close());

  it('initializes with server info and instructions, and lists tools and resources', async () => {
    expect(session.client.getServerVersion()).toMatchObject({ name: 'signet' });
    expect(session.client.getInstructions()).toMatch(/doctrine_info/);
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    const { resources } = await session.client.listResources();
    expect(resources.length).toBeGreaterThanOrEqual(8);
    expect(resources.map((r) => r.uri)).toContain('doctrine://manifest');
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('doctrine://rules/{id}');
  });

  it('calls every tool and every footer verifies with OpenSSL', async () => {
    const info = await session.client.callTool({ name: 'doctrine_info', arguments: {} });
    const infoResult = (info.structuredContent as { result: { documents: { id: string }[]; rule_count: number } }).result;
    expect(infoResult.rule_count).toBeGreaterThanOrEqual(30);
    expect(infoResult.documents.length).toBeGreaterThanOrEqual(6);

    const calls = [
      { name: 'doctrine_info', arguments: {} },
      { name: 'doctrine_search', arguments: { query: 'rate limit', limit: 5 } },
      { name: 'doctrine_get', arguments: { id: infoResult.documents[0]!.id } },
      { name: 'doctrine_get', arguments: { id: 'AUTH-001' } },
      { name: 'doctrine_evaluate', arguments: { facts: facts('exposed') } },
      { name: 'doctrine_evaluate', arguments: { facts: facts('hardened') } },
      { name: 'doctrine_search', arguments: { query: '' } },
      { name: 'doctrine_get', arguments: { id: '../../etc/passwd' } },
    ];
    const outputs = [];
    for (const c of calls) {
      const r = await session.client.callTool(c);
      const structured = r.structuredContent as Record<string, unknown>;
      expect(structured['tool']).toBe(c.name);
      expect((r.content as { type: string; text: string }[])[0]!.text).toBe(canonicalJson(structured));
      expectOpensslValid(structured);
      outputs.push(r);
    }
    const verified = await session.client.callTool({ name: 'verify_output', arguments: { output: outputs[4] as Record<string, unknown> } });
    expectOpensslValid(verified.structuredContent as Record<string, unknown>);
    expect((verified.structuredContent as { result: { valid: boolean } }).result.valid).toBe(true);
    expect(outputs[6]!.isError).toBe(true);
    expect((outputs[7]!.structuredContent as { error: { code: string } }).error.code).toBe('invalid_id');
    const exposed = (outputs[4]!.structuredContent as { result: { summary: { fail: number } } }).result.summary;
    expect(exposed.fail).toBeGreaterThanOrEqual(15);
    const hardened = (outputs[5]!.structuredContent as { result: { summary: { fail: number } } }).result.summary;
    expect(hardened.fail).toBe(0);
  });

  it('reads resources with a signed content hash that matches the manifest', async () => {
    const manifest = await session.client.readResource({ uri: 'doctrine://manifest' });
    const text = (manifest.contents[0] as { text: string }).text;
    const footer = (manifest.contents[0]!['_meta'] as Record<string, Footer>)['signet/footer']!;
    expect(opensslSha256(text)).toBe(footer['doctrine_hash']);
    const line =
      text.split('\n').find((l) => l.endsWith('  documents/' + 'overview.md')) ?? text.split('\n').find((l) => l.includes('documents/'))!;
    const [sha, path] = line.split('  ');
    const doc = await session.client.readResource({ uri: `doctrine://documents/${path!.slice('documents/'.length, -3)}` });
    const docFooter = (doc.contents[0]!['_meta'] as Record<string, Footer>)['signet/footer']!;
    expect(docFooter['content_hash']).toBe(`sha256:${sha}`);
    // The resource's signature binds its URI and media type (signet-resource/2).
    expect(docFooter['signature_format']).toBe('signet-resource/2');
    const message = SIGNED_MESSAGE.resource(
      'signet-resource/2',
      doc.contents[0]!.uri,
      doc.contents[0]!.mimeType!,
      docFooter['content_hash']!,
    );
    expect(opensslVerify(docFooter['doctrine_public_key']!, message, docFooter['content_signature']!)).toBe(true);
    expect(opensslVerify(docFooter['doctrine_public_key']!, docFooter['content_hash']!, docFooter['content_signature']!)).toBe(false);
    expect(
      opensslVerify(
        docFooter['doctrine_public_key']!,
        SIGNED_MESSAGE.doctrine('signet-resource/2', docFooter['doctrine_hash']!),
        docFooter['doctrine_signature']!,
      ),
    ).toBe(true);
    await expect(session.client.readResource({ uri: 'doctrine://documents/nope' })).rejects.toThrow(/Resource not found/);
  });

  it('answers an unknown tool with a JSON-RPC error and keeps serving', async () => {
    await expect(session.client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/Unknown tool: delete_everything/);
    const again = await session.client.callTool({ name: 'doctrine_info', arguments: {} });
    expect(again.isError).toBe(false);
  });

  it('keeps serving after huge facts', async () => {
    const r2 = await session.client.callTool({ name: 'doctrine_evaluate', arguments: { facts: { blob: 'x'.repeat(2_000_000) } } });
    expect((r2.structuredContent as { error: { code: string } }).error.code).toBe('input_too_large');
    expect(await session.client.ping()).toEqual({});
  });

  it('gives byte-identical outputs across processes and restarts with the same key', async () => {
    const args = { name: 'doctrine_evaluate', arguments: { facts: facts('exposed') } };
    const first = await session.client.callTool(args);
    const second = await connectStdio({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE });
    try {
      const again = await second.client.callTool(args);
      expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    } finally {
      await second.close();
    }
  });

  it('keeps the generated key private (mode 0600) and out of stderr', async () => {
    const { statSync } = await import('node:fs');
    const keyFile = join(dataDir, 'signing-key.pem');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const pem = readFileSync(keyFile, 'utf8');
    const body = pem.split('\n')[1]!;
    expect(session.stderr()).not.toContain(body);
    expect(session.stderr()).not.toContain('PRIVATE KEY');
    expect(session.stderr()).toMatch(/"msg":"signet ready"/);
  });
});

describe('stdio process behaviour', () => {
  const dataDir = tempDir('signet-stdio-raw-');
  const env = { PATH: process.env['PATH'] ?? '', SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE };

  function run(lines: string[]) {
    const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const waiting: { stream: 'out' | 'err'; re: RegExp; resolve: () => void }[] = [];
    const settle = () => {
      for (const w of [...waiting]) {
        if (w.re.test(w.stream === 'out' ? stdout : stderr)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }
    };
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      settle();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
      settle();
    });
    for (const l of lines) child.stdin.write(`${l}\n`);
    /** Resolves when the stream has printed what `re` matches: a wait on the process's own output, never a fixed sleep. */
    const until = (stream: 'out' | 'err', re: RegExp) =>
      new Promise<void>((resolve) => {
        waiting.push({ stream, re, resolve });
        settle();
      });
    return {
      child,
      until,
      out: () => stdout,
      err: () => stderr,
      exit: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))),
    };
  }
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });

  it('writes only JSON-RPC to stdout, answers malformed lines with a parse error, and exits 0 when stdin closes', async () => {
    const p = run([init, '{ this is not json', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })]);
    await p.until('out', /"id":2\b/);
    p.child.stdin.end();
    expect(await p.exit).toBe(0);
    const lines = jsonLines(p.out());
    expect(lines.every((l) => l.jsonrpc === '2.0')).toBe(true);
    expect(lines.find((l) => l.id === 2)?.result.tools).toHaveLength(6);
    expect(p.err()).toMatch(/"level":"info"/);
  });

  it('answers deeply nested arguments with a signed error and keeps serving', async () => {
    // Built as text: the SDK client's own JSON.stringify cannot go this deep.
    const deep = `${'{"x":'.repeat(20_000)}{}${'}'.repeat(20_000)}`;
    const p = run([
      init,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"doctrine_evaluate","arguments":{"facts":${deep}}}}`,
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }),
    ]);
    await p.until('out', /"id":8\b/);
    p.child.stdin.end();
    expect(await p.exit).toBe(0);
    const lines = jsonLines(p.out());
    const deepAnswer = lines.find((l) => l.id === 7);
    expect(deepAnswer.result.structuredContent.error.code).toBe('input_too_deep');
    expect(deepAnswer.result.isError).toBe(true);
    expect(lines.find((l) => l.id === 8)?.result).toEqual({});
  });

  // Pen test (issue 26): with a reader slower than the server, the process ended when stdin
  // closed and cut a large answer at the pipe's 64 KiB. The reader here reads nothing until the
  // server has said it is stopping, then everything: every answer must be whole.
  const evaluateFull = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'doctrine_evaluate', arguments: { facts: facts('exposed'), detail: 'full' } },
    });

  it('loses no output to a reader that reads only after stdin closed', async () => {
    const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    const stopping = new Promise<void>((resolve) =>
      child.stderr.on('data', (c: Buffer) => {
        stderr += c;
        if (stderr.includes('stdio server stopping')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.end(`${init}\n${evaluateFull(2)}\n${evaluateFull(3)}\n`);
    await stopping; // stdout not read yet: the pipe is full
    const chunks: Buffer[] = [];
    for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
    expect(await exited).toBe(0);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.length).toBeGreaterThan(2 * 65_536);
    const lines = jsonLines(text);
    expect(lines.map((l) => l.id)).toEqual([1, 2, 3]);
    for (const l of lines.slice(1)) expectOpensslValid(l.result.structuredContent);
  });

  it('answers every request of a client that closes stdin right after its last one, unterminated', async () => {
    const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pings = Array.from({ length: 20 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'ping' }));
    // One write and the close in the same tick; the last message has no newline.
    child.stdin.end(`${init}\n${evaluateFull(2)}\n${pings.join('\n')}`);
    expect(await exited).toBe(0);
    const lines = jsonLines(Buffer.concat(chunks).toString('utf8'));
    expect(lines.map((l) => l.id)).toEqual([1, 2, ...pings.map((_, i) => 10 + i)]);
    expectOpensslValid(lines[1].result.structuredContent);
  });

  it('refuses a line that is not UTF-8 as a parse error, never reading it as U+FFFD, and keeps serving (pen test L2)', async () => {
    const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const search = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'doctrine_search', arguments: { query: 'tls ?' } } }),
    );
    search[search.indexOf('?')] = 0xff; // a byte no UTF-8 text holds
    child.stdin.end(
      Buffer.concat([Buffer.from(`${init}\n`), search, Buffer.from(`\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`)]),
    );
    expect(await exited).toBe(0);
    const lines = jsonLines(Buffer.concat(chunks).toString('utf8'));
    expect(lines[1]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/not UTF-8/) } });
    expect(lines[2]).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('exits 0 on SIGTERM', async () => {
    const p = run([init]);
    await p.until('out', /"id":1\b/);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(p.err()).toMatch(/SIGTERM/);
  });

  it('refuses to start on a doctrine whose signature no longer matches, with a clear message', async () => {
    const { copyDoctrine } = await import('../helpers/tmp-doctrine.js');
    const { execFileSync } = await import('node:child_process');
    const { appendFileSync } = await import('node:fs');
    const dir = copyDoctrine(DEFAULT_DOCTRINE);
    const keyDir = tempDir('signet-pub-');
    execFileSync(process.execPath, [CLI, 'keygen', '--out', join(keyDir, 'publisher.pem')]);
    execFileSync(process.execPath, [CLI, 'doctrine', 'sign', dir, '--key', join(keyDir, 'publisher.pem')]);
    const docs = execFileSync('ls', [join(dir, 'documents')])
      .toString()
      .trim()
      .split('\n');
    appendFileSync(join(dir, 'documents', docs[0]!), '\nAn edit after signing.\n');
    const child = spawn(process.execPath, [CLI], { env: { ...env, SIGNET_DOCTRINE_DIR: dir }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/a file changed after signing/);
    expect(stdout).toBe('');
  });
});
