// deployment_check over MCP against `signet check` on the command line: the same files and the
// same key give the same report and the same attestation, byte for byte. The server is the
// built `signet` on stdio, driven by the official SDK client; the CLI runs in a clean
// environment over the same files on disk and the same data directory (so the same key).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/signing/canonical.js';
import { verifyOutput } from '../../src/signing/verify.js';
import { verifyAttestation } from '../../src/signing/verify-attestation.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { connectStdio, type StdioSession } from '../helpers/mcp-client.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const dir = tempDir('signet-check-mcp-');
const data = join(dir, 'data');
const work = join(dir, 'work');
mkdirSync(work);

/** Signet's own compose stack as a user's repository holds it, plus a declared-facts file. */
const FILES: Record<string, string> = {
  'docker-compose.yml': readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'),
  Dockerfile: readFileSync(join(ROOT, 'Dockerfile'), 'utf8'),
  // The build's package.json: what shows the image is Signet's (its profile applies).
  'package.json': readFileSync(join(ROOT, 'package.json'), 'utf8'),
  'proxy/Dockerfile': readFileSync(join(ROOT, 'proxy', 'Dockerfile'), 'utf8'),
};
const DECLARED = JSON.stringify(
  {
    facts: { deployment: { environment: 'production' }, exposure: { reachable_from_internet: false } },
    notes: [{ facts: ['exposure.reachable_from_internet'], note: 'the host has no public address' }],
  },
  null,
  2,
);
for (const [path, text] of Object.entries(FILES)) {
  mkdirSync(join(work, path, '..'), { recursive: true });
  writeFileSync(join(work, path), text);
}
writeFileSync(join(work, 'declared.json'), DECLARED);

