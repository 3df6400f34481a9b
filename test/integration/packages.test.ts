// Install without cloning: `npm pack` makes the two packages (scripts/pack.mjs), each installs into
// an empty folder with npm pointed at a registry and a proxy that only record (any request npm
// made would show there, and fail the install), and the README's commands run from there: the
// server answers over stdio and HTTP, its trust file pins it, and the verifier package checks a
// real answer in one command with the documented exit codes. Then the client configuration of
// docs/deployment.md, with absolute paths, starts the server with an old Node first on PATH.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOutput } from '../../src/signing/verify.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const OLD_NODE = process.env['SIGNET_TEST_OLD_NODE'] ?? '/usr/bin/node';
const NODE_BIN = dirname(process.execPath);
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The README's install block, line by line (comments dropped). */
const commands = docRecipe('../README.md', 'packages')
  .split('\n')
  .map((l) => l.replace(/\s+#.*$/, '').trim())
  .filter(Boolean);
const line = (prefix: string) => {
  const found = commands.find((c) => c.startsWith(prefix));
  if (!found) throw new Error(`README.md's packages recipe has no line starting ${prefix}`);
  return found;
};

describe('the npm packages, installed with no network', () => {
  const work = tempDir('signet-packages-');
  // The recorder runs in its own process: the test's spawnSync calls block this one's event loop.
  const requests = join(work, 'requests.log');
  const recorder = spawn(
    process.execPath,
    [
      '-e',
      `const { appendFileSync } = require('node:fs');
       const log = (line) => appendFileSync(process.argv[1], line + '\\n');
       const server = require('node:http').createServer((req, res) => { log(req.method + ' ' + req.url); res.writeHead(503).end(); });
       server.on('connect', (req, socket) => { log('CONNECT ' + req.url); socket.destroy(); });
       server.listen(0, '127.0.0.1', () => console.log(server.address().port));`,
      requests,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const seen = () => (existsSync(requests) ? readFileSync(requests, 'utf8').split('\n').filter(Boolean) : []);
  const tarballs: Record<string, string> = {};
  let env: Record<string, string> = {};

  beforeAll(async () => {
    const port = await new Promise<string>((resolve) => recorder.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())));
    const blocked = `http://127.0.0.1:${port}/`;
    writeFileSync(join(work, 'npmrc'), '');
    writeFileSync(join(work, 'global-npmrc'), '');
    // Everything npm could reach goes to the recorder; the cache starts empty.
    env = {
      PATH: `${NODE_BIN}:/usr/bin:/bin`,
      HOME: work,
      npm_config_registry: blocked,
      npm_config_proxy: blocked,
      npm_config_https_proxy: blocked,
      npm_config_cache: join(work, 'cache'),
      npm_config_userconfig: join(work, 'npmrc'),
      npm_config_globalconfig: join(work, 'global-npmrc'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    const out = execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack.mjs'), join(work, 'packed')], { encoding: 'utf8', cwd: ROOT });
    for (const file of out.trim().split('\n')) tarballs[/(signet-mcp(?:-verify)?)-\d/.exec(file)![1]!] = join(ROOT, file);
  }, 120_000);
  afterAll(() => void recorder.kill());

  const sh = (script: string, cwd: string, extra: Record<string, string> = {}) =>
    spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env: { ...env, ...extra }, encoding: 'utf8', timeout: 120_000 });

  it('packs both packages with no dependency, the right version, license and files', () => {
    expect(Object.keys(tarballs).sort()).toEqual(['signet-mcp', 'signet-mcp-verify']);
    const manifest = (name: string) =>
      JSON.parse(execFileSync('tar', ['-xOzf', tarballs[name]!, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    for (const name of Object.keys(tarballs)) {
      const m = manifest(name);
      expect(m).toMatchObject({ name, version: VERSION, license: 'Apache-2.0', type: 'module' });
      expect(m['dependencies'] ?? {}).toEqual({});
      const files = execFileSync('tar', ['-tzf', tarballs[name]!], { encoding: 'utf8' }).split('\n');
      // The licence package.json names, in full (Apache-2.0 asks for its text beside the work).
      const license = execFileSync('tar', ['-xOzf', tarballs[name]!, 'package/LICENSE'], { encoding: 'utf8' });
      expect(license).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
      expect(license).toMatch(/Apache License\s+Version 2\.0, January 2004[\s\S]+END OF TERMS AND CONDITIONS/);
      expect(files.some((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toBe(false);
    }
    expect(manifest('signet-mcp')['bin']).toEqual({ signet: 'dist/bundle/signet.js', 'signet-mcp': 'dist/bundle/signet.js' });
    expect(manifest('signet-mcp')['engines']).toEqual(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: unknown }).engines,
    );
  });

  it("installs from the tarballs alone and runs the README's commands: serve, trust export, verify", async () => {
    const dir = join(work, 'project');
    execFileSync('mkdir', ['-p', dir]);
    const install = line('npm install ');
    expect(install).toBe('npm install signet-mcp signet-mcp-verify');
    const installed = sh(`npm install ${tarballs['signet-mcp']} ${tarballs['signet-mcp-verify']}`, dir);
    expect(installed.status, installed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages).toHaveProperty('node_modules/signet-mcp');

    // `npx signet-mcp`: stdio, as an MCP client starts it.
    const data = join(work, 'data');
    const [command, ...args] = line('npx signet-mcp').split(' ') as [string, ...string[]];
    expect(args).toEqual(['signet-mcp']);
    const stdio = new StdioClientTransport({ command, args, cwd: dir, env: { ...env, SIGNET_DATA_DIR: data }, stderr: 'pipe' });
    const client = new Client({ name: 'packages-test', version: '1.0.0' });
    await client.connect(stdio);
    const answer = await client.request(
      { method: 'tools/call', params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' } } },
      (await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema,
    );
    await client.close();
    writeFileSync(join(dir, 'answer.json'), JSON.stringify({ jsonrpc: '2.0', id: 1, result: answer }));

    // `npx signet-mcp serve --http`: the same server, same key, over HTTP.
    const serve = line('npx signet-mcp serve');
    const proc = spawn('bash', ['-c', `exec ${serve}`], {
      cwd: dir,
      env: { ...env, SIGNET_DATA_DIR: data, SIGNET_HTTP_PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let logs = '';
    const port = await new Promise<number>((resolve, reject) => {
      proc.stderr.on('data', (c: Buffer) => {
        logs += c;
        const m = /"msg":"signet ready".*?"port":(\d+)/.exec(logs) ?? /"port":(\d+).*?"msg":"signet ready"/.exec(logs);
        if (m) resolve(Number(m[1]));
      });
      proc.on('exit', (code) => reject(new Error(`serve --http exited ${code}:\n${logs}`)));
    });
    const http = new Client({ name: 'packages-test', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    const overHttp = await http.callTool({ name: 'doctrine_get', arguments: { id: 'AUTH-001' } });
    await http.close();
    proc.kill('SIGTERM');
    expect(overHttp.structuredContent).toEqual(answer.structuredContent);

    // `npx signet-mcp trust export > signet-trust.json`, then the verifier in one command.
    const exported = sh(line('npx signet-mcp trust export'), dir, { SIGNET_DATA_DIR: data });
    expect(exported.status, exported.stderr).toBe(0);
    const verify = line('npx signet-mcp-verify');
    expect(verify).toBe('npx signet-mcp-verify --trust signet-trust.json answer.json');
    const trusted = sh(verify, dir);
    expect(trusted.stdout).toMatch(/^trusted: doctrine_get signed by "signet-\S+" SHA256:\S+ \(active\) over mcp-deployment-baseline /);
    expect(trusted.status).toBe(0);
    // The same verdict as the verifier in this repository.
    const trust = JSON.parse(readFileSync(join(dir, 'signet-trust.json'), 'utf8')) as unknown;
    const { parseTrustFile, trustSet } = await import('../../src/signing/trust.js');
    expect(
      verifyOutput(readFileSync(join(dir, 'answer.json'), 'utf8'), { trust: trustSet({ files: [parseTrustFile(trust)] }) }).status,
    ).toBe('trusted');
    // 1: altered; 3: nothing pinned; 2: a malformed trust file.
    writeFileSync(join(dir, 'altered.json'), readFileSync(join(dir, 'answer.json'), 'utf8').replaceAll('AUTH-001', 'AUTH-002'));
    const altered = sh(verify.replace('answer.json', 'altered.json'), dir);
    expect(altered.stderr).toMatch(/^invalid:\n {2}- output_hash_mismatch: /);
    expect(altered.status).toBe(1);
    const unpinned = sh('npx signet-mcp-verify answer.json', dir);
    expect(unpinned.stderr).toMatch(/^unpinned: the signatures are consistent .*no signer is pinned/s);
    expect(unpinned.status).toBe(3);
    writeFileSync(join(dir, 'bad-trust.json'), '{"format":"signet-trust/1","keys":[],"x":1}');
    const usage = sh('npx signet-mcp-verify --trust bad-trust.json answer.json', dir);
    expect(usage.stderr).toMatch(/^signet-mcp-verify: --trust bad-trust.json: unknown member "x"/);
    expect(usage.status).toBe(2);
    // The library entry, as the README of the package shows it, from plain Node.
    const lib = sh(
      `node --input-type=module -e "import { parseTrustFile, trustSet, verifyOutput } from 'signet-mcp-verify'; import { readFileSync } from 'node:fs';
       const trust = trustSet({ files: [parseTrustFile(readFileSync('signet-trust.json', 'utf8'))] });
       console.log(verifyOutput(readFileSync('answer.json', 'utf8'), { trust }).status);"`,
      dir,
    );
    expect(lib.stdout.trim(), lib.stderr).toBe('trusted');
    // Its types: a TypeScript consumer type-checks against them (a wrong member is an error).
    writeFileSync(
      join(dir, 'consumer.ts'),
      `import { type VerifyStatus, verifyOutput } from 'signet-mcp-verify';
       const status: VerifyStatus = verifyOutput('{}').status;
       // @ts-expect-error: the report has no such member
       verifyOutput('{}').verdict;
       export { status };\n`,
    );
    const tsc = sh(`${join(ROOT, 'node_modules', '.bin', 'tsc')} --noEmit --strict --module nodenext --target es2022 consumer.ts`, dir);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    // The verifier runs on the machine's older Node too (engines >=20), the server refuses it.
    const onOld = sh(`${OLD_NODE} node_modules/signet-mcp-verify/bin/signet-mcp-verify.js --trust signet-trust.json answer.json`, dir);
    expect(onOld.status, onOld.stderr).toBe(0);
    expect(sh(`${OLD_NODE} node_modules/.bin/signet --version`, dir).stderr).toMatch(/^signet: needs Node\.js >=22\.12/);

    expect(seen()).toEqual([]);
    // The control: anything npm fetches does reach the recorder (and fails).
    expect(sh('npm view signet-mcp-verify version --fetch-retries=0', dir).status).not.toBe(0);
    expect(seen()).toEqual([expect.stringMatching(/^GET \S*\/signet-mcp-verify$/)]);
    rmSync(requests);
  }, 180_000);

  it('docs/deployment.md prints a stdio client configuration with absolute paths; it starts under an old Node first on PATH', async () => {
    const prefix = join(work, 'global');
    const recipe = docRecipe('deployment.md', 'stdio-absolute');
    expect(recipe).toContain('npm install -g signet-mcp\n');
    const r = sh(recipe.replace('npm install -g signet-mcp', `npm install -g ${tarballs['signet-mcp']}`), work, {
      npm_config_prefix: prefix,
    });
    expect(r.status, r.stderr).toBe(0);
    const config = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { mcpServers: { signet: { command: string; args: string[] } } };
    const { command, args } = config.mcpServers.signet;
    expect(command).toBe(process.execPath);
    expect(args).toEqual([join(prefix, 'lib', 'node_modules', 'signet-mcp', 'dist', 'bundle', 'signet.js')]);
    // What a desktop app may have: the machine's old Node first on PATH, nothing else.
    const transport = new StdioClientTransport({
      command,
      args,
      env: { PATH: `${dirname(OLD_NODE)}:/bin`, HOME: work, SIGNET_DATA_DIR: join(work, 'data-global') },
    });
    const client = new Client({ name: 'packages-test', version: '1.0.0' });
    await client.connect(transport);
    const info = await client.callTool({ name: 'doctrine_info', arguments: {} });
    await client.close();
    expect((info.structuredContent as { ok: boolean }).ok).toBe(true);
    expect(seen()).toEqual([]);
  }, 120_000);
});
