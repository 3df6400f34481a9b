// `npm run release` (scripts/release.mjs): every artifact docs/deployment.md lists, each what it
// says it is, SHA256SUMS that `sha256sum -c` (the documented check) accepts and that catches a
// changed byte, and the same bytes from a second run.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/clean-env.js';
import { testContext } from '../helpers/context.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const release = (out: string) =>
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'release.mjs'), out], { cwd: ROOT, encoding: 'utf8' });

describe('npm run release', () => {
  const out = tempDir('signet-release-');
  let printed = '';
  beforeAll(() => {
    printed = release(out);
  }, 120_000);

  it('writes the documented artifacts and SHA256SUMS over all of them', () => {
    const files = readdirSync(out).sort();
    expect(files).toEqual(
      [
        'SHA256SUMS',
        `signet-mcp-${VERSION}.tgz`,
        `signet-mcp-verify-${VERSION}.tgz`,
        `signet-test-vectors-${VERSION}.tar.gz`,
        'signet-verify.js',
        'signet-verify.js.LEGAL.txt',
        'trust.schema.json',
        'verify-report.schema.json',
        'verify.html',
      ].sort(),
    );
    const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
    expect(printed).toBe(sums);
    expect(
      sums
        .trim()
        .split('\n')
        .map((l) => l.split('  ')[1]),
    ).toEqual(files.filter((f) => f !== 'SHA256SUMS'));
    // Every documented artifact appears in the table of docs/deployment.md.
    const doc = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
    for (const f of files) expect(doc, f).toContain(f.replace(VERSION, 'X.Y.Z').replace('.LEGAL.txt', ''));
  });

  it('each artifact is what it says: the module, the page, the schemas, the packages, the vectors', () => {
    const same = (a: string, b: string) => readFileSync(join(out, a)).equals(readFileSync(b));
    expect(same('signet-verify.js', join(ROOT, 'dist', 'verify', 'signet-verify.js'))).toBe(true);
    expect(same('trust.schema.json', join(ROOT, 'docs', 'schemas', 'trust.schema.json'))).toBe(true);
    expect(same('verify-report.schema.json', join(ROOT, 'docs', 'schemas', 'verify-report.schema.json'))).toBe(true);
    expect(readFileSync(join(out, 'verify.html'), 'utf8')).toBe(
      execFileSync(process.execPath, [CLI, 'verify', '--html'], { encoding: 'utf8' }),
    );
    for (const name of ['signet-mcp', 'signet-mcp-verify']) {
      const manifest = execFileSync('tar', ['-xOzf', join(out, `${name}-${VERSION}.tgz`), 'package/package.json'], { encoding: 'utf8' });
      expect(JSON.parse(manifest)).toMatchObject({ name, version: VERSION });
    }
    const unpacked = tempDir('signet-release-vectors-');
    execFileSync('tar', ['-xzf', join(out, `signet-test-vectors-${VERSION}.tar.gz`), '-C', unpacked]);
    const listed = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();
    expect(listed(join(unpacked, 'vectors'))).toEqual(listed(join(ROOT, 'docs', 'vectors')));
    expect(
      readFileSync(join(unpacked, 'vectors', 'vectors.json')).equals(readFileSync(join(ROOT, 'docs', 'vectors', 'vectors.json'))),
    ).toBe(true);
  });

  it('the documented check passes on the artifacts and fails on one changed byte', () => {
    const check = docRecipe('deployment.md', 'release-check');
    const ok = spawnSync('bash', ['-e', '-c', check], { cwd: out, encoding: 'utf8' });
    expect(ok.stdout.trim().split('\n')).toEqual(
      readdirSync(out)
        .filter((f) => f !== 'SHA256SUMS')
        .sort()
        .map((f) => `${f}: OK`),
    );
    expect(ok.status).toBe(0);
    const tampered = tempDir('signet-release-tampered-');
    cpSync(out, tampered, { recursive: true });
    const page = readFileSync(join(tampered, 'verify.html'));
    page[page.length - 2]! ^= 1;
    writeFileSync(join(tampered, 'verify.html'), page);
    const bad = spawnSync('bash', ['-e', '-c', check], { cwd: tampered, encoding: 'utf8' });
    expect(bad.stdout).toContain('verify.html: FAILED');
    expect(bad.status).not.toBe(0);
  });

  it("a consumer with no registry installs the verifier from the release and checks an answer and an attestation (docs' recipe)", () => {
    // What the operator hands over: the trust file of its signing key, an answer and an attestation signed with it.
    const operator = tempDir('signet-release-operator-');
    const key = join(operator, 'signing-key.pem');
    execFileSync(process.execPath, [CLI, 'keygen', '--out', key], { encoding: 'utf8' });
    const opEnv = cleanEnv({ SIGNET_SIGNING_KEY_FILE: key, SIGNET_DATA_DIR: join(operator, 'data') });
    const consumer = tempDir('signet-release-consumer-');
    cpSync(out, consumer, { recursive: true });
    writeFileSync(join(consumer, 'signet-trust.json'), execFileSync(process.execPath, [CLI, 'trust', 'export'], { env: opEnv }));
    const ctx = testContext({ SIGNET_SIGNING_KEY_FILE: key });
    const answer = ctx.tools.call('doctrine_get', { id: ctx.doctrine.rules[0]!.id }).result;
    writeFileSync(join(consumer, 'answer.json'), JSON.stringify({ jsonrpc: '2.0', id: 1, result: answer }));
    const check = spawnSync(
      process.execPath,
      [
        CLI,
        'check',
        'docker-compose.yml',
        '--format',
        'json',
        '--output',
        join(operator, 'report.json'),
        '--attest',
        join(consumer, 'signet-attestation.json'),
      ],
      { cwd: ROOT, env: opEnv, encoding: 'utf8' },
    );
    expect([0, 1, 3], check.stderr).toContain(check.status);
    // npm can reach nothing: a registry and proxies on a closed port, an empty cache and home.
    const closed = 'http://127.0.0.1:9/';
    const env = cleanEnv({
      HOME: consumer,
      npm_config_registry: closed,
      npm_config_proxy: closed,
      npm_config_https_proxy: closed,
      npm_config_cache: join(consumer, '.npm-cache'),
      npm_config_update_notifier: 'false',
    });
    const recipe = docRecipe('deployment.md', 'release-verify');
    const r = spawnSync('bash', ['-e', '-c', recipe], { cwd: consumer, env, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^trusted: doctrine_get signed by "\S+" SHA256:\S+ \(active\) over /m);
    expect(r.stdout).toMatch(/^trusted: attestation \(signet check\) signed by "\S+" SHA256:\S+ \(active\) over /m);
    expect(r.stdout).toMatch(/^ {2}the attestation's verdict: [a-z_]+, about docker-compose\.yml$/m);
    // The same steps refuse what was altered on the way, and a signer the trust file does not name.
    const attestation = readFileSync(join(consumer, 'signet-attestation.json'), 'utf8');
    writeFileSync(
      join(consumer, 'signet-attestation.json'),
      attestation.replace(/"sig":"(.)/, (_m, c: string) => `"sig":"${c === 'A' ? 'B' : 'A'}`),
    );
    expect(spawnSync('bash', ['-e', '-c', recipe], { cwd: consumer, env, encoding: 'utf8' }).status).toBe(1);
    writeFileSync(join(consumer, 'signet-attestation.json'), attestation);
    writeFileSync(join(consumer, 'signet-trust.json'), JSON.stringify({ format: 'signet-trust/1', keys: [] }));
    expect(spawnSync('bash', ['-e', '-c', recipe], { cwd: consumer, env, encoding: 'utf8' }).status).not.toBe(0);
  }, 180_000);

  it('gives the same bytes when run again (reproducible tarballs)', () => {
    const again = tempDir('signet-release-again-');
    expect(release(again)).toBe(readFileSync(join(out, 'SHA256SUMS'), 'utf8'));
  });
});
