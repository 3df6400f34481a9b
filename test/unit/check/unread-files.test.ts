// A deployment file that cannot be read never lets a check pass: named on the command line (or
// handed to deployment_check) it is bad input, exit 2; found while walking a directory it keeps
// the verdict at incomplete at best, and every format lists it. The audit's case: a broken
// compose.yaml beside declared facts that complete the verdict printed "skipped …" then PASS.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkStatement } from '../../../src/check/attestation.js';
import { parseDeclared } from '../../../src/check/declared.js';
import { toJunit } from '../../../src/check/format/junit.js';
import { toSarif } from '../../../src/check/format/sarif.js';
import { toText } from '../../../src/check/format/text.js';
import { exitCodeOf } from '../../../src/check/report.js';
import { runCheck } from '../../../src/check/run.js';
import { readAndCollect } from '../../../src/collect/disk.js';
import { SignetError } from '../../../src/errors.js';
import { fixtureFacts } from '../../helpers/check-fixtures.js';
import { doctrine } from '../../helpers/collect.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

const dir = tempDir('signet-unread-');
/** Indentation that YAML refuses: a mapping inside a scalar line. */
const BROKEN = 'services:\n  mcp:\n    image: acme/mcp:1\n   ports: ["3000:3000"]\n';
mkdirSync(join(dir, 'deploy'));
writeFileSync(join(dir, 'deploy', 'compose.yaml'), BROKEN);
// Declared facts that alone give a pass: what the broken file might have contradicted.
const declared = parseDeclared(doctrine, 'declared.json', new TextEncoder().encode(JSON.stringify({ facts: fixtureFacts('hardened') })));

const check = (paths: string[]) => {
  const { collection, named } = readAndCollect(
    paths.map((p) => join(dir, p)),
    { root: dir },
    doctrine,
  );
  return runCheck(doctrine, { collection, declared, named });
};

describe('a deployment file that cannot be read', () => {
  it('named: bad input (exit 2) naming the file, the reason and its line', () => {
    let err: unknown;
    try {
      check(['deploy/compose.yaml']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SignetError);
    expect((err as SignetError).code).toBe('invalid_arguments');
    expect((err as SignetError).message).toMatch(/^deploy\/compose\.yaml cannot be read: could not be read as compose: .*line 4/);
  });

  it('found by a walk: incomplete at best (exit 3), never a pass, and listed in every format', () => {
    const report = check(['deploy']);
    expect(report.deployments.map((d) => [d.name, d.verdict])).toEqual([['declared', 'pass']]);
    expect(report.verdict).toBe('incomplete');
    expect(exitCodeOf(report.verdict)).toBe(3);
    expect(report.skipped).toEqual([{ path: 'deploy/compose.yaml', reason: expect.stringMatching(/^could not be read as compose: /) }]);
    expect(toText(report, doctrine, declared)).toMatch(
      /^signet check: INCOMPLETE: 1 file found in the directories could not be read \(listed below\)[^\n]*\n[^\n]*\nskipped deploy\/compose\.yaml: could not be read as compose/,
    );
    const run = (toSarif(report, doctrine, declared) as any).runs[0];
    expect(run.properties.verdict).toBe('incomplete');
    expect(run.properties.skipped).toEqual(report.skipped);
    expect(run.invocations[0].toolExecutionNotifications).toEqual([
      expect.objectContaining({
        level: 'error',
        locations: [{ physicalLocation: { artifactLocation: { uri: 'deploy/compose.yaml' } } }],
      }),
    ]);
    expect(toJunit(report, doctrine, declared)).toMatch(
      /<testsuite name="files not read" tests="1" failures="0" errors="1" skipped="0">\n {4}<testcase classname="files not read" name="deploy\/compose\.yaml"><error type="not_read"/,
    );
    const statement = checkStatement(report, { publicKey: 'k', keyid: 'SHA256:k' }) as any;
    expect(statement.predicate.verdict).toBe('incomplete');
    expect(statement.predicate.skipped).toEqual(report.skipped);
  });

  it('a readable file walked beside it changes nothing: the same declared facts pass', () => {
    const clean = join(dir, 'clean');
    mkdirSync(clean);
    writeFileSync(join(clean, 'notes.yaml'), 'just: notes\n');
    const report = check(['clean']);
    expect(report.skipped).toEqual([]);
    expect(report.verdict).toBe('pass');
  });
});
