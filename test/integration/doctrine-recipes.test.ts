// The doctrine's recipes that need no nginx and no Docker, run as written: OpenSSL, jq, pino,
// npm, Node's standard library, and a running Signet. Each also checks the claim around it.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext } from '../helpers/context.js';
import { runRecipe, snippet } from '../helpers/doctrine-snippets.js';
import { type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE, ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

/** The file URL of a package's main module in this repository's node_modules. */
function moduleUrl(name: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { main?: string };
  return pathToFileURL(join(ROOT, 'node_modules', name, pkg.main ?? 'index.js')).href;
}

/** A JavaScript recipe as a module file, its bare imports pointed at this repository's node_modules. */
function jsRecipe(id: string, dir: string, packages: Record<string, string> = {}): string {
  let code = snippet('run', id).code;
  for (const [name, url] of Object.entries(packages)) code = code.replace(`from '${name}'`, `from '${url}'`);
  const file = join(dir, `${id}.mjs`);
  writeFileSync(file, code);
  return file;
}

describe('output-signing-and-verification', () => {
  it('signing-keygen: makes an Ed25519 key pair and a fingerprint to publish', () => {
    const dir = tempDir('signet-keygen-');
    const r = runRecipe('signing-keygen', dir);
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toMatch(/^[0-9a-f]{64} {2}-$/m);
    expect(readFileSync(join(dir, 'signing.pem'), 'utf8')).toContain('PRIVATE KEY');
    expect(execFileSync('openssl', ['pkey', '-in', join(dir, 'signing.pem'), '-noout', '-text'], { encoding: 'utf8' })).toMatch(/ED25519/);
  });

  const ctx = testContext({ SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE });
  const output = ctx.tools.call('doctrine_evaluate', { facts: { transport: { kind: 'stdio' } } }).result.structuredContent;

  function verify(structured: unknown) {
    const dir = tempDir('signet-verify-');
    writeFileSync(join(dir, 'out.json'), JSON.stringify(structured, null, 2));
    return runRecipe('output-verification', dir);
  }

  it('output-verification: a genuine output passes both checks', () => {
    const r = verify(output);
    expect(r.out).toContain('output_hash matches');
    expect(r.out).toContain('Signature Verified Successfully');
    expect(r.ok).toBe(true);
  }, 180_000);

  it('output-verification: a modified value fails the hash recomputation, while the signature check alone still passes', () => {
    const tampered = structuredClone(output) as { result: { summary: { undetermined: number } } };
    tampered.result.summary.undetermined -= 1;
    const r = verify(tampered);
    expect(r.out).toContain('output_hash MISMATCH');
    // The claim of the document: step 3 verifies the footer's hash string, which the edit did not touch.
    expect(r.out).toContain('Signature Verified Successfully');
  }, 180_000);

  it("key-file-mode: stat -L reads the key behind a Kubernetes Secret volume's links; stat alone reads the link", () => {
    // The kubelet's layout (pkg/volume/util/atomic_writer.go): key -> ..data/key, ..data -> ..<timestamp>/
    const volume = tempDir('signet-secret-');
    mkdirSync(join(volume, '..2026_11_22_12_00_00.000000001'));
    writeFileSync(join(volume, '..2026_11_22_12_00_00.000000001', 'signing-key.pem'), 'key');
    chmodSync(join(volume, '..2026_11_22_12_00_00.000000001', 'signing-key.pem'), 0o440);
    symlinkSync('..2026_11_22_12_00_00.000000001', join(volume, '..data'));
    symlinkSync('..data/signing-key.pem', join(volume, 'signing-key.pem'));
    const keyFile = join(volume, 'signing-key.pem');
    const r = runRecipe('key-file-mode', volume, { KEY_FILE: keyFile });
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toMatch(/^440 \S+:\S+$/m);
    expect(execFileSync('stat', ['-c', '%a', keyFile], { encoding: 'utf8' }).trim()).toBe('777');
  });
});

describe('logging-and-secrets: pino-redaction', () => {
  const dir = tempDir('signet-pino-');
  const file = jsRecipe('pino-redaction', dir, { pino: moduleUrl('pino') });

  function logWith(configModule: string, canary: string): string {
    const driver = join(dir, `driver-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(
      driver,
      `import { log } from ${JSON.stringify(pathToFileURL(configModule).href)};
for (const field of ['token', 'password', 'apiKey', 'authorization', 'privateKey']) {
  log.info({ [field]: ${JSON.stringify(canary)} }, 'top');
  log.info({ call: { [field]: ${JSON.stringify(canary)} } }, 'one down');
  log.info({ call: { upstream: { [field]: ${JSON.stringify(canary)} } } }, 'two down');
}
log.info({ req: { headers: { authorization: 'Bearer ' + ${JSON.stringify(canary)}, cookie: ${JSON.stringify(canary)} } } }, 'request');
log.flush();`,
    );
    return execFileSync(process.execPath, [driver], { encoding: 'utf8' });
  }

  it('redacts a canary at the top level and one and two levels down', () => {
    const out = logWith(file, 'sgnk_test_canary_0000');
    expect(out.trim().split('\n')).toHaveLength(16);
    expect(out).not.toContain('sgnk_test_canary_0000');
    expect(out).toContain('[redacted]');
  });

  it('while the one-level paths that 1.0.0 showed miss the top level and two levels down (the correction it makes)', () => {
    const old = join(dir, 'one-level.mjs');
    writeFileSync(
      old,
      `import pino from ${JSON.stringify(moduleUrl('pino'))};
export const log = pino({ redact: { censor: '[redacted]',
  paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.token', '*.password', '*.privateKey'] } });`,
    );
    const lines = logWith(old, 'sgnk_test_canary_0000')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    const leaked = (msg: string) => lines.filter((l) => l.msg === msg && JSON.stringify(l).includes('sgnk_test_canary_0000')).length;
    expect(leaked('one down')).toBe(1); // only `authorization`, which those paths never listed
    expect(leaked('top')).toBeGreaterThanOrEqual(4);
    expect(leaked('two down')).toBe(5);
  });
});

describe('egress-and-ssrf: egress-guard', () => {
  const dir = tempDir('signet-egress-');
  const file = jsRecipe('egress-guard', dir);

  it('refuses the usual disguises of internal and metadata addresses, and lets public addresses through', async () => {
    const { publicDestination } = (await import(pathToFileURL(file).href)) as { publicDestination: (u: string) => Promise<string> };
    const refused = [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://localhost:6379/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00:ec2::254]/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[fe80::1]/',
      'http://[64:ff9b::7f00:1]/',
      // Node 24's BlockList let these through under 1.2: local-use NAT64, IPv4-compatible, Teredo, site-local.
      'http://[64:ff9b:1::7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[2001::a9fe:a9fe]/',
      'http://[fec0::1]/',
      // Documentation and benchmarking ranges, 6to4, discard-only: not public unicast either.
      'http://[2001:db8::1]/',
      'http://[2002:7f00:1::]/',
      'http://[100::1]/',
      'file:///etc/passwd',
      'gopher://example.org/',
    ];
    for (const url of refused) await expect(publicDestination(url), url).rejects.toThrow(/not a public address|URLs are refused/);
    await expect(publicDestination('https://1.1.1.1/')).resolves.toBe('1.1.1.1');
    await expect(publicDestination('https://[2606:4700:4700::1111]/')).resolves.toBe('2606:4700:4700::1111');
    await expect(publicDestination('https://[2a00:1450:4001:80b::200e]/')).resolves.toBe('2a00:1450:4001:80b::200e');
  });
});

describe('consuming-servers: tool-definitions-hash', () => {
  const dir = tempDir('signet-toolhash-');
  const file = jsRecipe('tool-definitions-hash', dir, { canonicalize: moduleUrl('canonicalize') });

  it('hashes a real tools/list so that key order does not count and a one-word change does', async () => {
    const { toolDefinitionsHash } = (await import(pathToFileURL(file).href)) as { toolDefinitionsHash: (t: unknown[]) => string };
    const tools = structuredClone(testContext().tools.toolList) as Record<string, unknown>[];
    const hash = toolDefinitionsHash(tools);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered = [...tools].reverse().map((t) => Object.fromEntries(Object.entries(t).reverse()));
    expect(toolDefinitionsHash(reordered)).toBe(hash);
    const poisoned = structuredClone(tools);
    poisoned[0]!['description'] = String(poisoned[0]!['description']).replace(/ the /, ' THE ');
    expect(toolDefinitionsHash(poisoned)).not.toBe(hash);
  });
});

describe('supply-chain: supply-chain-build', () => {
  function project(): string {
    // A one-dependency project whose lockfile entry is this repository's own (the package is in npm's cache).
    const dir = tempDir('signet-supply-');
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const pkg = { name: 'fixture', version: '1.0.0', private: true, dependencies: { canonicalize: '5.1.0' } };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
    const packages = { '': pkg, 'node_modules/canonicalize': lock.packages['node_modules/canonicalize'] };
    const lockfile = { name: 'fixture', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lockfile, null, 2));
    writeFileSync(join(dir, '.npmrc'), 'prefer-offline=true\n');
    return dir;
  }

  it('installs exactly the lockfile and writes a CycloneDX SBOM', () => {
    const r = runRecipe('supply-chain-build', project());
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toMatch(/CycloneDX 1\.\d+, 1 components/);
  }, 120_000);

  it('refuses to install when package.json and the lockfile disagree', () => {
    const dir = project();
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    pkg.dependencies['left-pad'] = '^1.3.0';
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
    const r = runRecipe('supply-chain-build', dir);
    expect(r.ok).toBe(false);
    expect(r.out).toMatch(/in sync|lock file/i);
  }, 120_000);
});

describe('protocol-revisions: mcp-header-mismatch, against Signet', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer({ SIGNET_DATA_DIR: tempDir('signet-mismatch-'), SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE });
  });
  afterAll(async () => server?.stop());

  it('gets 400 and -32020 for an Mcp-Name that contradicts the body', () => {
    const r = runRecipe('mcp-header-mismatch', tempDir('signet-probe-'), { MCP_URL: server.url });
    expect(r.ok, r.out).toBe(true);
    expect(r.out).toMatch(/HTTP 400$/m);
    expect(r.out).toContain('"code":-32020');
  });
});

