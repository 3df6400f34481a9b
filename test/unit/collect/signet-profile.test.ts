// The Signet profile (src/collect/profiles/signet.ts): what Signet does by design, credited to
// the profile and never to a line that does not show it, and only for an image that is Signet's
// on stronger evidence than a file name: an ENTRYPOINT running signet.js is not enough.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FactSource } from '../../../src/collect/types.js';
import { VERSION } from '../../../src/version.js';
import { collectWith, deploymentOf, inline, repoFiles } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

const COMPOSE = [
  'services:',
  '  mcp:',
  '    build: .',
  '    ports: ["127.0.0.1:3000:3000"]',
  '    user: "1000"',
  '    read_only: true',
  '',
].join('\n');
const LOOK_ALIKE_DOCKERFILE = [
  'FROM node:24-alpine',
  'WORKDIR /app',
  'COPY package.json package-lock.json ./',
  'RUN npm ci --ignore-scripts',
  'COPY dist ./dist',
  'USER node',
  'ENTRYPOINT ["node", "/app/dist/bundle/signet.js"]',
  '',
].join('\n');
const pkg = (name: string) =>
  JSON.stringify({
    name,
    version: '2.0.0',
    bin: { signet: 'dist/bundle/signet.js' },
    dependencies: { '@modelcontextprotocol/sdk': '^1.20.0' },
  });

const fromProfile = (sources: Record<string, FactSource[]>) =>
  Object.entries(sources)
    .filter(([, list]) => list.some((s) => 'profile' in s))
    .map(([p]) => p);

describe('recognising Signet', () => {
  it('a look-alike image (ENTRYPOINT signet.js, another package) gets no profile fact', () => {
    const cases: Record<string, string>[] = [
      { 'compose.yaml': COMPOSE, Dockerfile: LOOK_ALIKE_DOCKERFILE, 'package.json': pkg('acme-mcp-server') },
      // No package.json at all: nothing says whose signet.js it is.
      { 'compose.yaml': COMPOSE, Dockerfile: LOOK_ALIKE_DOCKERFILE },
    ];
    for (const files of cases) {
      const c = collectWith(inline(files));
      const d = deploymentOf(c, ':mcp');
      expect(fromProfile(d.sources)).toEqual([]);
      // What only the profile would say stays open.
      expect(d.undecided).toEqual(expect.arrayContaining(['signing.offered', 'tools.runs_commands', 'logging.redacts_secrets']));
      expect(c.notes.filter((n) => /recognised as Signet/.test(n.what))).toEqual([]);
    }
  });

  it('a package named signet whose signet bin is not what the ENTRYPOINT runs is not Signet either', () => {
    const other = { ...JSON.parse(pkg('signet')), bin: { signet: 'bin/cli.js' } };
    const c = collectWith(inline({ 'compose.yaml': COMPOSE, Dockerfile: LOOK_ALIKE_DOCKERFILE, 'package.json': JSON.stringify(other) }));
    expect(fromProfile(deploymentOf(c, ':mcp').sources)).toEqual([]);
  });

  it("Signet's own image: recognised from its package.json and ENTRYPOINT, said in a note; a different version is said too", () => {
    const files = ['docker-compose.yml', 'Dockerfile', 'package.json', 'proxy/Dockerfile'];
    const c = collectWith(repoFiles(...files));
    const entry =
      readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('ENTRYPOINT')) + 1;
    expect(c.notes).toContainEqual({
      file: 'Dockerfile',
      what: `recognised as Signet: the ENTRYPOINT (line ${entry}) runs /app/dist/bundle/signet.js, the signet bin of package signet (package.json); the profile describes Signet ${VERSION}, the version package.json names`,
    });
    expect(fromProfile(deploymentOf(c, ':signet').sources).length).toBeGreaterThan(30);
    const older = JSON.stringify({ ...JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')), version: '0.0.1' });
    const o = collectWith([...repoFiles('docker-compose.yml', 'Dockerfile', 'proxy/Dockerfile'), ...inline({ 'package.json': older })]);
    expect(o.notes.find((n) => /recognised as Signet/.test(n.what))?.what).toMatch(
      new RegExp(
        `the profile describes Signet ${VERSION.replace(/\./g, '\\.')}; package\\.json names 0\\.0\\.1, so facts from the profile may not hold for it$`,
      ),
    );
  });

  it("a static key from SIGNET_API_KEY_FILE leaves the method open: the file's content at start is not in the files", () => {
    const proxy = readdirSync(join(ROOT, 'proxy'), { recursive: true, encoding: 'utf8' })
      .filter((f) => statSync(join(ROOT, 'proxy', f)).isFile())
      .map((f) => `proxy/${f}`);
    const d = deploymentOf(collectWith(repoFiles('docker-compose.yml', 'Dockerfile', 'package.json', ...proxy)), ':signet');
    expect(d.facts['authentication']).not.toHaveProperty('method');
    expect(d.reasons['authentication.method']).toMatch(
      /^SIGNET_API_KEY_FILE=\/run\/proxy-auth\/api-key: a key in that file replaces the key store/,
    );
    // The key store's own facts still hold: it serves whenever the file is empty.
    expect(d.facts['authentication']).toMatchObject({ key_storage: 'sha256', key_entropy_bits: 256 });
  });

  it('every profile fact names the profile and its version, and none is credited to the ENTRYPOINT line', () => {
    const c = collectWith(repoFiles('docker-compose.yml', 'Dockerfile', 'package.json', 'proxy/Dockerfile'));
    const d = deploymentOf(c, ':signet');
    const entry =
      readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('ENTRYPOINT')) + 1;
    for (const p of fromProfile(d.sources)) {
      const [first, ...settings] = d.sources[p]!;
      expect(first, p).toMatchObject({
        profile: 'signet',
        version: VERSION,
        why: expect.stringMatching(/^Signet's own behaviour, version /),
      });
      for (const s of settings) expect(s, p).not.toMatchObject({ file: 'Dockerfile', line: entry });
    }
    expect(d.sources['signing.offered']).toEqual([
      {
        profile: 'signet',
        version: VERSION,
        why: `Signet's own behaviour, version ${VERSION}: Signet signs every output (README, docs/output-format.md)`,
      },
    ]);
    // A setting the files write is cited beside the profile that says what it means.
    expect(d.sources['logging.level']![1]).toMatchObject({ file: 'docker-compose.yml', why: 'SIGNET_LOG_LEVEL=info' });
  });
});
