// Prometheus metrics (prom-client), served on their own port (SIGNET_METRICS_PORT) that
// the reference proxy never exposes. Labels are bounded: tool names, outcomes, policies.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly toolCalls = new Counter({
    name: 'signet_tool_calls_total',
    help: 'Signed tools/call results, by tool and outcome (ok, error) and whether they came from the cache',
    labelNames: ['tool', 'outcome', 'cached'] as const,
    registers: [this.registry],
  });
  readonly signatures = new Counter({
    name: 'signet_signatures_total',
    help: 'Ed25519 signatures made (outputs, resources and the doctrine hash)',
    registers: [this.registry],
  });
  readonly httpRequests = new Counter({
    name: 'signet_http_requests_total',
    help: 'POST /mcp requests by outcome (ok, rate_limited, limiter_error, rejected, error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'signet_http_request_duration_seconds',
    help: 'POST /mcp handling time by JSON-RPC method',
    labelNames: ['method'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly toolDuration = new Histogram({
    name: 'signet_tool_call_duration_seconds',
    help: 'Time to validate, run and sign one tools/call, by tool (cache hits excluded)',
    labelNames: ['tool'] as const,
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'signet_rate_limited_total',
    help: 'Requests refused with 429, by policy (calls, requests, key-calls)',
    labelNames: ['policy'] as const,
    registers: [this.registry],
  });
  readonly limiterStoreErrors = new Counter({
    name: 'signet_rate_limiter_store_errors_total',
    help: 'Rate limiter store failures: answered by the insurance limiter, or refused with 503 when there is none',
    labelNames: ['handled_by'] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics: boolean } = { processMetrics: true }) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'signet_' });
  }
}
