// The verification page with an attestation: `signet check --attest` writes a DSSE envelope,
// `signet trust export` the trust file, and the page (`signet verify --html`, opened as a local
// file in Debian's Chromium through playwright-core) says trusted, unpinned or invalid as
// `signet verify` does, with the verdict the attestation carries and the files it is about.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../helpers/check-fixtures.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = tempDir('signet-page-attest-');

function signet(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: cleanEnv({ SIGNET_DATA_DIR: join(dir, 'data') }),
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the verification page verifies an attestation', () => {
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  let attestation = '';
  let forged = '';
  let trust = '';

  beforeAll(async () => {
    writeFileSync(join(dir, 'exposed.json'), JSON.stringify({ facts: fixtureFacts('exposed') }, null, 2));
    expect(signet(['check', '--facts', 'exposed.json', '--attest', 'att.json']).code).toBe(1);
    attestation = readFileSync(join(dir, 'att.json'), 'utf8');
    const exported = signet(['trust', 'export']);
    expect(exported.code, exported.err).toBe(0);
    trust = exported.out;
    // The verdict turned to pass after signing, the payload re-encoded: what a forger would try.
    const envelope = JSON.parse(attestation) as { payload: string };
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
    statement.predicate.verdict = 'pass';
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    forged = JSON.stringify(envelope);

    const file = join(dir, 'verify.html');
    writeFileSync(file, execFileSync(process.execPath, [CLI, 'verify', '--html']));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    page = await browser.newPage();
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function verify(input: string, trustText: string): Promise<void> {
    await page.fill('#output', input);
    await page.fill('#trust', trustText);
    await page.focus('#verify');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.isVisible('#result')).toBe(true);
  }

  it('trusted against the trust file, with its verdict and its files; the same as signet verify says', async () => {
    await verify(attestation, trust);
    expect(await page.textContent('#verdict')).toBe('Valid and trusted');
    expect(await page.getAttribute('#result', 'class')).toBe('trusted');
    expect(await page.textContent('#summary')).toMatch(/^The attestation is intact, and a key you trust signed it/);
    expect(await page.textContent('#f-tool')).toBe('signet check (in-toto attestation)');
    expect(await page.textContent('#f-attestation')).toBe('fail');
    expect(await page.textContent('#f-subjects')).toMatch(/^exposed\.json sha256:[0-9a-f]{64}$/);
    expect(await page.textContent('#f-doctrine')).toMatch(/^mcp-deployment-baseline \d+\.\d+\.\d+$/);
    expect(await page.isHidden('#claims')).toBe(true);
    // The CLI on the same bytes and trust file agrees, and names the same signer.
    writeFileSync(join(dir, 'trust.json'), trust);
    const cli = signet(['verify', '--trust', 'trust.json', 'att.json']);
    expect(cli.code).toBe(0);
    expect(cli.out).toContain((await page.textContent('#f-fingerprint'))!);
  });

  it('unpinned without a trust file, invalid once forged; what is no envelope is not read as one', async () => {
    await verify(attestation, '');
    expect(await page.getAttribute('#result', 'class')).toBe('unpinned');
    expect(await page.textContent('#summary')).toMatch(
      /attestation is intact and consistently signed, but by a key you have not said you trust/,
    );
    expect(await page.isVisible('#claims')).toBe(true);

    await verify(forged, trust);
    expect(await page.getAttribute('#result', 'class')).toBe('invalid');
    expect(await page.textContent('#reasons')).toMatch(/output_signature_invalid/);
    expect(await page.textContent('#f-attestation')).toBe('pass');
    expect(await page.isVisible('#claims')).toBe(true);

    await verify('{"not": "an envelope"}', trust);
    expect(await page.getAttribute('#result', 'class')).toBe('invalid');
    expect(await page.isHidden('#f-attestation-row')).toBe(true);
    expect(await page.isHidden('#f-subjects-row')).toBe(true);
    // The page asked for nothing but itself.
    expect([...new Set(requests)]).toHaveLength(1);
  });
});
