import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { checkDoctrine, loadDoctrine } from '../../../src/doctrine/load.js';
import { MINI_DOCTRINE } from '../../helpers/paths.js';
import { copyDoctrine } from '../../helpers/tmp-doctrine.js';

describe('doctrine manifest and hash', () => {
  const doctrine = loadDoctrine(MINI_DOCTRINE);

  it('is sha256 over a sha256sum-format manifest that coreutils reproduces', () => {
    const coreutils = execSync(
      "find . -type f ! -name '.*' ! -name doctrine.sig | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum",
      { cwd: MINI_DOCTRINE },
    )
      .toString()
      .split(' ')[0];
    expect(doctrine.hash).toBe(`sha256:${coreutils}`);
    expect(doctrine.manifest.text.split('\n').filter(Boolean)).toHaveLength(5);
    expect(doctrine.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not change with CRLF line endings, and changes with any content change', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    for (const f of ['documents/tls-basics.md', 'rules/tls.json', 'doctrine.json']) {
      const p = join(dir, f);
      writeFileSync(p, readFileSync(p, 'utf8').replace(/\n/g, '\r\n'));
    }
    expect(loadDoctrine(dir).hash).toBe(doctrine.hash);

    const p = join(dir, 'documents/tls-basics.md');
    const original = readFileSync(p);
    for (const i of [0, 10, original.length - 3]) {
      const flipped = Buffer.from(original);
      flipped[i]! ^= 0x20;
      writeFileSync(p, flipped);
      const result = checkDoctrine(dir);
      // Either the doctrine no longer parses, or it hashes differently: never the same hash.
      expect(result.doctrine?.hash).not.toBe(doctrine.hash);
    }
  });

  it('ignores dotfiles and refuses symlinks', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    writeFileSync(join(dir, '.DS_Store'), 'junk');
    expect(loadDoctrine(dir).hash).toBe(doctrine.hash);
    symlinkSync('/etc/passwd', join(dir, 'documents', 'passwd.md'));
    const { problems } = checkDoctrine(dir);
    expect(problems).toEqual([{ where: 'documents/passwd.md', message: 'symbolic link' }]);
  });

  it('names file and field for every problem', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    const rules = JSON.parse(readFileSync(join(dir, 'rules/tls.json'), 'utf8'));
    rules.rules[1].id = 'TLS-001'; // duplicate
    rules.rules[0].severity = 'urgent';
    rules.rules[1].references.push('doc:no-such-doc');
    rules.rules[1].check = { method: [{ var: 'tls.min_version' }, 'toString'] };
    writeFileSync(join(dir, 'rules/tls.json'), JSON.stringify(rules));
    writeFileSync(
      join(dir, 'rules/transport.json'),
      JSON.stringify({
        rules: [
          {
            ...JSON.parse(readFileSync(join(MINI_DOCTRINE, 'rules/transport.json'), 'utf8')).rules[0],
            check: { '==': [{ var: 'transport.knd' }, 'x'] },
          },
        ],
      }),
    );
    writeFileSync(join(dir, 'documents/tls-basics.md'), '---\nid: tls-basic\ntitle: TLS\n---\nbody\n');
    mkdirSync(join(dir, 'scripts'));
    writeFileSync(join(dir, 'scripts/run.sh'), 'echo hi');
    const { doctrine: d, problems } = checkDoctrine(dir);
    expect(d).toBeNull();
    const text = problems.map((p) => `${p.where} => ${p.message}`).join('\n');
    expect(text).toContain('rules/tls.json: rules.0.severity => must be one of ["critical","high","medium","low"]');
    expect(text).toContain('documents/tls-basics.md front matter: id => id "tls-basic" must equal the file name "tls-basics"');
    expect(text).toContain('scripts/run.sh => unexpected file');
    expect(text).toMatch(/rules\/tls\.json: rules\.1\.check: operator "method" is not allowed/);
    expect(text).toContain('uses fact "transport.knd", which facts_schema does not declare');
  });

  it('reports duplicate ids and broken references', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    const rules = JSON.parse(readFileSync(join(dir, 'rules/tls.json'), 'utf8'));
    rules.rules[1].id = 'TLS-001';
    rules.rules[1].references = ['doc:missing-doc'];
    writeFileSync(join(dir, 'rules/tls.json'), JSON.stringify(rules));
    const { problems } = checkDoctrine(dir);
    expect(problems).toContainEqual({
      where: 'rules/tls.json: TLS-001.id',
      message: 'duplicate rule id "TLS-001" (first in rules/tls.json)',
    });
    expect(problems).toContainEqual({
      where: 'rules/tls.json: TLS-001.references',
      message: 'broken reference "doc:missing-doc": no document with that id',
    });
  });

  it('checks scope areas and consistency constraints like rules: known facts, valid logic, areas that are categories, unique ids', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    const meta = JSON.parse(readFileSync(join(dir, 'doctrine.json'), 'utf8'));
    const area = { title: 'TLS', out_of_scope: { '==': [{ var: 'tls.enabled' }, false] }, required: true, rationale: 'why' };
    meta.scope = {
      areas: [
        { id: 'tls', ...area },
        { id: 'tls', ...area },
        { id: 'nothing', ...area, required: { var: 'tls.enbled' } },
      ],
    };
    const check = { or: [{ '!=': [{ var: 'transport.kind' }, 'stdio'] }, { '==': [{ var: 'tls.enabled' }, false] }] };
    meta.consistency = [
      { id: 'FACTS-001', message: 'stdio has no TLS', check },
      { id: 'FACTS-001', message: 'again', check: { log: 1 } },
    ];
    writeFileSync(join(dir, 'doctrine.json'), JSON.stringify(meta));
    const text = checkDoctrine(dir)
      .problems.map((p) => `${p.where} => ${p.message}`)
      .join('\n');
    expect(text).toContain('doctrine.json: scope.areas.1.id => duplicate area "tls"');
    expect(text).toContain('doctrine.json: scope.areas.2.id => "nothing" is not the category of any rule');
    expect(text).toContain('doctrine.json: scope.areas.2.required => uses fact "tls.enbled", which facts_schema does not declare');
    expect(text).toContain('doctrine.json: consistency.1.id => duplicate constraint id "FACTS-001"');
    expect(text).toMatch(/consistency\.1\.check: operator "log" is not allowed/);
    // Valid, they load, and the evaluator applies them.
    meta.scope.areas = [meta.scope.areas[0]];
    meta.consistency = [meta.consistency[0]];
    writeFileSync(join(dir, 'doctrine.json'), JSON.stringify(meta));
    const d = loadDoctrine(dir);
    expect(d.areas.map((a) => [a.id, a.facts])).toEqual([['tls', ['tls.enabled']]]);
    expect(d.constraints.map((c) => [c.id, c.facts])).toEqual([['FACTS-001', ['tls.enabled', 'transport.kind']]]);
    expect(() => evaluateFacts(d, { transport: { kind: 'stdio' }, tls: { enabled: true } })).toThrow(/FACTS-001/);
    expect(evaluateFacts(d, { transport: { kind: 'http' }, tls: { enabled: false } }).summary.verdict).toBe('fail');
    expect(evaluateFacts(d, { transport: { kind: 'stdio' }, tls: { enabled: false, min_version: '1.3' } }).summary).toMatchObject({
      verdict: 'limited_scope',
      scope: { declared_out_of_scope: ['tls'], minimum: ['tls'], minimum_unmet: ['tls'] },
    });
  });

  it('validates the facts schema against the meta-schema when asked (doctrine check)', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    const meta = JSON.parse(readFileSync(join(dir, 'doctrine.json'), 'utf8'));
    meta.facts_schema.properties.tls.properties.min_version = { type: 'string', minLength: 'two' };
    writeFileSync(join(dir, 'doctrine.json'), JSON.stringify(meta));
    const { problems } = checkDoctrine(dir, { metaSchema: true });
    expect(problems.some((p) => p.where === 'doctrine.json: facts_schema' && /minLength/.test(p.message))).toBe(true);
  });

  it('rejects a missing or malformed doctrine.json with a clear message', () => {
    const dir = copyDoctrine(MINI_DOCTRINE);
    writeFileSync(join(dir, 'doctrine.json'), '{ not json');
    expect(() => loadDoctrine(dir)).toThrow(/doctrine\.json: not valid JSON/);
    expect(checkDoctrine('/nonexistent/doctrine').problems[0]?.message).toBe('folder is not readable');
  });
});
