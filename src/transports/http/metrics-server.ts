// Prometheus metrics on their own port: the reference proxy only forwards /mcp and /healthz,
// so scrapes never share a door with clients. A listener others can reach needs a bearer
// token (SIGNET_METRICS_TOKEN_FILE; Prometheus: authorization.credentials_file); config.ts
// refuses a non-loopback listener without one. An address is never the credential.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface RunningMetrics {
  port: number;
  close(): void;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export async function startMetricsServer(
  m: { registry: Registry },
  host: string,
  port: number,
  token: string | null = null,
): Promise<RunningMetrics> {
  const expected = token === null ? null : digest(`Bearer ${token}`);
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at GET /metrics\n');
      return;
    }
    const presented = req.headers.authorization;
    if (expected !== null && (presented === undefined || !timingSafeEqual(expected, digest(presented)))) {
      res
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="signet-metrics"' })
        .end('a bearer token is required\n');
      return;
    }
    m.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': m.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}
