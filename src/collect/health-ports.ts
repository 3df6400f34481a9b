// Ports set by a variable named for health checks or metrics (Tributary-ai-services/tas-mcp's
// napkin-mcp: `HEALTH_PORT=8087`, the only port, beside an SDK server on stdio): a listener for
// probes, not an MCP endpoint, whatever the port is called.

/** Variables that set a port for health checks, probes or metrics. */
const HEALTH_PORT_VAR = /(^|_)(HEALTH|HEALTHCHECK|METRICS|PROBES?|STATUS|MONITORING|PROMETHEUS)_?PORT$/i;

/** The variable named for health that sets this port, unless another port variable (`PORT`, `MCP_PORT`) sets it too. */
export function healthPortVariable(port: string, env: ReadonlyMap<string, string>): string | null {
  let health: string | null = null;
  for (const [k, v] of env) {
    if (v.trim() !== port) continue;
    if (HEALTH_PORT_VAR.test(k)) health ??= k;
    else if (/(^|_)PORT$/i.test(k)) return null;
  }
  return health;
}
