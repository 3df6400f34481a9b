// Pen test M5: verify_output signed "trusted, valid" verdicts for forged outputs when the caller
// supplied the forger's key under the real key's name. Reproduced end to end: an attacker key
// made by OpenSSL, a forged output signed with it, the real built server over HTTP, and the real
// `signet verify` on the report it signs. The signed report must say whose keys made the verdict,
// and never "trusted" (nor valid) on keys it was handed.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOutput } from '../../src/signing/verify.js';
import { testContext } from '../helpers/context.js';
import { type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { opensslSha256 } from '../helpers/openssl.js';
import { CLI, MINI_DOCTRINE, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

type Trust = { source: string; keys_sha256?: string };
type Report = {
  status: string;
  valid: boolean;
  signature_valid: boolean;
  signed_by_this_server: boolean;
  trust: Trust;
  signer: { name: string | null } | null;
};
type TrustFileKey = { name: string; public_key: string; status: string };

const dir = tempDir('signet-m5-');
const dataDir = tempDir('signet-m5-data-');
const env = { PATH: process.env['PATH'] ?? '', SIGNET_DOCTRINE_DIR: MINI_DOCTRINE, SIGNET_DATA_DIR: dataDir };
const signet = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
const reportSchema = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(
  JSON.parse(readFileSync(join(ROOT, 'docs/schemas/verify-report.schema.json'), 'utf8')) as object,
);

let server: ServerProcess;
let serverTrustFile: string;
let realKey: TrustFileKey;
let forged: string;
let attackerSpki: string;
let id = 0;

/** One tools/call to the real server; the JSON-RPC response exactly as received. */
async function call(name: string, args: Record<string, unknown>): Promise<string> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }),
  });
  expect(res.status).toBe(200);
  return res.text();
}
const reportOf = (response: string) =>
  (JSON.parse(response) as { result: { structuredContent: { result: Report } } }).result.structuredContent.result;

beforeAll(async () => {
  server = await startHttpServer({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: MINI_DOCTRINE, SIGNET_RATE_LIMIT_PER_MINUTE: '1000' });
  // The operator's trust file, as a consumer pins it.
  const exported = signet(['trust', 'export']);
  expect(exported.status, exported.stderr).toBe(0);
  serverTrustFile = join(dir, 'server-trust.json');
  writeFileSync(serverTrustFile, exported.stdout);
  realKey = (JSON.parse(exported.stdout) as { keys: TrustFileKey[] }).keys[0]!;
  expect(realKey.name).toMatch(/^signet-[A-Za-z0-9_]{8}$/); // e.g. signet-Uu2WieqX

  // The attacker: an Ed25519 key from OpenSSL, a Signet of their own over the same doctrine.
  const keyFile = join(dir, 'attacker.pem');
  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', keyFile]);
  execFileSync('chmod', ['600', keyFile]);
  const attacker = testContext({ SIGNET_SIGNING_KEY_FILE: keyFile });
  attackerSpki = attacker.signer.publicKeySpki;
  expect(attackerSpki).not.toBe(realKey.public_key);
  forged = JSON.stringify(attacker.tools.call('doctrine_info', {}).result);
}, 30_000);
afterAll(async () => server?.stop());

