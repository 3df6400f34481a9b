// `signet auth-check`: the reference proxy's authenticator for API keys and OAuth tokens
// (docs/proxy.md, docs/oauth.md). Runs until SIGTERM or SIGINT.
import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { createLogger } from '../log.js';
import { readSecretFile } from '../shared/secret-file.js';

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

export async function authCheck(): Promise<void> {
  const config = loadConfig(process.env);
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
  const log = createLogger(config.logLevel);
  const { runAuthCheck } = await import('../transports/auth-check/server.js');
  const running = await runAuthCheck(
    {
      check: config.authCheck,
      oauth: config.oauth,
      keyStore: config.keyStore,
      proxySecret: secretFile === null ? null : readSecretFile(secretFile, 'SIGNET_PROXY_SECRET_FILE'),
      ipv6Prefix: config.http.rateLimitIpv6Prefix,
      tls: config.http.tls,
    },
    log,
  );
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
