// npm run release: the release artifacts, from this build, into dist/release/ (or the folder
// given), with SHA256SUMS (`sha256sum -c SHA256SUMS` checks them; docs/deployment.md#release-artifacts):
//   signet-mcp-<v>.tgz, signet-mcp-verify-<v>.tgz   the npm packages (scripts/pack.mjs)
//   signet-verify.js (+ .LEGAL.txt)                  the portable verifier, one self-contained ES module
//   verify.html                                      the verification page as one offline file
//   trust.schema.json, verify-report.schema.json     the JSON Schemas of the trust file and the report
//   signet-test-vectors-<v>.tar.gz                   the test vectors for verifiers in other languages
// The image is built and tagged apart (docs/deployment.md#the-image). Publishing is outside.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pack, ROOT } from './pack.mjs';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

export function release(out = join(ROOT, 'dist', 'release')) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), 'signet-release-'));
  for (const tarball of pack(staging)) copyFileSync(tarball, join(out, basename(tarball)));
  rmSync(staging, { recursive: true, force: true });
  for (const f of ['signet-verify.js', 'signet-verify.js.LEGAL.txt']) copyFileSync(join(ROOT, 'dist', 'verify', f), join(out, f));
  for (const f of ['trust.schema.json', 'verify-report.schema.json']) copyFileSync(join(ROOT, 'docs', 'schemas', f), join(out, f));
  writeFileSync(
    join(out, 'verify.html'),
    execFileSync(process.execPath, [join(ROOT, 'dist', 'bundle', 'signet.js'), 'verify', '--html'], { encoding: 'utf8' }),
  );
  // The vectors as a reproducible tarball: sorted names, fixed times and owners, no gzip timestamp.
  execFileSync(
    'bash',
    [
      '-o',
      'pipefail',
      '-c',
      'tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=a+rX,u+w,go-w -cf - -C docs vectors | gzip -n -9 > "$1"',
      'tar',
      join(out, `signet-test-vectors-${version}.tar.gz`),
    ],
    { cwd: ROOT },
  );
  const sums = readdirSync(out)
    .sort()
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(join(out, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
  writeFileSync(join(out, 'SHA256SUMS'), sums);
  return out;
}

// node scripts/release.mjs [OUT]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = release(process.argv[2] && resolve(process.argv[2]));
  process.stdout.write(readFileSync(join(out, 'SHA256SUMS'), 'utf8'));
  process.stderr.write(
    `release ${version}: ${relative(process.cwd(), out)}/ (check with: cd ${relative(process.cwd(), out)} && sha256sum -c SHA256SUMS)\n`,
  );
}
