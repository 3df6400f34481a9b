import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SignetError } from '../../../src/errors.js';
import { canonicalJson } from '../../../src/signing/canonical.js';
import { verifyOutput } from '../../../src/signing/verify.js';
import { testContext } from '../../helpers/context.js';
import { opensslSha256 } from '../../helpers/openssl.js';
import { DEFAULT_DOCTRINE, FACTS } from '../../helpers/paths.js';

const ctx = testContext();
const call = (name: string, args: unknown) => ctx.tools.call(name, args).result;
type Structured = {
  ok: boolean;
  tool: string;
  input_hash: string | null;
  result?: any;
  error?: { code: string; message: string; details: { where?: string; message: string }[] };
};
const sc = (r: { structuredContent: unknown }) => r.structuredContent as Structured;

describe('tool dispatch', () => {
  it('lists six read-only tools, each with input and output schemas', () => {
    expect(ctx.tools.toolList.map((t) => t['name'])).toEqual([
      'doctrine_info',
      'doctrine_search',
      'doctrine_get',
      'doctrine_evaluate',
      'deployment_check',
      'verify_output',
    ]);
    for (const t of ctx.tools.toolList) {
      expect(t).toMatchObject({
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: true, idempotentHint: true },
      });
      expect(String(t['description']).length).toBeGreaterThan(80);
    }
  });

  it('signs successes and binds the arguments through input_hash', () => {
    const args = { query: 'tls', limit: 2 };
    const r = call('doctrine_search', args);
    expect(r.isError).toBe(false);
    expect(sc(r)).toMatchObject({ ok: true, tool: 'doctrine_search', result: { query: 'tls' } });
    expect(sc(r).input_hash).toBe(opensslSha256(canonicalJson(args)));
    expect(r.content).toEqual([{ type: 'text', text: canonicalJson(r.structuredContent) }]);
    expect(verifyOutput(r).signature_valid).toBe(true);
  });

  it('serves JSON bytes (the HTTP fast path) that equal JSON.stringify of the result object, for every tool, success and error', () => {
    const sample = ctx.tools.call('doctrine_get', { id: 'AUTH-001' }).result;
    for (const [name, args] of [
      ['doctrine_info', {}],
      ['doctrine_search', { query: 'rate limit' }],
      ['doctrine_get', { id: 'AUTH-001' }],
      ['doctrine_get', { id: '../etc/passwd' }],
      ['doctrine_evaluate', { facts: { transport: { kind: 'http' } }, detail: 'full' }],
      ['doctrine_evaluate', { facts: { transport: { kind: 'pigeon' } } }],
      ['verify_output', { output: sample }],
    ] as const) {
      const outcome = ctx.tools.call(name, args);
      expect(outcome.json(), name).toBe(JSON.stringify(outcome.result));
      expect(JSON.parse(outcome.json())).toEqual(outcome.result);
    }
  });

  it('signs invalid-argument errors too, with details naming the field', () => {
    for (const [name, args, where] of [
      ['doctrine_search', { query: '' }, 'arguments.query'],
      ['doctrine_search', { query: 'x', limit: 500 }, 'arguments.limit'],
      ['doctrine_search', { query: 'x', colour: 'red' }, 'arguments'],
      ['doctrine_get', {}, 'arguments'],
      ['doctrine_evaluate', { facts: { transport: { kind: 'pigeon' } } }, 'arguments.facts.transport.kind'],
      ['doctrine_evaluate', { facts: 'all good' }, 'arguments.facts'],
      ['doctrine_info', { verbose: true }, 'arguments'],
    ] as const) {
      const r = call(name, args);
      expect(r.isError).toBe(true);
      expect(sc(r).error?.code).toBe('invalid_arguments');
      expect(sc(r).error?.details.map((d) => d.where)).toContain(where);
      expect(verifyOutput(r).signature_valid).toBe(true);
    }
  });

  it('refuses dotted fact keys with the nested form to write (one spelling per fact, one input hash)', () => {
    const r = call('doctrine_evaluate', { facts: { 'transport.kind': 'http', 'tls.bogus': true } });
    expect(r.isError).toBe(true);
    expect(verifyOutput(r).signature_valid).toBe(true);
    expect(sc(r).error?.details).toEqual([
      {
        where: 'arguments.facts',
        message: 'unknown fact "transport.kind": facts are nested objects, not dotted keys; write {"transport":{"kind":"http"}}',
      },
      // Not a fact in either spelling: said as before.
      { where: 'arguments.facts', message: 'unknown fact "tls.bogus"' },
    ]);
  });

  it('doctrine_evaluate with detail "summary" signs the summary alone: the same summary, a fraction of the bytes', () => {
    // The bundled doctrine, where the difference shows: 135 rules.
    const bundled = testContext({ SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE });
    const facts = JSON.parse(readFileSync(FACTS('hardened-oauth'), 'utf8'));
    const full = bundled.tools.call('doctrine_evaluate', { facts, detail: 'full' });
    const summary = bundled.tools.call('doctrine_evaluate', { facts, detail: 'summary' });
    expect(summary.result.isError).toBe(false);
    expect(Object.keys(sc(summary.result).result)).toEqual(['summary']);
    expect(sc(summary.result).result.summary).toEqual(sc(full.result).result.summary);
    expect(verifyOutput(summary.result).signature_valid).toBe(true);
    // The whole tool result (text and structured content) of an AI client's call, against the full one.
    expect(summary.json().length * 10).toBeLessThan(full.json().length);
    expect(summary.json()).toBe(JSON.stringify(summary.result));
  });

  it('refuses unknown tools as a protocol error, not a tool result', () => {
    expect(() => ctx.tools.call('rm_rf', {})).toThrow(SignetError);
  });

  it('handles huge, deeply nested and non-JSON arguments with signed errors', () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 10_000; i++) deep = { n: deep };
    const tooDeep = call('doctrine_evaluate', { facts: deep });
    expect(sc(tooDeep).error?.code).toBe('input_too_deep');
    expect(sc(tooDeep).input_hash).toBeNull();
    expect(verifyOutput(tooDeep).signature_valid).toBe(true);

    const huge = call('doctrine_search', { query: 'x'.repeat(300 * 1024) });
    expect(sc(huge).error?.code).toBe('input_too_large');
    expect(sc(huge).input_hash).toMatch(/^sha256:/);
    expect(huge.content[0]!.text.length).toBeLessThan(4000); // the error never echoes the input

    const surrogate = call('doctrine_search', { query: 'a\ud800' });
    expect(sc(surrogate).error?.code).toBe('invalid_arguments');
  });

  it('gets documents and rules, refuses path-like ids and suggests close matches', () => {
    expect(sc(call('doctrine_get', { id: 'TLS-001' })).result).toMatchObject({ kind: 'rule', id: 'TLS-001', rule: { severity: 'high' } });
    expect(sc(call('doctrine_get', { id: 'tls-basics' })).result).toMatchObject({
      kind: 'document',
      uri: 'doctrine://documents/tls-basics',
    });
    for (const id of ['../doctrine.json', 'documents/tls-basics', '..', '/etc/passwd', 'a\\b', 'tls-basics.md', '%2e%2e']) {
      expect(sc(call('doctrine_get', { id })).error?.code).toBe('invalid_id');
    }
    const missing = sc(call('doctrine_get', { id: 'TLS-009' }));
    expect(missing.error?.code).toBe('not_found');
    expect(missing.error?.message).toMatch(/Close matches: .*TLS-00/);
  });

  it('reports doctrine info with the same doctrine fields as the footer', () => {
    const r = sc(call('doctrine_info', {}));
    expect(r.result).toMatchObject({
      name: 'mini',
      version: '0.0.1',
      document_count: 2,
      rule_count: 3,
      doctrine_hash: ctx.footer.doctrine_hash,
      doctrine_public_key: ctx.signer.publicKeySpki,
      rules_by_severity: { critical: 0, high: 1, medium: 1, low: 1 },
    });
  });

  it('verify_output says valid for its own outputs and explains tampering', () => {
    const original = call('doctrine_evaluate', { facts: { transport: { kind: 'http' }, tls: { enabled: false } } });
    const ok = sc(call('verify_output', { output: original }));
    expect(ok.result).toMatchObject({ valid: true, signed_by_this_server: true, reasons: [] });
    const text = original.content[0]!.text.replace('"fail"', '"pass"');
    const bad = sc(call('verify_output', { output: text }));
    expect(bad.result.valid).toBe(false);
    expect(bad.result.reasons.map((r: { code: string }) => r.code)).toContain('output_hash_mismatch');
    const pinned = sc(call('verify_output', { output: original, expected_doctrine_hash: `sha256:${'0'.repeat(64)}` }));
    expect(pinned.result).toMatchObject({
      valid: false,
      status: 'invalid',
      signed_by_this_server: true,
      reasons: [{ code: 'doctrine_not_pinned' }],
    });
  });

  it("verify_output trusts only this server's keys by default; a caller may name other signers", () => {
    const other = testContext();
    const foreign = other.tools.call('doctrine_info', {}).result;
    const refused = sc(call('verify_output', { output: foreign }));
    expect(refused.result).toMatchObject({
      valid: false,
      status: 'invalid',
      signature_valid: true,
      signed_by_this_server: false,
      reasons: [{ code: 'signer_untrusted' }],
    });
    const named = sc(call('verify_output', { output: foreign, trusted_keys: [other.signer.publicKeySpki] }));
    // Signed by this server, a verdict on the caller's keys is never "trusted" nor valid (pen test M5).
    expect(named.result).toMatchObject({
      valid: false,
      signature_valid: true,
      status: 'trusted_by_caller',
      signed_by_this_server: false,
      trust: { source: 'caller', keys_sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    });
    const file = { format: 'signet-trust/1', keys: [{ name: 'theirs', public_key: other.signer.publicKeySpki, status: 'revoked' }] };
    const revoked = sc(call('verify_output', { output: foreign, trust: file }));
    expect(revoked.result).toMatchObject({
      valid: false,
      reasons: [{ code: 'signer_revoked' }],
      signer: { name: 'theirs', status: 'revoked' },
    });
    const badTrust = sc(call('verify_output', { output: foreign, trust: { format: 'signet-trust/9', keys: [] } }));
    expect(badTrust.ok).toBe(false);
    expect(badTrust.error!.code).toBe('invalid_arguments');
    // A trust file as text is read strictly, like an output as text.
    const asText = sc(call('verify_output', { output: foreign, trust: JSON.stringify(file).replace('"keys"', '"keys":[],"keys"') }));
    expect(asText.error).toMatchObject({
      code: 'invalid_arguments',
      details: [{ where: 'arguments.trust', message: expect.stringMatching(/appears more than once/) }],
    });
    expect(
      sc(call('verify_output', { output: foreign, trust: JSON.stringify({ ...file, keys: [{ ...file.keys[0], status: 'active' }] }) }))
        .result.status,
    ).toBe('trusted_by_caller');
    // A key that vouches for nothing cannot be pinned.
    const identity = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from([1]), Buffer.alloc(31)]).toString('base64');
    const weak = sc(call('verify_output', { output: foreign, trusted_keys: [identity] }));
    expect(weak.error).toMatchObject({
      code: 'invalid_arguments',
      details: [{ where: 'arguments.trusted_keys', message: expect.stringMatching(/small order/) }],
    });
  });

  it('verify_output reads an output given as text strictly: a duplicate "ok" is refused, the parsed object cannot show it', () => {
    const failed = call('doctrine_get', { id: 'NOPE-404' });
    const text = JSON.stringify(failed).replace('"ok":false', '"ok":true,"ok":false');
    const verdict = sc(call('verify_output', { output: text }));
    expect(verdict.result).toMatchObject({ status: 'invalid', signature_valid: false, reasons: [{ code: 'duplicate_member' }] });
    // The same bytes parsed first (as JSON-RPC does) keep the last "ok" only: consistent, and trusted.
    expect(sc(call('verify_output', { output: JSON.parse(text) })).result.status).toBe('trusted');
  });

  it("verify_output's arguments are bounded by its schema, not only by the argument limit (TOOL-003)", () => {
    // A raised argument limit, so that what refuses is the schema the tool advertises.
    const roomy = testContext({ SIGNET_MAX_ARGUMENT_BYTES: String(8 * 1024 * 1024) });
    const refused = (args: unknown) => sc(roomy.tools.call('verify_output', args).result).error;
    const sample = roomy.tools.call('doctrine_info', {}).result;
    const key = { name: 'k', public_key: roomy.footer.doctrine_public_key, status: 'active' };
    for (const [args, where] of [
      [{ output: ' '.repeat(512 * 1024 + 1) }, 'arguments.output'],
      // Pen test M3 of issue 26: 126,000 numbers in 250 KiB of text, counted before anything parses them.
      [{ output: `[${'0,'.repeat(126_000)}0]` }, 'arguments.output'],
      [{ output: `${'['.repeat(65)}${']'.repeat(65)}` }, 'arguments.output'],
      [{ output: `[${'0,'.repeat(25_000)}0]` }, 'arguments.output'],
      [{ output: { structuredContent: { result: Array(25_001).fill(0) } } }, 'arguments.output'],
      [{ output: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`m${i}`, i])) }, 'arguments.output'],
      [{ output: sample, trust: { format: 'signet-trust/1', keys: Array(101).fill(key) } }, 'arguments.trust.keys'],
      [{ output: sample, trust: { format: 'signet-trust/1', keys: [key], extra: 1 } }, 'arguments.trust'],
    ] as const) {
      expect(refused(args), where).toMatchObject({ code: 'invalid_arguments', details: [expect.objectContaining({ where })] });
    }
    // At the bounds, the verifier still reads the output and says what it is.
    const padded = JSON.stringify(sample).padEnd(512 * 1024, ' ');
    expect(sc(roomy.tools.call('verify_output', { output: padded }).result).result.status).toBe('trusted');
    // Values up to the bound are read, in either form (and found to be no output).
    for (const output of [`[${'0,'.repeat(24_998)}0]`, { structuredContent: { result: Array(24_990).fill(0) } }])
      expect(sc(roomy.tools.call('verify_output', { output }).result).result.status).toBe('invalid');
  });

  it('serves repeated identical calls from the cache with identical bytes', () => {
    const a = ctx.tools.call('doctrine_evaluate', { facts: { tls: { enabled: true, min_version: '1.3' } } });
    const b = ctx.tools.call('doctrine_evaluate', { facts: { tls: { min_version: '1.3', enabled: true } } });
    expect(b.cached).toBe(true);
    expect(b.json()).toBe(a.json());
    const uncached = testContext({ SIGNET_CACHE_ENTRIES: '0' });
    const c = uncached.tools.call('doctrine_info', {});
    expect(uncached.tools.call('doctrine_info', {}).cached).toBe(false);
    expect(c.cached).toBe(false);
  });
});
