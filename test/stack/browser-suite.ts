// Browsers against a whole stack, in a real headless Chromium (Debian's, driven by
// playwright-core): a page from an allowed origin calls /mcp with a key and gets a signed
// result, a page from another origin is refused, and the verification page shows its three
// states, served through the proxy and opened as a local file. Screenshots of each state go
// to test-artifacts/screenshots/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signOutput } from '../../src/signing/sign-output.js';
import { testContext } from '../helpers/context.js';
import { CLI, ROOT } from '../helpers/paths.js';
import { testFooter, testSigner } from '../helpers/signer.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Host names the browser resolves to loopback, so pages can have real, non-loopback origins. */
export const ALLOWED_HOST = 'app.signet.test';
export const FOREIGN_HOST = 'evil.signet.test';

export interface BrowserTarget {
  /** Base URL of the proxy. */
  baseUrl: string;
  key: string;
  /** The trust file of the stack's server (signet trust export). */
  trustFile: () => Promise<string>;
  stop(): Promise<void>;
}

/** A page server on loopback: the same tiny app under whichever host name the browser uses. */
export async function startPageServer(port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const page = `<!doctype html><meta charset="utf-8"><title>MCP web client</title><pre id="out">waiting</pre><script src="/client.js"></script>`;
  const script = `
    async function call(url, key) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' } } });
      try {
        const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: 'Bearer ' + key }, body });
        return { status: r.status, text: await r.text(), requestId: r.headers.get('X-Request-Id'), rateLimit: r.headers.get('RateLimit') };
      } catch (e) { return { error: String(e) }; }
    }
    async function unauthorized(url) {
      try {
        const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sgnk_wrong' }, body: '{}' });
        return { status: r.status, wwwAuthenticate: r.headers.get('WWW-Authenticate') };
      } catch (e) { return { error: String(e) }; }
    }
    window.signet = { call, unauthorized };`;
  const server: Server = createServer((req, res) => {
    if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) };
}

