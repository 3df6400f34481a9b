// signet check's core without I/O: collected deployments merged with declared facts, one verdict
// each, the worst overall, and every contradiction named by both of its sources.
import { describe, expect, it } from 'vitest';
import { parseDeclared } from '../../../src/check/declared.js';
import { exitCodeOf, worstVerdict } from '../../../src/check/report.js';
import { runCheck } from '../../../src/check/run.js';
import { evaluateFacts } from '../../../src/doctrine/evaluate.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { SignetError } from '../../../src/errors.js';
import { canonicalJson } from '../../../src/signing/canonical.js';
import { collectionOf, composeFacts, deploymentFrom, fixtureFacts } from '../../helpers/check-fixtures.js';
import { DEFAULT_DOCTRINE } from '../../helpers/paths.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
const declared = (obj: unknown, path = 'declared.json') =>
  parseDeclared(doctrine, path, new TextEncoder().encode(JSON.stringify(obj, null, 2)));
const thrown = (f: () => unknown): SignetError => {
  try {
    f();
  } catch (err) {
    if (err instanceof SignetError) return err;
    throw err;
  }
  throw new Error('expected a SignetError');
};

const verdictOf = (facts: Record<string, unknown>) => evaluateFacts(doctrine, facts).summary.verdict;

describe('verdicts per deployment, the worst overall', () => {
  it('orders fail > incomplete > limited_scope > pass and maps them to exit codes 1, 3, 3, 0', () => {
    expect(worstVerdict(['pass', 'limited_scope', 'pass'])).toBe('limited_scope');
    expect(worstVerdict(['limited_scope', 'incomplete'])).toBe('incomplete');
    expect(worstVerdict(['pass', 'pass', 'pass', 'pass', 'fail'])).toBe('fail');
    // A review of nothing never passes.
    expect(worstVerdict([])).toBe('incomplete');
    expect([exitCodeOf('pass'), exitCodeOf('fail'), exitCodeOf('incomplete'), exitCodeOf('limited_scope')]).toEqual([0, 1, 3, 3]);
  });

  it('one unsafe deployment among four safe ones decides the overall verdict', () => {
    expect([verdictOf(fixtureFacts('hardened')), verdictOf(fixtureFacts('exposed'))]).toEqual(['pass', 'fail']);
    const safe = (i: number) => deploymentFrom(`client:.mcp.json:safe${i}`, '.mcp.json', fixtureFacts('hardened'));
    const collection = collectionOf(
      [safe(1), safe(2), deploymentFrom('client:.mcp.json:unsafe', '.mcp.json', fixtureFacts('exposed')), safe(3), safe(4)],
      { '.mcp.json': '{}' },
    );
    const report = runCheck(doctrine, { collection });
    expect(report.deployments.filter((d) => d.verdict === 'fail').map((d) => d.name)).toEqual(['client:.mcp.json:unsafe']);
    expect(report.verdict).toBe('fail');
    const unsafeOne = report.deployments.find((d) => d.name === 'client:.mcp.json:unsafe')!;
    expect(unsafeOne.summary.failed_by_severity.critical).toBeGreaterThan(0);
  });

  it('each deployment keeps its own verdict: fail, limited scope and pass side by side', () => {
    const collection = collectionOf(
      [
        deploymentFrom('a', 'a.json', fixtureFacts('hardened')),
        deploymentFrom('b', 'b.json', fixtureFacts('stdio-dev')),
        deploymentFrom('c', 'c.json', fixtureFacts('hardened'), ['tls.enabled']),
      ],
      { 'a.json': 'a', 'b.json': 'b', 'c.json': 'c' },
    );
    const report = runCheck(doctrine, { collection });
    expect(report.deployments.map((d) => d.verdict)).toEqual(['pass', verdictOf(fixtureFacts('stdio-dev')), 'incomplete']);
    expect(report.verdict).toBe('incomplete');
    expect(report.deployments[2]!.summary.missing_facts).toContain('tls.enabled');
  });

  it('gives the same bytes for the same input', () => {
    const collection = collectionOf([deploymentFrom('compose:signet', 'docker-compose.yml', composeFacts())], {
      'docker-compose.yml': 'x',
    });
    expect(canonicalJson(runCheck(doctrine, { collection }))).toBe(canonicalJson(runCheck(doctrine, { collection })));
  });
});