describe('tool-execution: safe-command', () => {
  const dir = tempDir('signet-git-');
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '--allow-empty', '-m', 'first commit');
  const file = jsRecipe('safe-command', dir);

  it('runs git log for a branch name, and refuses shell syntax and options without running anything', async () => {
    const { gitLog } = (await import(pathToFileURL(file).href)) as { gitLog: (repo: string, ref: string) => Promise<string> };
    expect(await gitLog(repo, 'main')).toMatch(/first commit/);
    const pwned = join(dir, 'pwned');
    for (const ref of [`main; touch ${pwned}`, `$(touch ${pwned})`, `--output=${pwned}`, '-p', '../main', 'main\ntouch x']) {
      await expect(gitLog(repo, ref), ref).rejects.toThrow(/not a ref name/);
    }
    // What the validation guards: a value that passed it still reaches git as one argument, after the end of options.
    await expect(gitLog(repo, 'no-such-branch')).rejects.toThrow(/unknown revision|bad revision|ambiguous argument/);
    expect(existsSync(pwned)).toBe(false);
  });
});

describe('tool-execution: confine-path', () => {
  const dir = tempDir('signet-confine-');
  const root = join(dir, 'work');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'sub', 'notes.txt'), 'x');
  mkdirSync(join(dir, 'work-of-someone-else'));
  writeFileSync(join(dir, 'work-of-someone-else', 'secret.txt'), 'x');
  symlinkSync('/etc', join(root, 'etc-link'));
  symlinkSync(join(root, 'sub', 'notes.txt'), join(root, 'inner-link'));
  const file = jsRecipe('confine-path', dir);

  it('accepts paths inside the root (links inside it included, and a file about to be created) and refuses every way out', async () => {
    const { confine } = (await import(pathToFileURL(file).href)) as { confine: (roots: string[], p: string) => Promise<string> };
    const real = realpathSync(root);
    expect(await confine([root], 'sub/notes.txt')).toBe(join(real, 'sub', 'notes.txt'));
    expect(await confine([root], 'inner-link')).toBe(join(real, 'sub', 'notes.txt'));
    expect(await confine([root], 'sub/new-file.txt')).toBe(join(real, 'sub', 'new-file.txt'));
    expect(await confine([root], '.')).toBe(real);
    const outside = [
      '../work-of-someone-else/secret.txt',
      join(dir, 'work-of-someone-else', 'secret.txt'),
      '/etc/passwd',
      'etc-link/passwd',
      'sub/../../work-of-someone-else/secret.txt',
    ];
    for (const p of outside) await expect(confine([root], p), p).rejects.toThrow(/outside the allowed roots/);
    // A string-prefix check would have let this one through: the sibling's name starts with the root's.
    expect(join(dir, 'work-of-someone-else').startsWith(root)).toBe(true);
  });
});

