// The proxy's start-up steps (proxy/docker-entrypoint.d) run two ways: by the image's
// /docker-entrypoint.sh (docker-nginx: *.envsh sourced, *.sh run, in version order) and by
// proxy/render.sh outside a container. Both must write the same configuration, refuse the
// same settings, and keep quiet with NGINX_ENTRYPOINT_QUIET_LOGS except to refuse.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfSignedCert } from '../helpers/openssl.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const STEPS = join(ROOT, 'proxy', 'docker-entrypoint.d');
const KEY = `sgnk_${'K'.repeat(43)}`;

/** docker-nginx's entrypoint loop, as the official image (and this machine's stand-in) runs it. */
const ENTRYPOINT = `#!/bin/sh
set -e
if [ -z "\${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ]; then exec 3>&1; else exec 3>/dev/null; fi
for f in $(find "$STEPS" -follow -type f -print | sort -V); do
  case "$f" in
    */50-signet-watch-upstream.sh) ;;
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
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, files };
}

describe('proxy start-up steps', () => {
  it('are one concern per numbered step, executable, as docker-nginx runs them', () => {
    const names = readdirSync(STEPS).sort();
    expect(names.length).toBeGreaterThanOrEqual(8);
    for (const name of names) {
      expect(name, name).toMatch(/^\d\d-signet-[a-z-]+\.(envsh|sh)$/);
      expect(statSync(join(STEPS, name)).mode & 0o111, `${name} is executable`).not.toBe(0);
    }
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
    ['the key store', { SIGNET_KEY_STORE: join(ROOT, 'package.json'), SIGNET_PROXY_NJS_SHARED_DICT: 'off' }],
    [
      'OAuth beside the key store',
      {
        SIGNET_KEY_STORE: join(ROOT, 'package.json'),
        SIGNET_PROXY_NJS_SHARED_DICT: 'off',
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
      'cors-http.conf',
      'discovery.conf',
      'errors.conf',
      'headers.conf',
      'nginx.conf',
      'proxy-headers.conf',
      'signet.conf',
      'upstream-auth.conf',
    ]);
    expect(a.files).toEqual(b.files);
  });

  it("check SIGNET_ALLOWED_ORIGINS with exactly the server's pattern (one rule, written in two languages)", () => {
    const server = /^const ORIGIN = \/(.+)\/;$/m.exec(readFileSync(join(ROOT, 'src/config.ts'), 'utf8'))![1]!.replaceAll('\\/', '/');
    const proxy = /grep -Eq '([^']+)'/.exec(readFileSync(join(ROOT, 'proxy/docker-entrypoint.d/35-signet-cors.envsh'), 'utf8'))![1]!;
    expect(proxy).toBe(server);
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
    expect(loud.stderr).toMatch(/36-signet-client-address\.envsh: client addresses from X-Forwarded-For of trusted front proxies/);
    expect(loud.stderr).toMatch(/40-signet-render\.sh: configuration rendered/);
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
      expect(plain.files['signet.conf']).toContain('proxy_pass http://signet_backend/mcp;');
      expect(plain.files['upstream-auth.conf']).not.toContain('proxy_ssl');
      const tls = run(how, { SIGNET_API_KEY: KEY, SIGNET_PROXY_UPSTREAM_CA_FILE: ca });
      expect(tls.code, tls.stderr).toBe(0);
      expect(tls.files['signet.conf']).toContain('proxy_pass https://signet_backend/mcp;');
      expect(tls.files['signet.conf']).not.toMatch(/proxy_pass http:/);
      expect(tls.files['upstream-auth.conf']).toContain(`proxy_ssl_verify on;\nproxy_ssl_trusted_certificate ${ca};\n`);
      expect(tls.files['upstream-auth.conf']).toContain('proxy_ssl_name signet;\nproxy_ssl_server_name on;');
      const named = run(how, { SIGNET_API_KEY: KEY, SIGNET_PROXY_UPSTREAM_CA_FILE: ca, SIGNET_PROXY_UPSTREAM_TLS_NAME: 'signet.prod.svc' });
      expect(named.files['upstream-auth.conf']).toContain('proxy_ssl_name signet.prod.svc;');
      // OAuth: the token verifier, which gets every token, is verified with the same CA.
      const oauth = {
        SIGNET_API_KEY: KEY,
        SIGNET_AUTH_MODE: 'oauth',
        SIGNET_OAUTH_ISSUER: 'https://idp.example.org',
        SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp',
      };
      expect(run(how, oauth).files['discovery.conf']).toContain('proxy_pass http://signet_token_verifier/check;');
      const verified = run(how, { ...oauth, SIGNET_PROXY_UPSTREAM_CA_FILE: ca });
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.files['discovery.conf']).toContain('proxy_pass https://signet_token_verifier/check;');
      expect(verified.files['discovery.conf']).toMatch(
        new RegExp(
          `proxy_ssl_verify on;\\s+proxy_ssl_trusted_certificate ${ca.replaceAll('/', '\\/')};[\\s\\S]*proxy_ssl_name token-verifier;`,
        ),
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
      [{ SIGNET_PROXY_UPSTREAM_CA_FILE: ca, SIGNET_PROXY_VERIFIER_TLS_NAME: 'token-verifier' }, /SIGNET_PROXY_VERIFIER_TLS_NAME needs/],
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
      expect(r.files['upstream-auth.conf']).toBe(`proxy_set_header X-Signet-Proxy-Auth "${secret}";\n`);
      expect(r.files['proxy-headers.conf']).toContain('include <dir>/conf/upstream-auth.conf;');
      expect(r.stderr + r.stdout).not.toContain(secret);
      const none = run(how, { SIGNET_API_KEY: KEY });
      expect(none.files['upstream-auth.conf']).toBe('proxy_set_header X-Signet-Proxy-Auth "";\n');
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
});