describe('verify_output never signs borrowed trust (M5, through the real server)', () => {
  it("the forger's key named like the real one: trusted_by_caller, not valid, the caller's trust named by its hash", async () => {
    const disguised = { format: 'signet-trust/1', keys: [{ name: realKey.name, public_key: attackerSpki, status: 'active' }] };
    // As an object and as its text: the same trust, the same verdict, byte for byte (the calls'
    // input_hash differ, as their arguments do).
    const asObject = await call('verify_output', { output: forged, trust: disguised });
    const asText = await call('verify_output', { output: forged, trust: JSON.stringify(disguised) });
    expect(JSON.stringify(reportOf(asText))).toBe(JSON.stringify(reportOf(asObject)));
    const r = reportOf(asObject);
    expect(r).toMatchObject({ status: 'trusted_by_caller', valid: false, signature_valid: true, signed_by_this_server: false });
    expect(r.signer?.name).toBe(realKey.name);
    // keys_sha256 as documented (docs/trust.md), recomputed here with OpenSSL: the RFC 8785 form of
    // {doctrine_hashes, keys: [{name, public_key, status}] sorted by public_key} (ASCII, so JSON.stringify in JCS member order).
    const documented = JSON.stringify({
      doctrine_hashes: null,
      keys: [{ name: realKey.name, public_key: attackerSpki, status: 'active' }],
    });
    expect(r.trust).toEqual({ source: 'caller', keys_sha256: opensslSha256(documented) });
    expect(reportSchema(r), JSON.stringify(reportSchema.errors)).toBe(true);
    // The report is the real server's own signed output: the trust source is signed with the verdict.
    expect(verifyOutput(asObject).signature_valid).toBe(true);
    expect(verifyOutput(asObject).signer?.public_key).toBe(realKey.public_key);
  });

  it('trusted_keys and expected_doctrine_hash are the caller trust too, each with its own hash', async () => {
    const byKey = reportOf(await call('verify_output', { output: forged, trusted_keys: [attackerSpki] }));
    expect(byKey).toMatchObject({ status: 'trusted_by_caller', valid: false });
    expect(byKey.trust.keys_sha256).toBe(
      opensslSha256(JSON.stringify({ doctrine_hashes: null, keys: [{ name: 'pinned', public_key: attackerSpki, status: 'active' }] })),
    );
    const hash = (JSON.parse(forged) as { structuredContent: { footer: { doctrine_hash: string } } }).structuredContent.footer
      .doctrine_hash;
    const pinned = reportOf(await call('verify_output', { output: forged, trusted_keys: [attackerSpki], expected_doctrine_hash: hash }));
    expect(pinned.status).toBe('trusted_by_caller');
    expect(pinned.trust.keys_sha256).toBe(
      opensslSha256(JSON.stringify({ doctrine_hashes: [hash], keys: [{ name: 'pinned', public_key: attackerSpki, status: 'active' }] })),
    );
    // The server's own key handed back by the caller is still the caller's trust: only the server's
    // own key set, with no keys passed, makes "trusted".
    const own = await call('doctrine_info', {});
    const handedBack = reportOf(await call('verify_output', { output: own, trusted_keys: [realKey.public_key] }));
    expect(handedBack).toMatchObject({
      status: 'trusted_by_caller',
      valid: false,
      signed_by_this_server: true,
      trust: { source: 'caller' },
    });
  });

  it("trusted, valid and source server only for this server's own keys; the forged output alone is untrusted", async () => {
    const own = await call('doctrine_info', {});
    const mine = reportOf(await call('verify_output', { output: own }));
    expect(mine).toMatchObject({ status: 'trusted', valid: true, signed_by_this_server: true, trust: { source: 'server' } });
    expect(reportSchema(mine), JSON.stringify(reportSchema.errors)).toBe(true);
    const alone = reportOf(await call('verify_output', { output: forged }));
    expect(alone).toMatchObject({ status: 'invalid', valid: false, trust: { source: 'server' } });
  });

  it('signet verify on the signed report: exit 0 for the report, and a line saying its verdict rests on the caller keys', async () => {
    const disguised = { format: 'signet-trust/1', keys: [{ name: realKey.name, public_key: attackerSpki, status: 'active' }] };
    const response = await call('verify_output', { output: forged, trust: disguised });
    const file = join(dir, 'report.json');
    writeFileSync(file, response);
    const text = signet(['verify', '--trust', serverTrustFile, file]);
    // Exit 0: a pinned key (the real server's) signed the report. The output it checked is not
    // vouched for by that server, and the second line says so.
    expect(text.status, text.stderr).toBe(0);
    const [first, second, ...rest] = text.stdout.split('\n');
    expect(first).toMatch(new RegExp(`^trusted: verify_output signed by "${realKey.name}" SHA256:\\S+ \\(active\\) over mini `));
    expect(second).toBe(
      `  the report's verdict on the output it checked: trusted_by_caller, by keys the caller supplied (${reportOf(response).trust.keys_sha256}), not the signing server's: it vouches for the check, not for them`,
    );
    expect(rest).toEqual(['']);
    expect(text.stdout).not.toMatch(/own keys/);

    const json = signet(['verify', '--json', '--trust', serverTrustFile, file]);
    expect(json.status).toBe(0);
    const parsed = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(parsed['reported_verdict']).toEqual({ status: 'trusted_by_caller', trust: reportOf(response).trust });
    expect(reportSchema(parsed), JSON.stringify(reportSchema.errors)).toBe(true);

    // A report of the server's own verdict says so.
    const genuine = join(dir, 'genuine-report.json');
    writeFileSync(genuine, await call('verify_output', { output: await call('doctrine_info', {}) }));
    const ownText = signet(['verify', '--trust', serverTrustFile, genuine]);
    expect(ownText.status).toBe(0);
    expect(ownText.stdout.split('\n')[1]).toBe(
      "  the report's verdict on the output it checked: trusted, by the signing server's own keys",
    );

    // Not pinned: the report's claims are not repeated as a verdict.
    const unpinned = signet(['verify', '--json', file]);
    expect(unpinned.status).toBe(3);
    expect(JSON.parse(unpinned.stdout)).toMatchObject({ status: 'unpinned', reported_verdict: { status: 'trusted_by_caller' } });
  });

  it("a report the attacker signs himself, claiming the server's trust, is refused by the real server's pin", () => {
    const keyFile = join(dir, 'attacker.pem');
    const attacker = testContext({ SIGNET_SIGNING_KEY_FILE: keyFile });
    const own = attacker.tools.call('verify_output', { output: forged }).result;
    expect((own.structuredContent as { result: Report }).result).toMatchObject({ status: 'trusted', trust: { source: 'server' } });
    const file = join(dir, 'attacker-report.json');
    writeFileSync(file, JSON.stringify(own));
    const r = signet(['verify', '--trust', serverTrustFile, file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/signer_untrusted/);
    expect(r.stdout).toBe('');
  });
});

describe("signet verify shows an output's own text with control and direction characters made visible (L4)", () => {
  it('a member name with an escape sequence and a right-to-left override, in the reasons', () => {
    const output = JSON.parse(forged) as { structuredContent: Record<string, unknown> };
    output.structuredContent['\u001b[2J\u202Etrusted'] = 1;
    const file = join(dir, 'escapes.json');
    writeFileSync(file, JSON.stringify(output));
    const r = signet(['verify', '--trust', serverTrustFile, file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unexpected member "\\u{001B}[2J\\u{202E}trusted" in the signed output');
    expect(r.stderr).not.toMatch(/[\u001b\u202e]/);
  });
});
