// `signet auth-check`: the reference proxy's authenticator for API keys and OAuth tokens
// (docs/proxy.md, docs/oauth.md). Runs until SIGTERM or SIGINT. With --check-config it checks
// its settings and exits (0, or 1 with the refusal), as `nginx -t` does: compose runs that as a
// one-shot first, so a refused setting fails `docker compose up` instead of a restart loop.

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Config, loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { createLogger } from '../log.js';
import { readSecretFile } from '../shared/secret-file.js';
import type { AuthCheckSettings } from '../transports/auth-check/server.js';
import { readTlsPair } from '../transports/tls.js';

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Everything the auth check refuses at start, checked before anything listens; throws SignetError. */
function settingsFrom(env: NodeJS.ProcessEnv): { config: Config; settings: AuthCheckSettings } {
  const config = loadConfig(env);
  const { host } = config.authCheck;
  const secretFile = config.http.proxySecretFile;
  // Pen test L1: whatever can reach its port could ask about any credential. Only the proxy may.
  if (secretFile === null && !isLoopback(host)) {
    throw new SignetError(
      'config_invalid',
      `SIGNET_AUTH_CHECK_HOST is ${JSON.stringify(host)}, not loopback: the auth check then needs SIGNET_PROXY_SECRET_FILE (the proxy presents it)`,
      [{ where: 'SIGNET_PROXY_SECRET_FILE', message: 'required when the auth check listens beyond loopback' }],
    );
  }
  const caFile = config.oauth?.caFile ?? null;
  if (caFile !== null) readCa(caFile);
  if (config.http.tls) readTlsPair(config.http.tls);
  if (config.http.metricsTokenFile !== null) readSecretFile(config.http.metricsTokenFile, 'SIGNET_METRICS_TOKEN_FILE');
  return {
    config,
    settings: {
      check: config.authCheck,
      oauth: config.oauth,
      keyStore: config.keyStore,
      proxySecret: secretFile === null ? null : readSecretFile(secretFile, 'SIGNET_PROXY_SECRET_FILE'),
      ipv6Prefix: config.http.rateLimitIpv6Prefix,
      tls: config.http.tls,
    },
  };
}

/** SIGNET_OAUTH_CA_FILE: readable, and at least one certificate in PEM. */
function readCa(path: string): void {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
    new X509Certificate(pem);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SignetError(
      'config_invalid',
      `SIGNET_OAUTH_CA_FILE: ${code === 'ENOENT' || code === 'EACCES' ? `cannot read ${path}: ${code}` : `${path} holds no PEM certificate`}`,
    );
  }
}

export async function authCheck(opts: { checkConfig?: boolean } = {}): Promise<void> {
  const { config, settings } = settingsFrom(process.env);
  if (opts.checkConfig) {
    process.stdout.write(`auth check settings accepted (${config.authCheck.mode})\n`);
    return;
  }
  const log = createLogger(config.logLevel);
  const { runAuthCheck } = await import('../transports/auth-check/server.js');
  const running = await runAuthCheck(settings, log);
  const { http } = config;
  const metrics =
    http.metricsPort === null
      ? null
      : await (await import('../transports/http/metrics-server.js')).startMetricsServer(
          running.metrics,
          http.metricsHost,
          http.metricsPort,
          http.metricsTokenFile === null ? null : readSecretFile(http.metricsTokenFile, 'SIGNET_METRICS_TOKEN_FILE'),
        );
  if (metrics) log.info({ metrics_port: metrics.port }, 'auth check metrics listening');
  const stop = () =>
    void running.close().then(() => {
      metrics?.close();
      process.exit(0);
    });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
