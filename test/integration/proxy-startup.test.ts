// The proxy's start-up steps (proxy/docker-entrypoint.d) run two ways: by the image's
// /docker-entrypoint.sh (docker-nginx: *.envsh sourced, *.sh run, in version order) and by
// proxy/render.sh outside a container. Both must write the same configuration, refuse the
// same settings, and keep quiet with NGINX_ENTRYPOINT_QUIET_LOGS except to refuse.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkApiKeyFormat, newApiKey } from '../../src/api-keys/format.js';
import { API_KEY, OAUTH_URL, ORIGIN_PATTERN, SCOPE_TOKEN, SECRET } from '../../src/shared/edge-contract.js';
import { selfSignedCert } from '../helpers/openssl.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const STEPS = join(ROOT, 'proxy', 'docker-entrypoint.d');
const KEY = newApiKey();

/** docker-nginx's entrypoint loop, as the official image (and this machine's stand-in) runs it. */
const ENTRYPOINT = `#!/bin/sh
set -e
if [ -z "\${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ]; then exec 3>&1; else exec 3>/dev/null; fi
for f in $(find "$STEPS" -follow -type f -print | sort -V); do
  case "$f" in
    */*-signet-watch-upstream.sh) ;;
    *.envsh) [ -x "$f" ] && . "$f" ;;
    *.sh) [ -x "$f" ] && "$f" ;;
  esac
done
`;

function run(how: 'entrypoint' | 'render.sh', env: Record<string, string>) {
  const dir = tempDir('signet-startup-');
  const base = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', SIGNET_PROXY_CONF_DIR: join(dir, 'conf'), SIGNET_TLS_DIR: join(dir, 'tls') };
  let r: SpawnSyncReturns<string>;
  if (how === 'render.sh') {
    r = spawnSync('sh', [join(ROOT, 'proxy', 'render.sh')], { env: { ...base, ...env }, encoding: 'utf8' });
  } else {
    const script = join(dir, 'docker-entrypoint.sh');
    writeFileSync(script, ENTRYPOINT);
    r = spawnSync('sh', [script], { env: { ...base, STEPS, SIGNET_PROXY_HOME: join(ROOT, 'proxy'), ...env }, encoding: 'utf8' });
  }
  const conf = join(dir, 'conf');
  const files =
    r.status === 0
      ? Object.fromEntries(readdirSync(conf).map((f) => [f, readFileSync(join(conf, f), 'utf8').replaceAll(dir, '<dir>')]))
      : {};
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, files, conf };
}

/**
 * A folder of stand-ins for the programs the steps run: each logs its name, arguments and
 * environment to SHIM_LOG, then runs the real one. Put first on PATH, it shows what every process
 * the start-up runs was handed.
 */
