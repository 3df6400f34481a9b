// The test authorization server checked by the MCP conformance package's own authorization
// scenarios (metadata, then the authorization-code grant with PKCE and the resource
// indicator), the login answered by the test as in the flow tests: so the issuer the OAuth
// tests trust behaves as MCP clients expect an authorization server to.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeHeadless } from '../helpers/mcp-oauth.js';
import { type IssuerProcess, startIssuerProcess } from '../helpers/oauth-issuer-process.js';
import { ROOT } from '../helpers/paths.js';
import { freePort } from '../helpers/proxy-process.js';

const RESOURCE = 'https://mcp.example.org/mcp';

describe('the test authorization server under the conformance package (authorization scenarios)', () => {
  let issuer: IssuerProcess;
  beforeAll(async () => {
    issuer = await startIssuerProcess([RESOURCE]);
  });
  afterAll(async () => {
    await issuer?.stop();
  });

  it('passes the metadata and authorization-code-grant scenarios', async () => {
    const port = await freePort();
    const redirect = `http://127.0.0.1:${port}/callback`;
    const registration = await fetch(`${issuer.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [redirect],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        application_type: 'native',
      }),
    });
    expect(registration.status).toBe(201);
    const { client_id } = (await registration.json()) as { client_id: string };
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
        'authorization',
        '--url',
        issuer.issuer,
        '--client-id',
        client_id,
        '--resource',
        RESOURCE,
        '-p',
        String(port),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 30_000;
    let url: RegExpExecArray | null = null;
    while (!(url = /^(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(out))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no authorization URL from the conformance run:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The person's part: sign in and consent; then the browser lands on the tool's callback.
    const log: string[] = [];
    const { callback, iss } = await authorizeHeadless(new URL(url[1]!), 'conformance-user', log, redirect);
    expect(iss).toBe(issuer.issuer);
    await fetch(callback).catch(() => undefined);
    expect(await exited, out).toBe(0);
    expect(out).toMatch(/authorization-server-metadata-endpoint: 1 passed, 0 failed/);
    expect(out).toMatch(/authorization-code-grant: 1 passed, 0 failed/);
    expect(out).toMatch(/Total: 2 passed, 0 failed/);
  });
});
