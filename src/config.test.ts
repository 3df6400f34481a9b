import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig, redisUrlHasPassword } from './config.js';

describe('configuration', () => {
  it('has a default for everything', () => {
    const c = loadConfig({});
    expect(c.transport).toBe('stdio');
    expect(c.http).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      rateLimitPerMinute: 60,
      rateLimitIpv6Prefix: 64,
      metricsPort: null,
      redisUrl: null,
    });
    expect(c.cacheEntries).toBe(1024);
    expect(c.keyStore).toBe(`${c.dataDir}/keys.json`);
  });

  it('reads good values, trimmed; an empty value is the default', () => {
    const c = loadConfig({
      SIGNET_HTTP_PORT: ' 8080 ',
      SIGNET_TRANSPORT: 'http',
      SIGNET_ALLOWED_ORIGINS: 'https://a.example, http://localhost:6274',
      SIGNET_CACHE_ENTRIES: '',
    });
    expect(c.http.port).toBe(8080);
    expect(c.transport).toBe('http');
    expect(c.http.allowedOrigins).toEqual(['https://a.example', 'http://localhost:6274']);
    expect(c.cacheEntries).toBe(1024);
  });

  // Every variable that has a shape, with a value it must refuse, naming the variable.
  const bad: [string, string, RegExp][] = [
    ['SIGNET_TRANSPORT', 'carrier-pigeon', /must be one of stdio, http/],
    ['SIGNET_LOG_LEVEL', 'loud', /must be one of fatal, error/],
    ['SIGNET_DOCTRINE_PUBLISHER_KEY', 'abc', /base64 DER SPKI of an Ed25519 key/],
    ['SIGNET_DOCTRINE_HASH', 'sha256:ABC', /64 lowercase hex digits/],
    ['SIGNET_CACHE_ENTRIES', '-1', /whole number between 0 and 1000000/],
    ['SIGNET_CACHE_BYTES', '1', /between 65536 and/],
    ['SIGNET_MAX_ARGUMENT_BYTES', '12k', /whole number/],
    ['SIGNET_MAX_BATCH_MESSAGES', '0', /between 1 and 1000/],
    ['SIGNET_HTTP_PORT', '70000', /between 0 and 65535/],
    ['SIGNET_HTTP_PORT', '80.5', /whole number/],
    ['SIGNET_RATE_LIMIT_PER_MINUTE', 'lots', /whole number/],
    ['SIGNET_RATE_LIMIT_OTHER_PER_MINUTE', '1e3', /whole number/],
    ['SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE', '-5', /whole number/],
    ['SIGNET_RATE_LIMIT_IPV6_PREFIX', '16', /between 32 and 128/],
    ['SIGNET_MAX_BODY_BYTES', '10', /between 1024 and/],
    ['SIGNET_ALLOWED_ORIGINS', '*', /origins as scheme:\/\/host\[:port\]/],
    ['SIGNET_ALLOWED_ORIGINS', 'https://App.example.com', /in lower case/],
    ['SIGNET_ALLOWED_ORIGINS', 'https://a.example/path', /without path/],
    ['SIGNET_REQUEST_TIMEOUT_MS', '10', /between 1000 and 600000/],
    ['SIGNET_HEADERS_TIMEOUT_MS', 'soon', /whole number/],
    ['SIGNET_KEEP_ALIVE_TIMEOUT_MS', '999999999', /between 1000 and 600000/],
    ['SIGNET_SHUTDOWN_TIMEOUT_MS', '-1', /whole number/],
    ['SIGNET_SHUTDOWN_DELAY_MS', '61000', /between 0 and 60000/],
    ['SIGNET_REDIS_URL', 'http://user:hunter2@redis:6379', /must start with redis:\/\/ or rediss:\/\//],
    ['SIGNET_METRICS_PORT', 'x', /whole number between 0 and 65535/],
  ];
  it.each(bad)('refuses %s=%j, naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      expect((err as Error).message.startsWith(`${name} `)).toBe(true);
      expect((err as { details: { where: string }[] }).details[0]!.where).toBe(name);
    }
  });

  it('never shows a Redis URL back (it may carry a password)', () => {
    expect(() => loadConfig({ SIGNET_REDIS_URL: 'http://user:hunter2@redis' })).toThrow(/<redacted>/);
    try {
      loadConfig({ SIGNET_REDIS_URL: 'http://user:hunter2@redis' });
    } catch (err) {
      expect(JSON.stringify({ message: (err as Error).message, details: (err as { details: unknown }).details })).not.toContain('hunter2');
    }
  });

  it('reports every bad variable at once', () => {
    try {
      loadConfig({ SIGNET_HTTP_PORT: 'x', SIGNET_TRANSPORT: 'y' });
      expect.fail('no error');
    } catch (err) {
      expect((err as { details: { where: string }[] }).details.map((d) => d.where).sort()).toEqual([
        'SIGNET_HTTP_PORT',
        'SIGNET_TRANSPORT',
      ]);
    }
  });

  it('lists its variables', () => {
    expect(CONFIG_VARIABLES).toContain('SIGNET_TRUST_FILE');
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(25);
  });

  it('never takes an address range alone as the proxy: SIGNET_TRUSTED_PROXIES without SIGNET_PROXY_SECRET_FILE is refused', () => {
    expect(() => loadConfig({ SIGNET_TRUSTED_PROXIES: '10.213.250.0/24' })).toThrow(
      /SIGNET_TRUSTED_PROXIES needs SIGNET_PROXY_SECRET_FILE: identity headers are believed only from a proxy that presents the secret/,
    );
    const c = loadConfig({ SIGNET_TRUSTED_PROXIES: '10.213.250.0/24', SIGNET_PROXY_SECRET_FILE: '/run/proxy-auth/secret' });
    expect(c.http).toMatchObject({ proxySecretFile: '/run/proxy-auth/secret' });
    expect(c.http.trustedProxies?.check('10.213.250.7', 'ipv4')).toBe(true);
    expect(c.http.trustedProxies?.check('10.213.251.7', 'ipv4')).toBe(false);
  });

  it('reads the Redis password from a file: refused without a URL, or beside a URL that carries one', () => {
    expect(() => loadConfig({ SIGNET_REDIS_PASSWORD_FILE: '/run/redis-auth/password' })).toThrow(
      /SIGNET_REDIS_PASSWORD_FILE needs SIGNET_REDIS_URL/,
    );
    const both = () => loadConfig({ SIGNET_REDIS_URL: 'redis://:hunter2hunter2@redis:6379', SIGNET_REDIS_PASSWORD_FILE: '/run/p' });
    expect(both).toThrow(/SIGNET_REDIS_URL carries a password and SIGNET_REDIS_PASSWORD_FILE names another/);
    expect(both).not.toThrow(/hunter2/);
    const c = loadConfig({ SIGNET_REDIS_URL: 'redis://redis:6379', SIGNET_REDIS_PASSWORD_FILE: '/run/redis-auth/password' });
    expect(c.http).toMatchObject({ redisUrl: 'redis://redis:6379', redisPasswordFile: '/run/redis-auth/password' });
    expect(redisUrlHasPassword('redis://user:pw@h:1')).toBe(true);
    expect(redisUrlHasPassword('rediss://h:1')).toBe(false);
  });

  it('serves HTTPS only with both the certificate and its key: one without the other is refused, never plain HTTP', () => {
    expect(() => loadConfig({ SIGNET_TLS_CERT_FILE: '/run/tls/tls.crt' })).toThrow(
      /SIGNET_TLS_KEY_FILE is required with SIGNET_TLS_CERT_FILE: HTTPS needs the certificate and its key/,
    );
    expect(() => loadConfig({ SIGNET_TLS_KEY_FILE: '/run/tls/tls.key' })).toThrow(
      /SIGNET_TLS_CERT_FILE is required with SIGNET_TLS_KEY_FILE: HTTPS needs the certificate and its key/,
    );
    expect(loadConfig({}).http.tls).toBeNull();
    expect(loadConfig({ SIGNET_TLS_CERT_FILE: '/run/tls/tls.crt', SIGNET_TLS_KEY_FILE: '/run/tls/tls.key' }).http.tls).toEqual({
      certFile: '/run/tls/tls.crt',
      keyFile: '/run/tls/tls.key',
    });
  });

  it('refuses a metrics listener others can reach without a token, and accepts loopback or a token', () => {
    expect(() => loadConfig({ SIGNET_METRICS_PORT: '9464', SIGNET_HTTP_HOST: '0.0.0.0' })).toThrow(
      /SIGNET_METRICS_HOST is "0.0.0.0", not loopback: a metrics listener others can reach needs SIGNET_METRICS_TOKEN_FILE/,
    );
    expect(
      loadConfig({ SIGNET_METRICS_PORT: '9464', SIGNET_HTTP_HOST: '0.0.0.0', SIGNET_METRICS_HOST: '127.0.0.1' }).http.metricsHost,
    ).toBe('127.0.0.1');
    expect(
      loadConfig({ SIGNET_METRICS_PORT: '9464', SIGNET_HTTP_HOST: '0.0.0.0', SIGNET_METRICS_TOKEN_FILE: '/run/metrics/token' }).http
        .metricsTokenFile,
    ).toBe('/run/metrics/token');
  });

  it('has per-principal defaults: 60 calls per key, a 600 guard per address, bounded JSON and bodies in flight, loopback origins on', () => {
    expect(loadConfig({}).http).toMatchObject({
      rateLimitPerKeyPerMinute: 60,
      rateLimitIpGuardPerMinute: 600,
      maxJsonDepth: 64,
      maxJsonNodes: 100_000,
      maxConcurrentBodies: 32,
      maxConcurrentBodiesPerPrincipal: 8,
      allowLoopbackOrigins: true,
      proxySecretFile: null,
    });
    expect(loadConfig({ SIGNET_ALLOW_LOOPBACK_ORIGINS: 'false' }).http.allowLoopbackOrigins).toBe(false);
    expect(() => loadConfig({ SIGNET_ALLOW_LOOPBACK_ORIGINS: 'no' })).toThrow(/SIGNET_ALLOW_LOOPBACK_ORIGINS must be true or false/);
    expect(() => loadConfig({ SIGNET_MAX_JSON_DEPTH: '2' })).toThrow(/SIGNET_MAX_JSON_DEPTH must be between 8 and 1000/);
  });
});
