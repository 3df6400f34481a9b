// The published test vectors (docs/vectors/): current (regenerated from the code they are the
// same bytes), passed by Signet's verifier on every path (portable, node:crypto, the verifier
// package's bin), and by an independent implementation written from docs/vectors/README.md
// alone: test/vectors/verify.py, Python with only the standard library and Debian's
// python3-cryptography.

import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodePrimitives } from '../../src/signing/node-primitives.js';
import { parseTrustFile, trustSet } from '../../src/signing/trust.js';
import { REASON_CODES, verifyOutput } from '../../src/signing/verify.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const VECTORS = join(ROOT, 'docs', 'vectors');
interface Vector {
  name: string;
  input: string;
  trust: string | null;
  expected: { status: string; reasons: string[] };
}
const index = JSON.parse(readFileSync(join(VECTORS, 'vectors.json'), 'utf8')) as { vectors: Vector[] };
const PYTHON = '/usr/bin/python3'; // Debian's, with Debian's python3-cryptography (.ci/run installs it)

const files = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== 'README.md')
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

describe('the published test vectors', () => {
  it('are what `npm run vectors` generates from the code now, byte for byte', () => {
    const fresh = tempDir('signet-vectors-');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'vectors.mjs'), fresh], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(files(fresh)).toEqual(files(VECTORS));
    for (const f of files(fresh))
      expect(readFileSync(join(fresh, f)).equals(readFileSync(join(VECTORS, f))), `${f} is stale: npm run vectors`).toBe(true);
  });

  it('cover valid, unpinned, and every reason code an output verification without --recompute can give from text', () => {
    const statuses = new Set(index.vectors.map((v) => v.expected.status));
    expect([...statuses].sort()).toEqual(['invalid', 'trusted', 'unpinned']);
    const covered = new Set(index.vectors.flatMap((v) => v.expected.reasons));
    // Not from outputs given as text: recomputation (it needs the doctrine), a value RFC 8785 cannot
    // write (step 1 refuses it first), the reasons of attestations (DSSE envelopes, docs/checking.md).
    const attestationOnly = ['dsse_malformed', 'statement_malformed', 'predicate_type_unsupported'];
    const expectedCodes = REASON_CODES.filter(
      (c) => !c.startsWith('recompute_') && c !== 'not_canonicalisable' && !attestationOnly.includes(c),
    );
    expect(expectedCodes.filter((c) => !covered.has(c))).toEqual([]);
  });

  it("are passed by Signet's verifier, portable and node:crypto, and by the verifier package's bin", () => {
    const bin = join(ROOT, 'dist', 'verify', 'bin', 'signet-mcp-verify.js');
    for (const v of index.vectors) {
      const input = readFileSync(join(VECTORS, v.input)); // bytes: some are not UTF-8
      const trust = v.trust ? trustSet({ files: [parseTrustFile(readFileSync(join(VECTORS, v.trust), 'utf8'))] }) : undefined;
      for (const primitives of [undefined, nodePrimitives]) {
        const report = verifyOutput(input, { trust, ...(primitives ? { primitives } : {}) });
        expect({ status: report.status, reasons: report.reasons.map((r) => r.code) }, v.name).toEqual(v.expected);
      }
      // The bin reads the file itself: each way of reading, and each status with its exit code.
      if (!/^(valid-jsonrpc|unpinned|signer-|not-json|duplicate|number|string)/.test(v.name)) continue;
      const r = spawnSync(process.execPath, [bin, '--json', ...(v.trust ? ['--trust', v.trust] : []), v.input], {
        cwd: VECTORS,
        encoding: 'utf8',
      });
      const report = JSON.parse(r.stdout) as { status: string; reasons: { code: string }[] };
      expect({ status: report.status, reasons: report.reasons.map((x) => x.code) }, v.name).toEqual(v.expected);
      expect(r.status, v.name).toBe({ trusted: 0, invalid: 1, unpinned: 3 }[v.expected.status]);
    }
  });

  it('are passed by an independent implementation in Python (only json and cryptography)', () => {
    const r = spawnSync(PYTHON, [join(ROOT, 'test', 'vectors', 'verify.py'), VECTORS], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const results = r.stdout.trim().split('\n');
    expect(results.at(-1)).toBe(`${index.vectors.length} passed, 0 failed`);
    expect(r.status).toBe(0);
    // The control: a wrong expectation makes it fail.
    const copy = tempDir('signet-vectors-control-');
    cpSync(VECTORS, copy, { recursive: true });
    const doc = JSON.parse(readFileSync(join(copy, 'vectors.json'), 'utf8')) as { vectors: Vector[] };
    doc.vectors.find((v) => v.name === 'signer-untrusted-forgery')!.expected = { status: 'trusted', reasons: [] };
    writeFileSync(join(copy, 'vectors.json'), JSON.stringify(doc));
    const control = spawnSync(PYTHON, [join(ROOT, 'test', 'vectors', 'verify.py'), copy], { encoding: 'utf8' });
    expect(control.stdout.trim().split('\n').at(-1)).toBe(`${index.vectors.length - 1} passed, 1 failed`);
    expect(control.status).toBe(1);
  });
});