function shimmedPath(dir: string): { path: string; log: string } {
  const shims = join(dir, 'shims');
  const log = join(dir, 'shims.log');
  const real = process.env['PATH'] ?? '/usr/bin:/bin';
  spawnSync('mkdir', ['-p', shims]);
  for (const name of ['envsubst', 'sed', 'grep', 'cut', 'tr', 'cat', 'od', 'gzip', 'tail', 'head', 'mkdir', 'wc']) {
    const target = spawnSync('sh', ['-c', `PATH='${real}' command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    expect(target, name).not.toBe('');
    writeFileSync(
      join(shims, name),
      `#!/bin/sh\n{ printf '== %s' "\${0##*/}"; printf ' %s' "$@"; printf '\\n'; env; } >> "$SHIM_LOG"\nexec ${target} "$@"\n`,
    );
    chmodSync(join(shims, name), 0o755);
  }
  return { path: `${shims}:${real}`, log };
}

describe('proxy start-up steps', () => {
  it('are one concern per numbered step, executable, as docker-nginx runs them', () => {
    const names = readdirSync(STEPS).sort();
    expect(names.length).toBeGreaterThanOrEqual(8);
    for (const name of names) {
      expect(name, name).toMatch(/^\d\d-signet-[a-z-]+\.(envsh|sh)$/);
      expect(statSync(join(STEPS, name)).mode & 0o111, `${name} is executable`).not.toBe(0);
    }
    // One number per step.
    const numbers = names.map((n) => n.slice(0, 2));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it.each([
    ['a static key', { SIGNET_API_KEY: KEY }],
    [
      'CORS, trusted front proxies and the PROXY protocol',
      {
        SIGNET_API_KEY: KEY,
        SIGNET_ALLOWED_ORIGINS: 'https://app.example.com',
        SIGNET_PROXY_TRUSTED_PROXIES: '10.0.0.0/8',
        SIGNET_PROXY_REAL_IP_HEADER: 'proxy_protocol',
      },
    ],
    ['the auth check', { SIGNET_PROXY_AUTH_CHECK: 'auth:3100' }],
    [
      'OAuth beside the key store',
      {
        SIGNET_PROXY_AUTH_CHECK: 'auth:3100',
        SIGNET_AUTH_MODE: 'keys+oauth',
        SIGNET_OAUTH_ISSUER: 'https://idp.example.org/realms/team',
        SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp',
      },
    ],
  ])('write the same configuration through the entrypoint and render.sh: %s', (_label, env) => {
    const a = run('entrypoint', env);
    const b = run('render.sh', env);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(Object.keys(a.files).sort()).toEqual([
      'auth-check-tls.conf',
      'auth-http.conf',
      'auth-server.conf',
      'auth.conf',
      'challenge-http.conf',
      'cors-http.conf',
      'cors-loopback.conf',
      'cors-origins.conf',
      'discovery.conf',
      'errors.conf',
      'headers.conf',
      'hsts.conf',
      'nginx.conf',
      'no-body.conf',
      'proxy-headers.conf',
      'proxy-secret.conf',
      'real-ip.conf',
      'signet.conf',
      'tls.conf',
      'upstream-tls.conf',
    ]);
    expect(a.files).toEqual(b.files);
  });

  it("read the contract's grammars as the server does: one rule, emitted from TypeScript, the same verdicts in grep -E", () => {
    const samples: [string, string, string[]][] = [
      ['key', API_KEY.pattern, [KEY, `${KEY}x`, KEY.slice(0, -1), `sgnk_${'a'.repeat(56)}!`, 'ghp_abc', '', `x${KEY}`]],
      ['secret', SECRET.pattern, ['ab12'.repeat(16), 'a b', 'x"y', 'a/b+c=d~e.f_g-h', '', 'é']],
      [
        'origin',
        ORIGIN_PATTERN,
        [
          'https://app.example.com',
          'http://localhost:5173',
          'http://[::1]:80',
          'HTTPS://A.EXAMPLE',
          'https://a.example/',
          'https://*.example',
          'http://evil.example|',
        ],
      ],
      ['scope (ERE)', SCOPE_TOKEN.ere, ['signet:read', 'a]b', 'a\\b', 'a"b', 'x y', '', '!#[]^~', 'é']],
      [
        'resource',
        OAUTH_URL.resource,
        [
          'https://mcp.example.org/mcp',
          'http://127.0.0.1:8080/mcp',
          'http://[::1]:9/x',
          'https://a.example/mcp/',
          "https://a.example/x'y",
          'https://a.example/?q',
          'ftp://a',
        ],
      ],
      ['issuer', OAUTH_URL.issuer, ['https://tenant.auth0.com/', 'https://idp.example.org/realms/team', 'https://a.example//']],
    ];
    for (const [what, pattern, values] of samples) {
      const js = new RegExp(what === 'scope (ERE)' ? SCOPE_TOKEN.js : pattern);
      for (const value of values) {
        const grep = spawnSync('grep', ['-Eqx', '--', pattern], { input: `${value}\n` }).status === 0;
        expect(grep, `${what}: ${JSON.stringify(value)}`).toBe(js.test(value));
      }
    }
  });

  it('mint keys in shell by the same rule as `signet api-keys new` (signet-proxy-key), and check a static key the same way', () => {
    for (let i = 0; i < 20; i++) {
      const minted = spawnSync('sh', [join(ROOT, 'proxy', 'signet-proxy-key')], { encoding: 'utf8' });
      expect(minted.status, minted.stderr).toBe(0);
      expect(checkApiKeyFormat(minted.stdout.trim())).toMatchObject({ ok: true });
    }
    for (let i = 0; i < 5; i++) expect(run('render.sh', { SIGNET_API_KEY: newApiKey() }).code).toBe(0);
    const typo = KEY.slice(0, 20) + (KEY[20] === 'A' ? 'B' : 'A') + KEY.slice(21);
    const r = run('render.sh', { SIGNET_API_KEY: typo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/SIGNET_API_KEY fails its checksum: it is mistyped or truncated/);
    expect(r.stderr).not.toContain(typo);
  });

  it('refuse the same settings both ways, write nothing, and never print the key', () => {
    for (const how of ['entrypoint', 'render.sh'] as const) {
      const r = run(how, { SIGNET_API_KEY: `${KEY}!` });
      expect(r.code, how).toBe(1);
      expect(r.stderr).toMatch(/refusing to start: SIGNET_API_KEY may contain only letters and digits/);
      expect(r.stderr + r.stdout).not.toContain(KEY);
      expect(r.files).toEqual({});
    }
  });

  it('say what they did, and only refusals with NGINX_ENTRYPOINT_QUIET_LOGS', () => {
    const env = { SIGNET_API_KEY: KEY, SIGNET_PROXY_TRUSTED_PROXIES: '10.0.0.0/8' };
    const loud = run('render.sh', env);
    expect(loud.stderr).toMatch(/35-signet-client-address\.envsh: client addresses from X-Forwarded-For of trusted front proxies/);
    expect(loud.stderr).toMatch(/40-signet-render\.envsh: configuration rendered/);
    expect(loud.stderr).not.toContain(KEY);
    const quiet = run('render.sh', { ...env, NGINX_ENTRYPOINT_QUIET_LOGS: '1' });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr + quiet.stdout).toBe('');
    const refused = run('entrypoint', { ...env, NGINX_ENTRYPOINT_QUIET_LOGS: '1', SIGNET_PROXY_AUTH_FAILURES_BURST: '0' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/SIGNET_PROXY_AUTH_FAILURES_BURST must be a whole number of at least 1/);
  });

  it('speak HTTPS to Signet only with a CA to verify it against, the name from SIGNET_UPSTREAM or SIGNET_PROXY_UPSTREAM_TLS_NAME', () => {
    const dir = tempDir('signet-startup-upstream-tls-');
    const ca = join(dir, 'ca.crt');
    selfSignedCert({ keyFile: join(dir, 'ca.key'), certFile: ca, commonName: 'test-ca', altNames: 'DNS:signet', days: 1 });
    for (const how of ['entrypoint', 'render.sh'] as const) {
      const plain = run(how, { SIGNET_API_KEY: KEY });
      expect(plain.files['signet.conf']).toContain('proxy_pass http://signet_backend;');
      expect(plain.files['upstream-tls.conf']).not.toContain('proxy_ssl');
      const tls = run(how, { SIGNET_API_KEY: KEY, SIGNET_PROXY_UPSTREAM_CA_FILE: ca });
      expect(tls.code, tls.stderr).toBe(0);
      expect(tls.files['signet.conf']).toContain('proxy_pass https://signet_backend;');
      expect(tls.files['signet.conf']).not.toMatch(/proxy_pass http:/);
      expect(tls.files['upstream-tls.conf']).toContain(`proxy_ssl_verify on;\nproxy_ssl_trusted_certificate ${ca};\n`);
      expect(tls.files['upstream-tls.conf']).toContain('proxy_ssl_name signet;\nproxy_ssl_server_name on;');
      const named = run(how, { SIGNET_API_KEY: KEY, SIGNET_PROXY_UPSTREAM_CA_FILE: ca, SIGNET_PROXY_UPSTREAM_TLS_NAME: 'signet.prod.svc' });
      expect(named.files['upstream-tls.conf']).toContain('proxy_ssl_name signet.prod.svc;');
      // The auth check, which gets every credential, is verified with the same CA.
      const oauth = {
        SIGNET_PROXY_AUTH_CHECK: 'auth:3100',
        SIGNET_AUTH_MODE: 'oauth',
        SIGNET_OAUTH_ISSUER: 'https://idp.example.org',
        SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp',
      };
      expect(run(how, oauth).files['auth-server.conf']).toContain('proxy_pass http://signet_auth_check/check;');
      const verified = run(how, { ...oauth, SIGNET_PROXY_UPSTREAM_CA_FILE: ca });
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.files['auth-server.conf']).toContain('proxy_pass https://signet_auth_check/check;');
      expect(verified.files['auth-check-tls.conf']).toMatch(
        new RegExp(`proxy_ssl_verify on;\\s+proxy_ssl_trusted_certificate ${ca.replaceAll('/', '\\/')};[\\s\\S]*proxy_ssl_name auth;`),
      );
    }
    const notPem = join(dir, 'not-pem');
    writeFileSync(notPem, 'hello');
    for (const [env, message] of [
      [{ SIGNET_PROXY_UPSTREAM_CA_FILE: join(dir, 'missing.crt') }, /SIGNET_PROXY_UPSTREAM_CA_FILE \(.*missing\.crt\) cannot be read/],
      [{ SIGNET_PROXY_UPSTREAM_CA_FILE: notPem }, /SIGNET_PROXY_UPSTREAM_CA_FILE \(.*\) holds no PEM certificate/],
      [{ SIGNET_PROXY_UPSTREAM_TLS_NAME: 'signet' }, /SIGNET_PROXY_UPSTREAM_TLS_NAME needs SIGNET_PROXY_UPSTREAM_CA_FILE/],
      [
        { SIGNET_PROXY_UPSTREAM_CA_FILE: ca, SIGNET_PROXY_UPSTREAM_TLS_NAME: 'signet;evil' },
        /SIGNET_PROXY_UPSTREAM_TLS_NAME must be the DNS name/,
      ],
      [{ SIGNET_PROXY_UPSTREAM_CA_FILE: `${ca} ;` }, /SIGNET_PROXY_UPSTREAM_CA_FILE must be a path/],
      [{ SIGNET_PROXY_UPSTREAM_CA_FILE: ca, SIGNET_PROXY_AUTH_CHECK_TLS_NAME: 'auth' }, /SIGNET_PROXY_AUTH_CHECK_TLS_NAME needs/],
      [{ SIGNET_PROXY_VERIFIER_TLS_NAME: 'token-verifier' }, /SIGNET_PROXY_VERIFIER_TLS_NAME is now SIGNET_PROXY_AUTH_CHECK_TLS_NAME/],
    ] as const) {
      for (const how of ['entrypoint', 'render.sh'] as const) {
        const r = run(how, { SIGNET_API_KEY: KEY, ...env });
        expect(r.code, `${how} ${JSON.stringify(env)}`).toBe(1);
        expect(r.stderr).toMatch(message);
        expect(r.files).toEqual({});
      }
    }
  });

  it("send the proxy secret to Signet from SIGNET_PROXY_SECRET_FILE, overwrite a client's header without one, refuse a bad file, and never print it", () => {
    const dir = tempDir('signet-startup-secret-');
    const secret = 'ab12'.repeat(16);
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content, { mode: 0o440 });
      return join(dir, name);
    };
    for (const how of ['entrypoint', 'render.sh'] as const) {
      const r = run(how, { SIGNET_API_KEY: KEY, SIGNET_PROXY_SECRET_FILE: file('good', `${secret}\n`) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.files['proxy-secret.conf']).toBe(`proxy_set_header X-Signet-Proxy-Auth "${secret}";\n`);
      expect(r.files['proxy-headers.conf']).toContain('include <dir>/conf/proxy-secret.conf;');
      expect(r.stderr + r.stdout).not.toContain(secret);
      const none = run(how, { SIGNET_API_KEY: KEY });
      expect(none.files['proxy-secret.conf']).toBe('proxy_set_header X-Signet-Proxy-Auth "";\n');
      expect(none.stderr).toMatch(/no SIGNET_PROXY_SECRET_FILE: Signet will not believe the client address or key id this proxy names/);
      for (const [label, path] of [
        ['missing', join(dir, 'absent')],
        ['short', file('short', 'abc123')],
        ['a quote', file('quote', `${secret}"; return 200 "x`)],
      ] as const) {
        const bad = run(how, { SIGNET_API_KEY: KEY, SIGNET_PROXY_SECRET_FILE: path });
        expect(bad.code, `${how} ${label}`).toBe(1);
        expect(bad.stderr, `${how} ${label}`).toMatch(/refusing to start: SIGNET_PROXY_SECRET_FILE/);
        expect(bad.stderr).not.toContain(secret);
      }
    }
  });

  it('read the static key from SIGNET_API_KEY_FILE into a file only the proxy reads, hand it to no other process, and still take SIGNET_API_KEY (discouraged)', () => {
    const dir = tempDir('signet-startup-key-file-');
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content, { mode: 0o400 });
      return join(dir, name);
    };
    const typo = KEY.slice(0, 20) + (KEY[20] === 'A' ? 'B' : 'A') + KEY.slice(21);
    for (const how of ['entrypoint', 'render.sh'] as const) {
      const fromFile = run(how, { SIGNET_API_KEY_FILE: file('key', `${KEY}\n`) });
      expect(fromFile.code, fromFile.stderr).toBe(0);
      expect(fromFile.files['auth.conf']).toContain(`[Bb][Ee][Aa][Rr][Ee][Rr] ${KEY}$`);
      // The one file that holds it: the proxy's uid alone reads it, in a folder only that uid opens.
      expect(statSync(join(fromFile.conf, 'auth.conf')).mode & 0o777).toBe(0o600);
      expect(statSync(fromFile.conf).mode & 0o777).toBe(0o700);
      for (const [name, text] of Object.entries(fromFile.files)) if (name !== 'auth.conf') expect(text, name).not.toContain(KEY);
      expect(fromFile.stderr + fromFile.stdout).not.toContain(KEY);
      expect(fromFile.stderr).not.toMatch(/prefer SIGNET_API_KEY_FILE/);
      // The environment still works, and the same configuration comes of it; the log says to prefer the file.
      const fromEnv = run(how, { SIGNET_API_KEY: KEY });
      expect(fromEnv.files).toEqual(fromFile.files);
      expect(fromEnv.stderr).toMatch(
        /SIGNET_API_KEY is read from the environment, which every process of the container inherits: prefer SIGNET_API_KEY_FILE/,
      );
      // An empty file is no key (compose always writes one): the auth check, or a refusal without one.
      const empty = file(`empty-${how}`, '');
      expect(run(how, { SIGNET_API_KEY_FILE: empty, SIGNET_PROXY_AUTH_CHECK: 'auth:3100' }).files['auth.conf']).toContain('auth_request');
      const refusals: [Record<string, string>, RegExp][] = [
        [{ SIGNET_API_KEY_FILE: empty }, /refusing to start: no API key: set SIGNET_API_KEY_FILE/],
        [{ SIGNET_API_KEY_FILE: join(dir, 'absent') }, /SIGNET_API_KEY_FILE \(\S+absent\) cannot be read/],
        [{ SIGNET_API_KEY_FILE: dir }, /SIGNET_API_KEY_FILE \(\S+\) cannot be read/],
        [{ SIGNET_API_KEY_FILE: file(`key2-${how}`, KEY), SIGNET_API_KEY: KEY }, /SIGNET_API_KEY and SIGNET_API_KEY_FILE are both set/],
        [
          { SIGNET_API_KEY_FILE: file(`typo-${how}`, typo) },
          /the key in SIGNET_API_KEY_FILE fails its checksum: it is mistyped or truncated/,
        ],
        [{ SIGNET_API_KEY_FILE: file(`crlf-${how}`, `${KEY}\r\n`) }, /the key in SIGNET_API_KEY_FILE may contain only letters and digits/],
      ];
      for (const [env, message] of refusals) {
        const r = run(how, env);
        expect(r.code, `${how} ${JSON.stringify(env)}`).toBe(1);
        expect(r.stderr).toMatch(message);
        expect(r.stderr + r.stdout).not.toContain(KEY.slice(5));
        expect(r.files).toEqual({});
      }
    }
    // No process the steps start gets the key in its arguments or environment, but the envsubst
    // that writes auth.conf (in its environment, for that one template).
    const shim = shimmedPath(dir);
    const r = run('render.sh', { SIGNET_API_KEY_FILE: join(dir, 'key'), PATH: shim.path, SHIM_LOG: shim.log });
    expect(r.code, r.stderr).toBe(0);
    const runs = readFileSync(shim.log, 'utf8').split(/^== /m).filter(Boolean);
    expect(runs.length).toBeGreaterThan(20);
    const holding = runs.filter((x) => x.includes(KEY.slice(5)));
    expect(holding).toHaveLength(1);
    expect(holding[0]!.split('\n')[0]).toMatch(/^envsubst /);
    expect(holding[0]).toContain(`\nEDGE_STATIC_KEY=${KEY}\n`);
  });
});
