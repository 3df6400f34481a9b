// How the services of a Compose project name one another: depends_on, a host name in a command,
// environment value or label, a URL of another's endpoint.
import { literal } from '../../shared/regexp.js';
import { Unresolved } from './interpolate.js';
import { isObj } from './load.js';
import type { Svc } from './service.js';

/** Whether a service's depends_on names another (list or map form). */
export function dependsOn(svc: Svc, target: string): boolean {
  const deps = svc.s.spec['depends_on'];
  return Array.isArray(deps) ? deps.includes(target) : isObj(deps) && target in deps;
}

/** Text of a service's command line, environment values and labels: where a proxy names its upstream. */
export function mentions(svc: Svc, target: string): boolean {
  const spec = svc.s.spec;
  // Variables that name an authentication sidecar, a datastore or telemetry are not the route clients take.
  const env = Object.entries(isObj(spec['environment']) ? spec['environment'] : {}).filter(
    ([k]) => !/AUTH|VERIF|OAUTH|TOKEN|REDIS|DATABASE|_DB|CACHE|METRIC|LOG|OTEL/i.test(k),
  );
  const words = [spec['command'], spec['entrypoint'], env.map(([, v]) => v), Object.values(isObj(spec['labels']) ? spec['labels'] : {})]
    .flat(2)
    .map((v) => (v instanceof Unresolved ? v.asEmpty : String(v ?? '')));
  const re = new RegExp(`(^|[/@\\s=,"'])${literal(target)}(:\\d+|/|$|[\\s,"'])`);
  return words.some((w) => re.test(w));
}

/**
 * A service whose command or environment names the server in a URL: its MCP endpoint
 * (`http://server:8001/mcp`) where `endpoint`, else any URL of it (`http://server:8000`).
 */
export function callsByUrl(svc: Svc, server: string, endpoint = false): boolean {
  const re = new RegExp(`://${literal(server)}(:\\d+)?${endpoint ? '/(mcp|sse)\\b' : '(/|$|[\\s"\'])'}`);
  return callTexts(svc).some((w) => re.test(w));
}

/** A service's command, entrypoint and environment values, as text: where it is given another's URL. */
function callTexts(svc: Svc): string[] {
  const spec = svc.s.spec;
  const env = Object.values(isObj(spec['environment']) ? spec['environment'] : {});
  return [spec['command'], spec['entrypoint'], env].flat(2).map((v) => (v instanceof Unresolved ? v.asEmpty : String(v ?? '')));
}

/**
 * The plain-HTTP URL of another's MCP endpoint a service is given (whales-workshops/mcp-gateway-experiments'
 * client: `MCP_HOST=http://mcp-gateway:9011/mcp`), or null.
 */
export function plainMcpUrl(svc: Svc, server: string): string | null {
  const re = new RegExp(`\\bhttp://${literal(server)}(:\\d+)?/(mcp|sse)\\b[^\\s"',]*`);
  for (const w of callTexts(svc)) {
    const m = re.exec(w);
    if (m) return m[0];
  }
  return null;
}

/**
 * A service that calls another's MCP endpoint: a URL of it with an MCP path, or in a variable
 * named for MCP (`MCP_GATEWAY_URL=http://mcp-gateway:8811`).
 */
export function callsMcpOf(svc: Svc, server: string): boolean {
  if (callsByUrl(svc, server, true)) return true;
  const env = Object.entries(isObj(svc.s.spec['environment']) ? svc.s.spec['environment'] : {});
  const re = new RegExp(`://${literal(server)}(:\\d+)?(/|$)`);
  // MCP as a word of the name (`MCP_GATEWAY_URL`, `GITHUB_MCP_URL`), not inside a project's prefix
  // (homeassistant-ai/ha-mcp's `HAMCP_DASHBOARD_SCREENSHOT_ENGINE_URL` names a screenshot engine).
  return env.some(([k, v]) => /(^|_)MCP(_|$)/i.test(k) && re.test(v instanceof Unresolved ? v.asEmpty : String(v ?? '')));
}