export function defineBrowserSuite(name: string, start: () => Promise<BrowserTarget & { pagePort: number }>): void {
  describe(`${name}: browsers`, () => {
    let target: BrowserTarget & { pagePort: number };
    let browser: Browser;
    const shots = join(ROOT, 'test-artifacts', 'screenshots');
    const dir = tempDir('signet-browser-');

    beforeAll(async () => {
      target = await start();
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          `--host-resolver-rules=MAP ${ALLOWED_HOST} 127.0.0.1, MAP ${FOREIGN_HOST} 127.0.0.1`,
        ],
      });
      mkdirSync(shots, { recursive: true });
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
      await target?.stop();
    });

    const newPage = async (): Promise<{ page: Page; requests: string[] }> => {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      return { page, requests };
    };

    it('a page from an allowed origin calls /mcp with a key and reads the signed result, and why it was refused', async () => {
      const { page } = await newPage();
      await page.goto(`http://${ALLOWED_HOST}:${target.pagePort}/`);
      const r = (await page.evaluate(
        ([u, k]) => (window as never as { signet: { call(u: string, k: string): Promise<unknown> } }).signet.call(u!, k!),
        [`${target.baseUrl}/mcp`, target.key],
      )) as Record<string, string>;
      expect(r['error']).toBeUndefined();
      expect(r['status']).toBe(200);
      const body = JSON.parse(r['text']!) as { result: { structuredContent: { footer: { output_signature: string } } } };
      expect(body.result.structuredContent.footer.output_signature).toMatch(/^ed25519:/);
      // Exposed headers are readable.
      expect(r['requestId']).toBeTruthy();
      expect(r['rateLimit']).toMatch(/"(key-)?calls";r=\d+/);
      const denied = (await page.evaluate(
        (u) => (window as never as { signet: { unauthorized(u: string): Promise<unknown> } }).signet.unauthorized(u),
        `${target.baseUrl}/mcp`,
      )) as Record<string, unknown>;
      expect(denied).toEqual({ status: 401, wwwAuthenticate: 'Bearer realm="signet"' });
      await page.close();
    });

    it('a page from another origin is refused: no CORS grant, and the request never runs', async () => {
      const { page } = await newPage();
      await page.goto(`http://${FOREIGN_HOST}:${target.pagePort}/`);
      const r = (await page.evaluate(
        ([u, k]) => (window as never as { signet: { call(u: string, k: string): Promise<unknown> } }).signet.call(u!, k!),
        [`${target.baseUrl}/mcp`, target.key],
      )) as Record<string, string>;
      expect(r['error']).toMatch(/TypeError: Failed to fetch/);
      await page.close();
      // What the browser was told: 403 to the preflight, without any grant.
      const preflight = await fetch(`${target.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: {
          Origin: `http://${FOREIGN_HOST}:${target.pagePort}`,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      expect(preflight.status).toBe(403);
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    });

    describe('the verification page', () => {
      let genuine = '';
      let tampered = '';
      let foreign = '';
      let trust = '';
      beforeAll(async () => {
        const r = await fetch(`${target.baseUrl}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'doctrine_get', arguments: { id: 'TLS-001' } },
          }),
        });
        genuine = await r.text();
        // The rule's severity lowered after signing, in both copies, as a forger would.
        const edited = JSON.parse(genuine) as {
          result: { content: { text: string }[]; structuredContent: { result: { rule: { severity: string } } } };
        };
        edited.result.structuredContent.result.rule.severity = 'low';
        edited.result.content[0]!.text = JSON.stringify(edited.result.structuredContent);
        tampered = JSON.stringify(edited);
        foreign = testContext().tools.call('doctrine_info', {}).json();
        trust = await target.trustFile();
      });

      const cases = [
        ['trusted', () => genuine, () => trust, /^Valid and trusted$/],
        ['unpinned', () => foreign, () => '', /^Signature valid, but the signer is not pinned$/],
        ['invalid-tampered', () => tampered, () => trust, /^Invalid$/],
        ['invalid-foreign', () => foreign, () => trust, /^Invalid$/],
      ] as const;

      async function check(page: Page, label: string, where: string, output: string, trustText: string, verdict: RegExp): Promise<void> {
        await page.fill('#output', output);
        await page.fill('#trust', trustText);
        // Keyboard only: focus the button and press Enter.
        await page.focus('#verify');
        await page.keyboard.press('Enter');
        await expect.poll(() => page.textContent('#verdict')).toMatch(verdict);
        const status = await page.getAttribute('#result', 'class');
        expect(status).toBe(label.replace(/-.*/, ''));
        expect(await page.textContent('#f-doctrine')).toMatch(/\S/);
        expect(await page.textContent('#f-fingerprint')).toMatch(/^SHA256:/);
        if (label === 'invalid-tampered') expect(await page.textContent('#reasons')).toMatch(/output_hash_mismatch/);
        if (label === 'invalid-tampered') expect(await page.textContent('#reasons')).not.toMatch(/text_mismatch/);
        if (label === 'invalid-foreign') expect(await page.textContent('#reasons')).toMatch(/signer_untrusted/);
        await page.screenshot({ path: join(shots, `${name.replace(/\W+/g, '-')}-${where}-${label}.png`), fullPage: true });
      }

      it('served through the stack without a key, under a strict CSP, makes no request but its own three files', async () => {
        const { page, requests } = await newPage();
        const violations: string[] = [];
        page.on('console', (m) => m.type() === 'error' && violations.push(m.text()));
        const res = await page.goto(`${target.baseUrl}/verify`);
        expect(res?.status()).toBe(200);
        expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self'/);
        expect(await page.getAttribute('label[for="output"]', 'for')).toBe('output');
        for (const [label, output, trustText, verdict] of cases) await check(page, label, 'served', output(), trustText(), verdict);
        expect([...new Set(requests)].sort()).toEqual([
          `${target.baseUrl}/verify`,
          `${target.baseUrl}/verify/verify.css`,
          `${target.baseUrl}/verify/verify.js`,
        ]);
        expect(violations).toEqual([]);
        await page.close();
      });

      it("keeps a verdict to its input, shows an invalid output's claims as escaped claims (L4), and a signed report's borrowed trust (M5)", async () => {
        const { page } = await newPage();
        await page.goto(`${target.baseUrl}/verify`);
        await check(page, 'trusted', 'served-edit', genuine, trust, /^Valid and trusted$/);
        expect(await page.isHidden('#claims')).toBe(true);
        expect(await page.isHidden('#f-report-row')).toBe(true);
        expect(await page.textContent('#summary')).toBe('The output is intact, and a key you trust signed it.');
        // One more character in the output, the trust file or the key: the verdict is gone until Verify runs again.
        for (const box of ['#output', '#trust', '#key']) {
          await page.focus('#verify');
          await page.keyboard.press('Enter');
          await expect.poll(() => page.isVisible('#result')).toBe(true);
          expect(await page.textContent('#verdict')).toBe('Valid and trusted');
          await page.focus(box);
          await page.keyboard.press('End');
          await page.keyboard.type(' ');
          expect(await page.isHidden('#result'), box).toBe(true);
        }
        await page.fill('#key', '');

        // A forger's doctrine name that reads as the verdict, with a right-to-left override.
        const forged = JSON.parse(genuine) as {
          result: { content: { text: string }[]; structuredContent: { footer: Record<string, string> } };
        };
        forged.result.structuredContent.footer['doctrine_name'] = 'Valid and trusted\u202Edetsurt';
        // And a member whose name the reasons quote, with an override of its own.
        (forged.result.structuredContent as unknown as Record<string, unknown>)['\u202Edilav'] = 1;
        forged.result.content[0]!.text = JSON.stringify(forged.result.structuredContent);
        await check(page, 'invalid-claims', 'served', JSON.stringify(forged), trust, /^Invalid$/);
        expect(await page.isVisible('#claims')).toBe(true);
        expect(await page.textContent('#claims')).toMatch(/^Not verified: what follows is what the output claims/);
        const shown = (await page.textContent('#f-doctrine'))!;
        expect(shown).toContain('Valid and trusted\\u{202E}detsurt');
        expect(shown).not.toContain('\u202E');
        const reasons = (await page.textContent('#reasons'))!;
        expect(reasons).toContain('unexpected member "\\u{202E}dilav"');
        expect(reasons).not.toContain('\u202E');
        // The verdict is the page's own heading, above the claims, never the output's text.
        expect(await page.textContent('#verdict')).toBe('Invalid');

        // The same name, consistently signed by a key nobody pinned: still only a claim.
        const stranger = testSigner();
        const claimed = signOutput(
          { tool: 'doctrine_info', input_hash: null, ok: true, result: { name: 'Valid and trusted' } },
          { ...testFooter(stranger), doctrine_name: 'Valid and trusted\u202Edetsurt' },
          stranger,
        ).text;
        await check(page, 'unpinned', 'served-claims', claimed, '', /^Signature valid, but the signer is not pinned$/);
        expect(await page.isVisible('#claims')).toBe(true);
        expect(await page.textContent('#f-doctrine')).toBe('Valid and trusted\\u{202E}detsurt 1.0.0');

        // A signed verify_output report whose verdict rests on keys the caller supplied.
        const other = testContext();
        const forgedOutput = other.tools.call('doctrine_info', {}).result;
        const report = await fetch(`${target.baseUrl}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 9,
            method: 'tools/call',
            params: { name: 'verify_output', arguments: { output: forgedOutput, trusted_keys: [other.signer.publicKeySpki] } },
          }),
        });
        const reportText = await report.text();
        expect(report.status).toBe(200);
        await check(page, 'trusted', 'served-report', reportText, trust, /^Valid and trusted$/);
        expect(await page.isVisible('#f-report-row')).toBe(true);
        expect(await page.textContent('#summary')).toMatch(/vouches for the report, not for the output it checked/);
        expect(await page.textContent('#f-report')).toMatch(
          /^trusted_by_caller, by keys the caller supplied \(sha256:[0-9a-f]{64}\), not the server's$/,
        );
        await page.close();
      });

      it('refuses a chosen file that is not UTF-8 instead of verifying the text File.text() makes of it (pen test L2)', async () => {
        const { page } = await newPage();
        await page.goto(`${target.baseUrl}/verify`);
        const signer = testSigner();
        const good = Buffer.from(
          signOutput({ tool: 'doctrine_info', input_hash: null, ok: true, result: { note: 'a\uFFFDb' } }, testFooter(signer), signer).text,
        );
        const at = good.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
        const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xff]), good.subarray(at + 3)]);
        await page.fill('#key', signer.publicKeySpki);
        // The control: the genuine file, chosen the same way, is trusted.
        await page.setInputFiles('#output-file', { name: 'good.json', mimeType: 'application/json', buffer: good });
        await expect.poll(() => page.textContent('#verdict')).toBe('Valid and trusted');
        await page.setInputFiles('#output-file', { name: 'bad.json', mimeType: 'application/json', buffer: bad });
        await expect.poll(() => page.textContent('#verdict')).toBe('Invalid');
        expect(await page.textContent('#reasons')).toMatch(/not_json: bad\.json is not UTF-8/);
        expect(await page.inputValue('#output')).toBe('');
        await page.screenshot({ path: join(shots, `${name.replace(/\W+/g, '-')}-served-not-utf8.png`), fullPage: true });
        await page.close();
      });

      it('opened as a local file (signet verify --html), offline, the same', async () => {
        const file = join(dir, 'verify.html');
        writeFileSync(file, execFileSync(process.execPath, [CLI, 'verify', '--html']));
        const { page, requests } = await newPage();
        const violations: string[] = [];
        page.on('console', (m) => m.type() === 'error' && violations.push(m.text()));
        await page.goto(pathToFileURL(file).href);
        for (const [label, output, trustText, verdict] of cases) await check(page, label, 'file', output(), trustText(), verdict);
        expect(requests).toEqual([pathToFileURL(file).href]);
        expect(violations).toEqual([]);
        await page.close();
      });
    });
  });
}
