// `signet serve --http`: listen, serve until SIGTERM/SIGINT, then drain and exit 0.
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { redisUrlHasPassword } from '../../config.js';
import type { AppContext } from '../../context.js';
import { flushLogs } from '../../log.js';
import { Router } from '../../protocol/router.js';
import { readSecretFile } from '../../shared/secret-file.js';
import { keepTlsCurrent, readTlsPair, TLS_SERVER_OPTIONS, type TlsPair } from '../tls.js';
import { createHttpApp } from './app.js';
import { closeServer } from './close-server.js';
import { type RunningMetrics, startMetricsServer } from './metrics-server.js';
import { memoryStore, redisStore } from './rate-limit/store.js';
import { requestReporter } from './request-log.js';

export interface RunningHttp {
  server: Server;
  port: number;
  /** Stop accepting, let in-flight requests finish (bounded), close. */
  shutdown(reason: string): Promise<void>;
}

function listen(app: ReturnType<typeof createHttpApp>, cfg: AppContext['config']['http'], tls: TlsPair | null): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: cfg.host,
        port: cfg.port,
        // HTTPS (node:https takes node:http's options too) when SIGNET_TLS_CERT_FILE is set.
        ...(tls === null ? {} : { createServer: createHttpsServer }),
        serverOptions: {
          ...(tls === null ? {} : { ...TLS_SERVER_OPTIONS, cert: tls.cert, key: tls.key }),
          // A slow or stalled client cannot hold a connection: whole request, headers, idle keep-alive.
          requestTimeout: cfg.requestTimeoutMs,
          headersTimeout: cfg.headersTimeoutMs,
          keepAliveTimeout: cfg.keepAliveTimeoutMs,
          // How often Node enforces the two timeouts above (default 30 s).
          connectionsCheckingInterval: 1000,
        },
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
}

export async function startHttp(ctx: AppContext): Promise<RunningHttp> {
  const cfg = ctx.config.http;
  let ready = false;
  let draining = false;
  // Read once, never logged: Redis's password, the proxy's credential and the scraper's.
  const redisPassword = cfg.redisPasswordFile === null ? undefined : readSecretFile(cfg.redisPasswordFile, 'SIGNET_REDIS_PASSWORD_FILE');
  if (cfg.redisUrl && redisUrlHasPassword(cfg.redisUrl)) {
    ctx.log.warn("SIGNET_REDIS_URL carries a password: whoever reads this process's environment reads it; use SIGNET_REDIS_PASSWORD_FILE");
  }
  const store = cfg.redisUrl
    ? redisStore(cfg.redisUrl, ctx.log, ctx.metrics, { password: redisPassword, timeoutMs: cfg.redisTimeoutMs })
    : memoryStore();
  const proxySecret = cfg.proxySecretFile === null ? null : readSecretFile(cfg.proxySecretFile, 'SIGNET_PROXY_SECRET_FILE');
  const metricsToken = cfg.metricsTokenFile === null ? null : readSecretFile(cfg.metricsTokenFile, 'SIGNET_METRICS_TOKEN_FILE');
  const app = createHttpApp(ctx, {
    router: new Router(ctx),
    allowedHostnames: cfg.allowedHostnames,
    allowedOrigins: cfg.allowedOrigins,
    allowLoopbackOrigins: cfg.allowLoopbackOrigins,
    proxySecret,
    trustedProxies: cfg.trustedProxies,
    calls: store.policy('calls', cfg.rateLimitPerMinute),
    requests: store.policy('requests', cfg.otherRequestsPerMinute),
    keyCalls: store.policy('key-calls', cfg.rateLimitPerKeyPerMinute),
    keyRequests: store.policy('key-requests', cfg.otherRequestsPerMinute),
    ipGuard: store.policy('ip-guard', cfg.rateLimitIpGuardPerMinute),
    ipv6Prefix: cfg.rateLimitIpv6Prefix,
    scopePolicy: cfg.oauthScopes,
    maxBodyBytes: cfg.maxBodyBytes,
    jsonShape: { maxDepth: cfg.maxJsonDepth, maxNodes: cfg.maxJsonNodes },
    concurrentBodies: { total: cfg.maxConcurrentBodies, perPrincipal: cfg.maxConcurrentBodiesPerPrincipal },
    isReady: () => ready,
    limiterState: () => store.state(),
    isDraining: () => draining,
    onRequest: requestReporter(ctx),
  });
  const tlsPair = cfg.tls === null ? null : readTlsPair(cfg.tls);
  const server = await listen(app, cfg, tlsPair);
  // node:https's server, when tlsPair is set (listen chose it).
  const stopTls = cfg.tls && tlsPair ? keepTlsCurrent(server as unknown as HttpsServer, cfg.tls, tlsPair, ctx.log) : null;
  const port = (server.address() as AddressInfo).port;
  const metrics: RunningMetrics | null =
    ctx.metrics && cfg.metricsPort !== null ? await startMetricsServer(ctx.metrics, cfg.metricsHost, cfg.metricsPort, metricsToken) : null;
  ready = true;
  if (cfg.rateLimitPerMinute === 0) ctx.log.warn('SIGNET_RATE_LIMIT_PER_MINUTE=0: tools/call is not rate limited (unsafe)');

  let stopping: Promise<void> | null = null;
  const shutdown = (reason: string): Promise<void> =>
    (stopping ??= (async () => {
      // 1. Say "not ready" and keep accepting for a moment: connections already queued in
      //    the kernel (and a load balancer still routing here) are served, with
      //    Connection: close, instead of being reset when the listener closes.
      ready = false;
      draining = true;
      ctx.log.info({ reason, delay_ms: cfg.shutdownDelayMs, timeout_ms: cfg.shutdownTimeoutMs }, 'http server draining');
      await new Promise((r) => setTimeout(r, cfg.shutdownDelayMs));
      // 2. Stop accepting; idle keep-alive connections end now, busy ones after their response.
      await closeServer(server, cfg.shutdownTimeoutMs, ctx.log);
      stopTls?.();
      metrics?.close();
      await store.close();
    })());

  ctx.log.info(
    {
      transport: 'http',
      host: cfg.host,
      port,
      metrics_port: metrics?.port,
      limiter_store: cfg.redisUrl ? 'redis' : 'memory',
      doctrine: ctx.doctrine.meta.name,
      version: ctx.doctrine.meta.version,
      doctrine_hash: ctx.footer.doctrine_hash,
      public_key: ctx.signer.publicKeySpki,
      key_origin: ctx.keyOrigin,
      rate_limit_per_minute: cfg.rateLimitPerMinute,
      rate_limit_per_key_per_minute: cfg.rateLimitPerKeyPerMinute,
      tls: cfg.tls !== null,
      proxy_authenticated: proxySecret !== null,
      metrics_token: metricsToken !== null,
      host_check: [...cfg.allowedHostnames],
    },
    'signet ready',
  );
  return { server, port, shutdown };
}

export async function runHttp(ctx: AppContext): Promise<void> {
  const running = await startHttp(ctx);
  const stop = (signal: string) => {
    running.shutdown(signal).then(() => {
      ctx.log.info('http server stopped');
      flushLogs(ctx.log);
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
