import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkApiKeyFormat } from '../../src/api-keys/format.js';
import { signOutput } from '../../src/signing/sign-output.js';
import { testContext } from '../helpers/context.js';
import { CLI, MINI_DOCTRINE } from '../helpers/paths.js';
import { testFooter, testSigner } from '../helpers/signer.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

function signet(args: string[], input?: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('signet CLI', () => {
  const dir = tempDir('signet-cli-');

  it('doctrine hash prints the hash; doctrine check validates and names problems', () => {
    const ctx = testContext();
    expect(signet(['doctrine', 'hash', MINI_DOCTRINE])).toEqual({ code: 0, out: `${ctx.doctrine.hash}\n`, err: '' });
    const ok = signet(['doctrine', 'check', MINI_DOCTRINE]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^ok: mini 0\.0\.1, 2 documents, 3 rules/);
    const bad = signet(['doctrine', 'check', join(dir, 'nothing-here')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/doctrine is invalid/);
  });

  it('verify: a file that is not UTF-8 is not_json, never trusted as the text a lenient decoder makes of it (pen test L2)', () => {
    const signer = testSigner();
    const signed = signOutput(
      { tool: 'doctrine_info', input_hash: null, ok: true, result: { note: 'a\uFFFDb' } },
      testFooter(signer),
      signer,
    );
    const good = Buffer.from(signed.text, 'utf8');
    const at = good.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xff]), good.subarray(at + 3)]);
    writeFileSync(join(dir, 'good.json'), good);
    writeFileSync(join(dir, 'bad.json'), bad);
    // The control: the genuine bytes verify; a lenient decoder would read bad.json as exactly them.
    expect(signet(['verify', '--public-key', signer.publicKeySpki, join(dir, 'good.json')]).code).toBe(0);
    expect(bad.toString('utf8')).toBe(good.toString('utf8'));
    const refused = signet(['verify', '--public-key', signer.publicKeySpki, join(dir, 'bad.json')]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/not_json: input is not UTF-8/);
    const viaStdin = spawnSync(process.execPath, [CLI, 'verify', '--public-key', signer.publicKeySpki, '-'], {
      input: bad,
      encoding: 'utf8',
    });
    expect(viaStdin.status).toBe(1);
    // A trust file is read the same way: not UTF-8 is a usage error, not a lenient reading.
    writeFileSync(
      join(dir, 'trust-latin1.json'),
      Buffer.from(
        `{"format":"signet-trust/1","keys":[{"name":"caf\xe9","public_key":"${signer.publicKeySpki}","status":"active"}]}`,
        'latin1',
      ),
    );
    const badTrust = signet(['verify', '--trust', join(dir, 'trust-latin1.json'), join(dir, 'good.json')]);
    expect(badTrust.code).toBe(2);
    expect(badTrust.err).toMatch(/not UTF-8/);
  });

  it('verify: 0 only when a pinned key signed it, 3 when nothing is pinned, 1 when invalid or untrusted, 2 on usage errors', () => {
    const ctx = testContext();
    const out = ctx.tools.call('doctrine_info', {}).json();
    const file = join(dir, 'out.json');
    writeFileSync(file, out);
    // Consistent but unpinned: never 0, and the message says how to pin.
    const unpinned = signet(['verify', file]);
    expect(unpinned.code).toBe(3);
    expect(unpinned.err).toMatch(/^unpinned: .*no signer is pinned/s);
    expect(unpinned.err).toMatch(/--trust FILE .*signet trust export.*--public-key KEY/s);
    // Pinned by key, by trust file, by SIGNET_TRUST_FILE.
    const byKey = signet(['verify', '--public-key', ctx.signer.publicKeySpki, file]);
    expect(byKey.code).toBe(0);
    expect(byKey.out).toMatch(/^trusted: doctrine_info signed by "pinned" SHA256:\S+ \(active\) over mini 0\.0\.1 \(sha256:[0-9a-f]{64}\)/);
    const trustFile = join(dir, 'trust.json');
    writeFileSync(trustFile, JSON.stringify(ctx.keys.file));
    expect(signet(['verify', '--trust', trustFile, '-'], out).code).toBe(0);
    expect(signet(['verify', file], undefined, { SIGNET_TRUST_FILE: trustFile }).code).toBe(0);
    // Another key pinned: refused, with the reason.
    const other = testContext().signer.publicKeySpki;
    const wrongKey = signet(['verify', '--public-key', other], out);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.err).toMatch(/signer_untrusted: signed by SHA256:/);
    expect(signet(['verify', '--public-key', other, '--public-key', ctx.signer.publicKeySpki], out).code).toBe(0);
    const revokedFile = join(dir, 'revoked.json');
    writeFileSync(
      revokedFile,
      JSON.stringify({ format: 'signet-trust/1', keys: [{ name: 'old', public_key: ctx.signer.publicKeySpki, status: 'revoked' }] }),
    );
    expect(signet(['verify', '--trust', revokedFile], out).err).toMatch(/signer_revoked/);
    const tampered = signet(['verify', '--public-key', ctx.signer.publicKeySpki], out.replace('"mini"', '"mimi"'));
    expect(tampered.code).toBe(1);
    expect(tampered.err).toMatch(/output_hash_mismatch: output_hash does not match/);
    expect(signet(['verify'], out.replace('"mini"', '"mimi"')).code).toBe(1); // invalid even unpinned
    const json = signet(['verify', '--json', '--public-key', ctx.signer.publicKeySpki], out);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({
      format: 'signet-verify-report/1',
      status: 'trusted',
      valid: true,
      signature_valid: true,
      reasons: [],
      tool: 'doctrine_info',
    });
    expect(signet(['verify', join(dir, 'missing.json')]).code).toBe(1);
    // Usage errors: a malformed pin, a bad trust file, --recompute without arguments.
    expect(signet(['verify', '--public-key', 'not-a-key', file]).code).toBe(2);
    writeFileSync(join(dir, 'dup.json'), '{"format":"signet-trust/1","keys":[],"keys":[]}');
    const dupTrust = signet(['verify', '--trust', join(dir, 'dup.json'), file]);
    expect(dupTrust.code).toBe(2);
    expect(dupTrust.err).toMatch(/appears more than once/);
    expect(signet(['verify', '--recompute', file]).code).toBe(2);
    expect(signet(['verify', '--bogus', file]).code).toBe(2);
  });

  it('verify --recompute: a genuine output recomputes exactly; a trusted signature over a result the doctrine does not give fails', () => {
    const ctx = testContext();
    const args = { facts: { transport: { kind: 'http' }, tls: { enabled: false } } };
    const argsFile = join(dir, 'args.json');
    writeFileSync(argsFile, JSON.stringify(args));
    const genuine = ctx.tools.call('doctrine_evaluate', args).json();
    const pinFor = (file: string) => ['--public-key', ctx.signer.publicKeySpki, '--doctrine', MINI_DOCTRINE, '--arguments', file];
    const pin = pinFor(argsFile);
    const ok = signet(['verify', '--recompute', ...pin], genuine);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/recomputes exactly from the doctrine/);
    for (const tool of [
      ['doctrine_info', {}],
      ['doctrine_search', { query: 'tls' }],
      ['doctrine_get', { id: 'TLS-001' }],
      ['doctrine_get', { id: 'NOPE-1' }],
    ] as const) {
      writeFileSync(join(dir, 'a2.json'), JSON.stringify(tool[1]));
      const r = signet(['verify', '--recompute', ...pinFor(join(dir, 'a2.json'))], ctx.tools.call(tool[0], tool[1]).json());
      expect(r.code, tool[0]).toBe(0);
    }
    // The server's own key signs a body the doctrine does not give: every signature check passes,
    // only the recomputation catches it.
    const honest = JSON.parse(genuine) as { structuredContent: Record<string, unknown> };
    const { footer: _f, ...body } = honest.structuredContent as { footer: unknown; result: { summary: Record<string, unknown> } };
    body.result.summary['fail'] = 0;
    const lie = signOutput(body as never, ctx.footer, ctx.signer);
    const lying = JSON.stringify({ content: [{ type: 'text', text: lie.text }], structuredContent: JSON.parse(lie.text), isError: false });
    expect(signet(['verify', '--public-key', ctx.signer.publicKeySpki], lying).code).toBe(0);
    const caught = signet(['verify', '--recompute', ...pin], lying);
    expect(caught.code).toBe(1);
    expect(caught.err).toMatch(/recompute_mismatch/);
    // The right output for other arguments: input_hash gives it away.
    writeFileSync(join(dir, 'other-args.json'), JSON.stringify({ facts: {} }));
    const otherCall = signet(['verify', '--recompute', ...pinFor(join(dir, 'other-args.json'))], genuine);
    expect(otherCall.code).toBe(1);
    expect(otherCall.err).toMatch(/recompute_input_hash_mismatch/);
    // Another doctrine: said plainly.
    const otherDoctrine = signet(['verify', '--recompute', '--public-key', ctx.signer.publicKeySpki, '--arguments', argsFile], genuine);
    expect(otherDoctrine.err).toMatch(/recompute_doctrine_mismatch/);
    // The footer's doctrine name and version are the doctrine's too: a trusted key that signs
    // the right body over the right hash under another name is caught.
    const renamed = signOutput(body as never, { ...ctx.footer, doctrine_name: 'other-doctrine' }, ctx.signer);
    writeFileSync(join(dir, 'renamed-args.json'), JSON.stringify(args));
    const honestBody = (JSON.parse(genuine) as { structuredContent: Record<string, unknown> }).structuredContent;
    const { footer: _g, ...unchanged } = honestBody;
    const renamedHonest = signOutput(unchanged as never, { ...ctx.footer, doctrine_version: '9.9.9' }, ctx.signer);
    expect(signet(['verify', '--public-key', ctx.signer.publicKeySpki], renamedHonest.text).code).toBe(0);
    const wrongVersion = signet(['verify', '--recompute', ...pin], renamedHonest.text);
    expect(wrongVersion.code).toBe(1);
    expect(wrongVersion.err).toMatch(/recompute_doctrine_mismatch: .*doctrine_version/);
    expect(signet(['verify', '--recompute', ...pin], renamed.text).err).toMatch(/recompute_doctrine_mismatch: .*doctrine_name/);
    // verify_output depends on the server's trust: not recomputable, said as a reason, in the report too.
    const v = ctx.tools.call('verify_output', { output: genuine }).json();
    writeFileSync(join(dir, 'v.json'), JSON.stringify({ output: genuine }));
    const vArgs = ['--public-key', ctx.signer.publicKeySpki, '--doctrine', MINI_DOCTRINE, '--arguments', join(dir, 'v.json')];
    const notRecomputable = signet(['verify', '--recompute', ...vArgs], v);
    expect(notRecomputable.code).toBe(1);
    expect(notRecomputable.err).toMatch(/recompute_unsupported: .*verify_output.*depends on the keys the server trusted/);
    const asJson = signet(['verify', '--json', '--recompute', ...vArgs], v);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.out)).toMatchObject({
      status: 'invalid',
      signature_valid: true,
      recomputed: false,
      reasons: [{ code: 'recompute_unsupported' }],
    });
    const recomputedJson = signet(['verify', '--json', '--recompute', ...pin], genuine);
    expect(JSON.parse(recomputedJson.out)).toMatchObject({ status: 'trusted', recomputed: true, reasons: [] });
  });

  it('keygen writes a 0600 PKCS#8 key, prints only the public key, and refuses to overwrite', () => {
    const file = join(dir, 'k', 'signing.pem');
    const r = signet(['keygen', '--out', file]);
    expect(r.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const pem = readFileSync(file, 'utf8');
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(r.out).not.toContain(pem.split('\n')[1]!);
    expect(r.out).toMatch(/public key: [A-Za-z0-9+/]{59}=/);
    const again = signet(['keygen', '--out', file]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/Refusing to overwrite/);
    expect(readFileSync(file, 'utf8')).toBe(pem);
  });

  it('uses SIGNET_SIGNING_KEY_FILE and never prints it in errors', () => {
    const file = join(dir, 'k2.pem');
    signet(['keygen', '--out', file]);
    const ctx = testContext({ SIGNET_SIGNING_KEY_FILE: file });
    expect(ctx.keyOrigin).toBe('file');
    const notAKey = join(dir, 'bad.pem');
    writeFileSync(notAKey, '-----BEGIN PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END PRIVATE KEY-----\n', { mode: 0o600 });
    const r = signet(['serve'], '', { SIGNET_SIGNING_KEY_FILE: notAKey, SIGNET_DOCTRINE_DIR: MINI_DOCTRINE, SIGNET_DATA_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SIGNET_SIGNING_KEY_FILE is not a PKCS#8 PEM private key/);
    expect(r.err + r.out).not.toContain('TOPSECRETMATERIAL');
  });

  it('reports configuration errors clearly', () => {
    const r = signet(['serve'], '', { SIGNET_TRANSPORT: 'carrier-pigeon' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SIGNET_TRANSPORT must be one of stdio, http/);
  });

  it('keys new prints a well-formed sgnk_ key, different each time', () => {
    const a = signet(['keys', 'new']).out.trim();
    const b = signet(['keys', 'new']).out.trim();
    expect(a).toMatch(/^sgnk_[0-9A-Za-z]{57}$/);
    expect(checkApiKeyFormat(a)).toMatchObject({ ok: true });
    expect(a).not.toBe(b);
  });

  it('prints usage with exit code 2 for an unknown command (taken as arguments of the default serve)', () => {
    const r = signet(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/too many arguments for 'serve'/);
  });
});
