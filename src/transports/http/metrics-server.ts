// Prometheus metrics on their own port: the reference proxy only forwards /mcp and /healthz,
// so scrapes never share a door with clients.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../../metrics.js';

export interface RunningMetrics {
  port: number;
  close(): void;
}

export async function startMetricsServer(m: Metrics, host: string, port: number): Promise<RunningMetrics> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      m.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': m.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at GET /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}