describe('declared facts', () => {
  const collection = () =>
    collectionOf(
      [
        deploymentFrom('compose:signet', 'docker-compose.yml', fixtureFacts('hardened'), [
          'exposure.reachable_from_internet',
          'tls.enabled',
        ]),
      ],
      {
        'docker-compose.yml': 'services: {}',
      },
    );

  it('fill what the files leave undecided, each with the reason it is stated', () => {
    const before = runCheck(doctrine, { collection: collection() });
    expect(before.deployments[0]!.verdict).toBe('incomplete');
    expect(before.deployments[0]!.undecided).toEqual(['exposure.reachable_from_internet', 'tls.enabled']);
    const d = declared({
      facts: { exposure: { reachable_from_internet: true }, tls: { enabled: true } },
      notes: [{ facts: ['exposure.reachable_from_internet'], note: 'the host has no public address' }],
    });
    const after = runCheck(doctrine, { collection: collection(), declared: d });
    const dep = after.deployments[0]!;
    expect(dep.verdict).toBe('pass');
    expect(dep.undecided).toEqual([]);
    expect(dep.counts).toMatchObject({ declared: 2, undecided: 0 });
    expect(dep.sources['exposure.reachable_from_internet']).toEqual([{ declared: 'declared.json', why: 'the host has no public address' }]);
    expect(dep.sources['tls.enabled']).toEqual([{ declared: 'declared.json', why: 'declared, no reason given' }]);
    expect(after.files.map((f) => [f.path, f.kind])).toEqual([
      ['declared.json', 'declared_facts'],
      ['docker-compose.yml', 'compose'],
    ]);
  });

  it('that contradict a collected fact are an error naming both sources, for every contradiction', () => {
    const d = declared({ facts: { transport: { kind: 'stdio' }, container: { privileged: true }, tls: { enabled: false } } });
    const err = thrown(() => runCheck(doctrine, { collection: collection(), declared: d }));
    expect(err.code).toBe('invalid_arguments');
    expect(err.message).toMatch(/2 declared or probed facts contradict what the files say/);
    expect(err.details).toEqual([
      {
        where: 'declared.json:4: transport.kind',
        message: expect.stringMatching(/^compose:signet: transport\.kind is "stdio" here, but "http" in docker-compose\.yml:\d+$/),
      },
      {
        where: 'declared.json:7: container.privileged',
        message: expect.stringMatching(/container\.privileged is true here, but false in docker-compose\.yml:\d+/),
      },
    ]);
  });

  it('may explain a fact they leave out on purpose: the note becomes the reason it is undecided', () => {
    const d = declared({
      facts: { tls: { enabled: true } },
      notes: [{ facts: ['exposure.reachable_from_internet'], note: 'depends on the host firewall' }],
    });
    const dep = runCheck(doctrine, { collection: collection(), declared: d }).deployments[0]!;
    expect(dep.undecided).toEqual(['exposure.reachable_from_internet']);
    expect(dep.reasons['exposure.reachable_from_internet']).toBe('declared.json: depends on the host firewall');
  });

  it('agreeing with a collected fact keep both sources', () => {
    const d = declared({ facts: { transport: { kind: 'http' } } });
    const dep = runCheck(doctrine, { collection: collection(), declared: d }).deployments[0]!;
    expect(dep.sources['transport.kind']!.map((s) => Object.keys(s as object)[0])).toEqual(['file', 'declared']);
    expect(dep.counts.declared).toBe(0);
  });

  it('for a deployment the files do not describe are refused, naming the ones they do', () => {
    const d = declared({ deployments: { 'compose:signte': { tls: { enabled: false } } } });
    const err = thrown(() => runCheck(doctrine, { collection: collection(), declared: d }));
    expect(err.message).toBe('declared.json: declares facts for "compose:signte", which the files do not describe');
    expect(err.details).toEqual([{ message: 'deployments the files describe: compose:signet' }]);
  });

  it('alone describe one deployment, or one per name under deployments', () => {
    const only = runCheck(doctrine, { collection: collectionOf([], {}), declared: declared({ facts: fixtureFacts('hardened') }) });
    expect(only.deployments.map((d) => [d.name, d.verdict, d.counts.declared > 80])).toEqual([['declared', 'pass', true]]);
    const two = runCheck(doctrine, {
      collection: collectionOf([], {}),
      declared: declared({ deployments: { a: fixtureFacts('hardened'), b: fixtureFacts('exposed') } }),
    });
    expect(two.deployments.map((d) => [d.name, d.verdict])).toEqual([
      ['a', 'pass'],
      ['b', 'fail'],
    ]);
    expect(two.verdict).toBe('fail');
  });

  it('that make the merged facts contradict each other are refused with each fact and its source', () => {
    // FACTS-008: HSTS is sent on HTTPS responses only; the files say tls.enabled false.
    const d = declared({ facts: { tls: { hsts: true } } });
    const err = thrown(() =>
      runCheck(doctrine, {
        collection: collectionOf([deploymentFrom('compose:x', 'compose.yml', composeFacts())], { 'compose.yml': 'x' }),
        declared: d,
      }),
    );
    expect(err.message).toMatch(/^deployment "compose:x": facts contradict each other \(FACTS-008\)/);
    expect(err.details).toEqual([
      {
        where: expect.stringMatching(/^tls\.enabled \(compose\.yml:\d+\), tls\.hsts \(declared\.json\)$/),
        message: expect.stringMatching(/^FACTS-008: /),
      },
    ]);
  });

  it('files that describe no MCP server are an incomplete review, never a pass', () => {
    const report = runCheck(doctrine, { collection: collectionOf([], { 'README.md': 'hi' }) });
    expect(report).toMatchObject({ verdict: 'incomplete', deployments: [], files: [{ path: 'README.md' }] });
    expect(exitCodeOf(report.verdict)).toBe(3);
  });
});

