// The portable verifier (the signet-mcp-verify package's library): a self-contained browser
// bundle, with the same semantics and report as the CLI and the server, and the documented
// JSON Schemas of its inputs and outputs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { parseTrustFile } from '../../src/signing/trust.js';
import { verifyOutput } from '../../src/signing/verify.js';
import { testContext } from '../helpers/context.js';
import { ROOT } from '../helpers/paths.js';
import { testSigner } from '../helpers/signer.js';

const BUNDLE = join(ROOT, 'dist', 'verify', 'signet-verify.js');
const schema = (name: string) => JSON.parse(readFileSync(join(ROOT, 'docs', 'schemas', name), 'utf8')) as object;

describe('the portable verifier (signet-mcp-verify)', () => {
  const ctx = testContext();
  const output = ctx.tools.call('doctrine_get', { id: 'TLS-001' }).json();

  it('is one ES module with no Node built-in, no require and no Node global', () => {
    const code = readFileSync(BUNDLE, 'utf8');
    expect(code).not.toMatch(/from\s*["']node:|import\(["']node:|\brequire\(/);
    expect(code).not.toMatch(/(?<![\w.])(Buffer|process)\s*\.|(?<![\w.])Buffer\s*\(|\b__dirname\b|\b__filename\b/);
    expect(code).not.toMatch(/^import /m); // self-contained: nothing left to fetch
  });

  it('runs where only web-standard globals exist (no process, Buffer, require): same reports', async () => {
    // The bundle as a classic script, evaluated in a fresh V8 context that has the language's
    // own globals plus what browsers, Deno and workers all have (TextEncoder, TextDecoder, atob, btoa).
    const iife = await build({
      entryPoints: [BUNDLE],
      bundle: true,
      format: 'iife',
      globalName: 'SignetVerify',
      write: false,
      logLevel: 'silent',
    });
    const sandbox: Record<string, unknown> = { TextEncoder, TextDecoder, atob, btoa };
    runInNewContext(iife.outputFiles[0]!.text, sandbox, { timeout: 10_000 });
    expect(runInNewContext('typeof process + typeof Buffer + typeof require', sandbox)).toBe('undefinedundefinedundefined');
    const lib = sandbox['SignetVerify'] as typeof import('../../src/signing/portable.js');
    const trust = lib.trustSet({ files: [lib.parseTrustFile(JSON.stringify(ctx.keys.file))] });
    const cases = [output, output.replace('"TLS-001"', '"TLS-002"'), output.replace('"ok":true', '"ok":false,"ok":true')];
    // Reports cross the realm boundary: compare their JSON.
    for (const input of cases)
      expect(JSON.stringify(lib.verifyOutput(input, { trust }))).toBe(JSON.stringify(verifyOutput(input, { trust })));
    expect(lib.verifyOutput(output, { trust }).status).toBe('trusted');
    // Bytes are read as strict UTF-8 there too: the genuine bytes verify, a byte that is not UTF-8 is not_json.
    const bytes = new TextEncoder().encode(output);
    expect(lib.verifyOutput(bytes, { trust }).status).toBe('trusted');
    bytes[bytes.indexOf(0x22)] = 0xff;
    expect(lib.verifyOutput(bytes, { trust }).reasons.map((r) => r.code)).toEqual(['not_json']);
  });

  it('gives the same report as the source verifier, for genuine, tampered and foreign outputs', async () => {
    const lib = (await import(pathToFileURL(BUNDLE).href)) as typeof import('../../src/signing/portable.js');
    const trust = lib.trustSet({ files: [lib.parseTrustFile(JSON.stringify(ctx.keys.file))] });
    const stranger = testSigner();
    const inputs = [output, output.replace('"TLS-001"', '"TLS-002"'), JSON.stringify({ ...JSON.parse(output), isError: true })];
    for (const input of inputs) expect(lib.verifyOutput(input, { trust })).toEqual(verifyOutput(input, { trust }));
    expect(lib.verifyOutput(output, { trust }).status).toBe('trusted');
    expect(lib.verifyOutput(output).status).toBe('unpinned');
    expect(lib.verifyOutput(output, { trust: lib.trustSet({ publicKeys: [stranger.publicKeySpki] }) }).reasons[0]!.code).toBe(
      'signer_untrusted',
    );
    expect(lib.fingerprint(ctx.signer.publicKeySpki)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('reports and trust files match their documented JSON Schemas', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    const report = ajv.compile(schema('verify-report.schema.json'));
    const trust = ajv.compile(schema('trust.schema.json'));
    const samples = [
      verifyOutput(output),
      verifyOutput(output, { trust: ctx.keys.trust }),
      verifyOutput('nope'),
      verifyOutput(output.replace('"TLS-001"', '"TLS-002"')),
      ctx.tools.call('verify_output', { output }).result.structuredContent['result'],
    ];
    for (const s of samples) expect(report(s), JSON.stringify(report.errors)).toBe(true);
    expect(trust(ctx.keys.file), JSON.stringify(trust.errors)).toBe(true);
    // The schema and the parser agree on what is refused; the parser refuses a little more,
    // what a JSON Schema cannot say (documented in the schema's descriptions).
    const k = ctx.signer.publicKeySpki;
    const key = { name: 'a', public_key: k, status: 'active' };
    const file = (over: Record<string, unknown>) => ({ format: 'signet-trust/1', keys: [key], ...over });
    const accepted = [
      file({}),
      file({ keys: [] }),
      file({
        keys: [
          { ...key, note: 'x'.repeat(500) },
          { ...key, public_key: testSigner().publicKeySpki, status: 'revoked' },
        ],
      }),
      file({ doctrine_hashes: [`sha256:${'a'.repeat(64)}`] }),
    ];
    const refusedByBoth = [
      // An empty pin list pinned nothing while looking like a pin (pen test L3).
      file({ doctrine_hashes: [] }),
      file({ x: 1 }),
      file({ format: 'signet-trust/0' }),
      file({ format: undefined }),
      file({ keys: undefined }),
      file({ keys: {} }),
      file({ keys: [{ ...key, x: 1 }] }),
      file({ keys: [{ ...key, name: '' }] }),
      file({ keys: [{ ...key, name: 'n'.repeat(101) }] }),
      file({ keys: [{ ...key, name: 7 }] }),
      file({ keys: [{ ...key, public_key: k.slice(1) }] }),
      file({ keys: [{ ...key, public_key: k.replace(/.=$/, (m) => `${String.fromCharCode(m.charCodeAt(0) ^ 1)}=`) }] }),
      file({ keys: [{ ...key, status: 'trusted' }] }),
      file({ keys: [{ ...key, status: undefined }] }),
      file({ keys: [{ ...key, note: 'x'.repeat(501) }] }),
      file({ keys: [{ ...key, note: 1 }] }),
      file({ doctrine_hashes: ['sha256:AB'] }),
      file({ doctrine_hashes: `sha256:${'a'.repeat(64)}` }),
      [key],
    ];
    const identity = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from([1]), Buffer.alloc(31)]).toString('base64');
    const refusedByParserOnly = [file({ keys: [key, { ...key, name: 'b' }] }), file({ keys: [{ ...key, public_key: identity }] })];
    const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
    for (const a of accepted.map(plain)) {
      expect(trust(a), JSON.stringify(trust.errors)).toBe(true);
      expect(() => parseTrustFile(a)).not.toThrow();
    }
    for (const r of refusedByBoth.map(plain)) {
      expect(trust(r), JSON.stringify(r)).toBe(false);
      expect(() => parseTrustFile(r), JSON.stringify(r)).toThrow();
    }
    for (const r of refusedByParserOnly.map(plain)) {
      expect(trust(r), JSON.stringify(r)).toBe(true);
      expect(() => parseTrustFile(r), JSON.stringify(r)).toThrow(/listed twice|small order/);
    }
  });
});