describe('client-hardening: authorization-url-check', () => {
  const dir = tempDir('signet-authurl-');
  const file = jsRecipe('authorization-url-check', dir);

  it('accepts https and loopback http, and refuses every other scheme and host', async () => {
    const { checkAuthorizationUrl } = (await import(pathToFileURL(file).href)) as { checkAuthorizationUrl: (u: string) => string };
    expect(checkAuthorizationUrl('https://auth.example.com/authorize?client_id=a&state=b')).toBe(
      'https://auth.example.com/authorize?client_id=a&state=b',
    );
    for (const ok of ['http://localhost:8080/authorize', 'http://127.0.0.1/authorize', 'http://[::1]:9000/authorize'])
      expect(checkAuthorizationUrl(ok)).toBe(ok);
    const refused = [
      'javascript:alert(1)',
      'data:text/html,<script>x</script>',
      'file:///etc/passwd',
      'vbscript:msgbox',
      'http://auth.example.com/authorize',
      'ms-settings:',
      'not a url',
    ];
    for (const bad of refused) expect(() => checkAuthorizationUrl(bad), bad).toThrow();
  });

  it('a URL full of shell syntax, passed as one argument to a program (no shell), arrives unchanged and runs nothing', () => {
    const pwned = join(dir, 'pwned');
    const url = checkSync(`https://auth.example.com/authorize?x=$(touch ${pwned})&y=\`touch ${pwned}\`;touch ${pwned}`);
    const echoed = execFileSync('printf', ['%s', url], { encoding: 'utf8' });
    expect(echoed).toBe(url);
    expect(existsSync(pwned)).toBe(false);
  });

  /** The recipe's check, run in a child process so this synchronous test needs no import. */
  function checkSync(text: string): string {
    return execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { checkAuthorizationUrl } from ${JSON.stringify(pathToFileURL(file).href)}; process.stdout.write(checkAuthorizationUrl(process.argv[1]))`,
        text,
      ],
      { encoding: 'utf8' },
    );
  }
});

it('the recipes run with the tools the test machine has', () => {
  for (const tool of ['openssl', 'jq', 'npm', 'stat', 'git']) expect(spawnSync('sh', ['-c', `command -v ${tool}`]).status, tool).toBe(0);
});