describe('declared-facts files', () => {
  it('refuse dotted keys with the nested form to write', () => {
    const err = thrown(() => declared({ facts: { 'transport.kind': 'http' } }));
    expect(err.details).toEqual([
      {
        where: 'declared.json: facts',
        message: 'unknown fact "transport.kind": facts are nested objects, not dotted keys; write {"transport":{"kind":"http"}}',
      },
    ]);
  });

  it('refuse unknown members, notes about facts they do not declare, and two values for one fact', () => {
    expect(thrown(() => declared({ facts: {}, extra: 1 })).message).toMatch(/unknown member "extra"/);
    expect(thrown(() => declared({ facts: {}, notes: [{ facts: ['tls.enabld'], note: 'x' }] })).details).toEqual([
      { where: 'declared.json: notes[0]', message: `"tls.enabld" is not a fact of the doctrine's schema` },
    ]);
    expect(thrown(() => declared({ facts: { tls: { enabled: true } }, deployments: { a: { tls: { enabled: false } } } })).details).toEqual([
      { where: 'declared.json: deployments.a.tls.enabled', message: 'false here, but facts.tls.enabled says true for every deployment' },
    ]);
    expect(thrown(() => declared({})).message).toBe('declared.json: declares nothing: give "facts", "deployments" or both');
  });

  it('refuse what is not strict UTF-8 JSON', () => {
    const bad = (bytes: Uint8Array) => thrown(() => parseDeclared(doctrine, 'd.json', bytes)).message;
    expect(bad(new Uint8Array([0xff, 0xfe, 0x00]))).toBe('d.json: is not UTF-8 text');
    expect(bad(new TextEncoder().encode('{"facts":{},"facts":{}}'))).toMatch(/^d\.json: member \$\."facts" appears more than once/);
    expect(bad(new TextEncoder().encode('[1]'))).toMatch(/^d\.json: must be a JSON object/);
  });

  it("accept Signet's hand-written fact sets as they are", () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify(JSON.parse(JSON.stringify({ description: 'x', sources: ['a'], notes: [], facts: composeFacts() }))),
    );
    expect(parseDeclared(doctrine, 'deploy/facts/compose.json', bytes).facts).toEqual(composeFacts());
  });
});
