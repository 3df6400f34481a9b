import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { AppContext } from '../../context.js';
import { flushLogs } from '../../log.js';
import { createHttpApp, type RequestEvent } from './app.js';
import { parseTrustedProxies } from './client-ip.js';
import { originPolicy, type OriginPolicy } from './origin.js';
import { createServer as createPlainServer } from 'node:http';
import { memoryStore, redisStore } from './limiter-store.js';

export interface RunningHttp {
  server: Server;
  port: number;
  /** Stop accepting, let in-flight requests finish (bounded), close. */
  shutdown(reason: string): Promise<void>;
}

export async function startHttp(ctx: AppContext): Promise<RunningHttp> {
  const cfg = ctx.config.http;
  const trusted = parseTrustedProxies(cfg.trustedProxies);
  let ready = false;
  let draining = false;
  let policy: OriginPolicy | null = null;
  const m = ctx.metrics;
  const store = cfg.redisUrl ? redisStore(cfg.redisUrl, ctx.log) : memoryStore();
  const logRequest = (e: RequestEvent) => {
    if (m) {
      m.httpRequests.inc({ outcome: e.outcome });
      m.httpDuration.observe({ method: e.rpcMethod ?? 'unparsed' }, e.durationMs / 1000);
      if (e.limitedBy) m.rateLimited.inc({ policy: e.limitedBy });
      if (e.outcome === 'limiter_error') m.limiterStoreErrors.inc({ handled_by: 'refused' });
    }
    ctx.log.info(
      {
        req_id: e.requestId,
        client_ip: e.clientIp,
        key_id: e.keyId ?? undefined,
        rpc_method: e.rpcMethod ?? undefined,
        tool: e.tool ?? undefined,
        status: e.status,
        outcome: e.outcome,
        cached: e.cached || undefined,
        duration_ms: Math.round(e.durationMs * 1000) / 1000,
      },
      'mcp request',
    );
  };
  const app = createHttpApp(ctx, {
    originPolicy: () => policy!,
    trustedProxies: trusted,
    anyTrustedProxy: cfg.trustedProxies.length > 0,
    calls: store.policy('calls', cfg.rateLimitPerMinute),
    requests: store.policy('requests', cfg.otherRequestsPerMinute),
    keyCalls: store.policy('key-calls', cfg.rateLimitPerKeyPerMinute),
    maxBodyBytes: cfg.maxBodyBytes,
    isReady: () => ready,
    isDraining: () => draining,
    onRequest: logRequest,
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: cfg.host,
        port: cfg.port,
        serverOptions: {
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
  const port = (server.address() as AddressInfo).port;

  // Prometheus metrics on their own port: the reference proxy only forwards /mcp and /healthz.
  let metricsServer: Server | null = null;
  let metricsPort: number | null = null;
  if (m && cfg.metricsPort !== null) {
    metricsServer = createPlainServer((req, res) => {
      if (req.method === 'GET' && req.url === '/metrics') {
        m.registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': m.registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at GET /metrics\n');
    });
    await new Promise<void>((resolve, reject) => {
      metricsServer!.once('error', reject);
      metricsServer!.listen(cfg.metricsPort!, cfg.metricsHost, () => resolve());
    });
    metricsPort = (metricsServer.address() as AddressInfo).port;
  }
  policy = originPolicy(cfg.host, port, cfg.allowedOrigins, cfg.allowedHosts);
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
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          ctx.log.warn('shutdown timeout reached: closing remaining connections');
          server.closeAllConnections();
        }, cfg.shutdownTimeoutMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      metricsServer?.close();
      await store.close();
    })());

  ctx.log.info(
    { transport: 'http', host: cfg.host, port, metrics_port: metricsPort ?? undefined, limiter_store: cfg.redisUrl ? 'redis' : 'memory', doctrine: ctx.doctrine.meta.name, version: ctx.doctrine.meta.version, doctrine_hash: ctx.footer.doctrine_hash, public_key: ctx.signer.publicKeySpki, key_origin: ctx.keyOrigin, rate_limit_per_minute: cfg.rateLimitPerMinute },
    'signet ready',
  );
  return { server, port, shutdown };
}

/** `signet serve --http`: serve until SIGTERM/SIGINT, drain, exit 0. */
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