function signet(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: work, env: cleanEnv({ SIGNET_DATA_DIR: data }), encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

type Result = { structuredContent: Record<string, any>; content: { text: string }[]; isError: boolean };

let session: StdioSession;
const call = async (args: Record<string, unknown>) =>
  (await session.client.callTool({ name: 'deployment_check', arguments: args })) as unknown as Result;

beforeAll(async () => {
  // The CLI first: it creates the key in the data dir, which the server then signs with too.
  expect(signet(['trust', 'export']).code).toBe(0);
  session = await connectStdio({ SIGNET_DATA_DIR: data, SIGNET_MAX_ARGUMENT_BYTES: String(1024 * 1024) });
});
afterAll(() => session?.close());

describe('deployment_check', () => {
  it('gives the same report and attestation, byte for byte, as signet check on the same files and key', async () => {
    const cli = signet(['check', ...Object.keys(FILES), '--facts', 'declared.json', '--format', 'json', '--attest', 'att.json']);
    expect([0, 1, 3]).toContain(cli.code);
    const r = await call({
      files: Object.entries(FILES).map(([path, text]) => ({ path, text })),
      declared: { path: 'declared.json', text: DECLARED },
    });
    expect(r.isError, JSON.stringify(r.structuredContent['error'])).toBe(false);
    const result = r.structuredContent['result'];
    expect(`${canonicalJson(result.report)}\n`).toBe(cli.out);
    // The envelope as the client receives it, serialised: the file the CLI wrote.
    expect(JSON.stringify(result.attestation)).toBe(readFileSync(join(work, 'att.json'), 'utf8'));
    expect(result.report.deployments.length).toBeGreaterThan(0);
    expect(result.report.files.map((f: { path: string }) => f.path)).toEqual([
      'Dockerfile',
      'declared.json',
      'docker-compose.yml',
      'package.json',
      'proxy/Dockerfile',
    ]);
    // Signet recognised: the profile's facts are counted apart from the files'.
    const counts = result.report.deployments[0].counts;
    expect(counts.profile).toBeGreaterThan(30);
    expect(counts.files).toBeGreaterThan(20);
    expect(cli.code).toBe({ pass: 0, fail: 1, incomplete: 3, limited_scope: 3 }[result.report.verdict as string]);

    // Both signatures: the tool result's (signet-output/1) and the attestation's (DSSE), by the same key.
    const trust = {
      keys: new Map([[r.structuredContent['footer'].doctrine_public_key, { name: 'server', status: 'active' as const }]]),
      doctrineHashes: null,
    };
    expect(verifyOutput(r, { trust }).status).toBe('trusted');
    expect(verifyAttestation(JSON.stringify(result.attestation), { trust }).status).toBe('trusted');

    // And the output recomputes exactly from the doctrine and the arguments, attestation included.
    writeFileSync(join(work, 'out.json'), JSON.stringify(r));
    writeFileSync(
      join(work, 'args.json'),
      JSON.stringify({
        files: Object.entries(FILES).map(([path, text]) => ({ path, text })),
        declared: { path: 'declared.json', text: DECLARED },
      }),
    );
    const trustFile = signet(['trust', 'export']).out;
    writeFileSync(join(work, 'trust.json'), trustFile);
    const recomputed = signet(['verify', '--trust', 'trust.json', '--recompute', '--arguments', 'args.json', 'out.json']);
    expect(recomputed.code, recomputed.err).toBe(0);
    expect(recomputed.out).toMatch(/the result recomputes exactly from the doctrine/);
  });

  it('refuses a file it cannot read as the CLI does a file named on its command line, even when declared facts would pass', async () => {
    // The audit's case: a broken compose.yaml and declared facts that complete the verdict gave "skipped" then PASS.
    const broken = 'services:\n  mcp:\n    image: acme/mcp:1\n   ports: ["3000:3000"]\n';
    const hardened = readFileSync(join(ROOT, 'test', 'fixtures', 'facts', 'hardened.json'), 'utf8');
    const declared = JSON.stringify({ facts: JSON.parse(hardened) });
    writeFileSync(join(work, 'broken.yaml'), broken);
    writeFileSync(join(work, 'hardened-declared.json'), declared);
    const cli = signet(['check', 'broken.yaml', '--facts', 'hardened-declared.json', '--format', 'json']);
    expect(cli.code, cli.err).toBe(2);
    expect(cli.out).toBe('');
    const message = /^signet check: (broken\.yaml cannot be read: could not be read as compose: [^\n]*line 4[^\n]*)\n/.exec(cli.err)?.[1];
    expect(message, cli.err).toBeDefined();
    const r = await call({ files: [{ path: 'broken.yaml', text: broken }], declared: { path: 'hardened-declared.json', text: declared } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent['error']).toMatchObject({ code: 'invalid_arguments', message });
    expect(verifyOutput(r).signature_valid).toBe(true);
  });

  it('reads base64 as the same bytes as text', async () => {
    const text = await call({ files: [{ path: 'docker-compose.yml', text: FILES['docker-compose.yml'] }] });
    const b64 = await call({
      files: [{ path: 'docker-compose.yml', base64: Buffer.from(FILES['docker-compose.yml']!).toString('base64') }],
    });
    expect(b64.structuredContent['result']).toEqual(text.structuredContent['result']);
  });

  it('refuses what is out of bounds with a signed error naming the argument, and keeps serving', async () => {
    const refused = async (args: Record<string, unknown>, code: string, where: RegExp) => {
      const r = await call(args);
      expect(r.isError).toBe(true);
      expect(r.structuredContent['error'].code).toBe(code);
      expect(JSON.stringify(r.structuredContent['error'])).toMatch(where);
      expect(verifyOutput(r).signature_valid).toBe(true);
    };
    const one = { path: 'a.yml', text: 'services: {}' };
    await refused(
      { files: Array.from({ length: 257 }, (_, i) => ({ ...one, path: `f${i}.yml` })) },
      'invalid_arguments',
      /arguments\.files/,
    );
    await refused({ files: [{ path: 'x'.repeat(513), text: '' }] }, 'invalid_arguments', /arguments\.files\.0\.path/);
    await refused({ files: [{ path: 'a.yml', text: 'x', base64: 'eA==' }] }, 'invalid_arguments', /arguments\.files\.0/);
    await refused({ files: [{ path: 'a.yml' }] }, 'invalid_arguments', /arguments\.files\.0/);
    await refused({ files: [one], url: 'http://169.254.169.254/' }, 'invalid_arguments', /unknown property .{1,2}url/);
    await refused({ files: [{ path: '../etc/passwd', text: 'x' }] }, 'invalid_arguments', /must be relative, inside the root/);
    await refused({ files: [one, one] }, 'invalid_arguments', /given twice/);
    await refused({ files: [one, { ...one, path: './x/../a.yml' }] }, 'invalid_arguments', /given twice/);
    await refused({ files: [{ path: 'C:\\Windows\\a.yml', text: 'x' }] }, 'invalid_arguments', /must be relative, inside the root/);
    // A YAML alias bomb is a file that cannot be read: a signed refusal naming it, not a stalled server.
    const bomb = [
      'services:',
      '  mcp: { image: acme/mcp:1, x-bomb: *i }',
      'x-laughs:',
      '  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
      ...'bcdefghi'.split('').map((k, i) => `  ${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(', ')}]`),
    ].join('\n');
    await refused(
      { files: [{ path: 'compose.yaml', text: bomb }] },
      'invalid_arguments',
      /compose\.yaml cannot be read: .*more than 100000 nodes once its aliases are expanded/,
    );
    await refused({ files: [{ path: 'a.yml', base64: 'not base64!' }] }, 'invalid_arguments', /arguments\.files\[0\]\.base64/);
    await refused({ files: [], declared: { path: '/etc/d.json', text: '{}' } }, 'invalid_arguments', /arguments\.declared\.path/);
    await refused(
      { files: [], declared: { path: 'd.json', text: '{"facts":{"transport.kind":"http"}}' } },
      'invalid_arguments',
      /write \{\\"transport\\":\{\\"kind\\":\\"http\\"\}\}/,
    );
    // Past SIGNET_MAX_ARGUMENT_BYTES (1 MiB here): a signed input_too_large; past stdio's 4 MiB line, a JSON-RPC error.
    await refused({ files: [{ path: 'big.yml', text: 'x'.repeat(1536 * 1024) }] }, 'input_too_large', /Arguments exceed 1048576 bytes/);
    // Files that describe no server: an incomplete review (never a pass), not an error.
    const nothing = await call({ files: [one] });
    expect(nothing.isError).toBe(false);
    expect(nothing.structuredContent['result'].report).toMatchObject({ verdict: 'incomplete', deployments: [] });
    // Still serving.
    expect((await call({ files: [], declared: { path: 'd.json', text: '{"facts":{"transport":{"kind":"stdio"}}}' } })).isError).toBe(false);
  });
});
