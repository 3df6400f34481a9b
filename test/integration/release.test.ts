// `npm run release` (scripts/release.mjs): every artifact docs/deployment.md lists, each what it
// says it is, SHA256SUMS that `sha256sum -c` (the documented check) accepts and that catches a
// changed byte, and the same bytes from a second run.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
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

  it('gives the same bytes when run again (reproducible tarballs)', () => {
    const again = tempDir('signet-release-again-');
    expect(release(again)).toBe(readFileSync(join(out, 'SHA256SUMS'), 'utf8'));
  });
});
