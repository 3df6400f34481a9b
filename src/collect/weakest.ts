// Several ways in to one server (nginx locations, Caddy sites) read as one deployment: where
// their facts differ, the weakest stands, so a protected route never hides an open one.
import type { FactSheet } from './sheet.js';

/** How the weaker of two values of a fact is told: `worse(a, b)` when a is; `worst`, the weakest there is. */
interface Weaker {
  worse(a: unknown, b: unknown): boolean;
  worst?: unknown;
}
const falseIsWeak: Weaker = { worse: (a, b) => a === false && b !== false, worst: false };
const trueIsWeak: Weaker = { worse: (a, b) => a === true && b !== true, worst: true };
const longer = (v: unknown) => (v === 0 ? Number.POSITIVE_INFINITY : Number(v));
const WEAKER: Record<string, Weaker> = {
  'tls.enabled': falseIsWeak,
  'tls.hsts': falseIsWeak,
  'tls.min_version': { worse: (a, b) => String(a) < String(b), worst: '1.0' },
  'rate_limit.enabled': falseIsWeak,
  'rate_limit.per_minute': { worse: (a, b) => Number(a) > Number(b) },
  'rate_limit.keys_on_real_client_ip': falseIsWeak,
  'rate_limit.retry_after_header': falseIsWeak,
  'rate_limit.trusts_client_forwarded_headers': trueIsWeak,
  'http.connections_per_client_limited': falseIsWeak,
  // 0 is no deadline at all: the longest wait there is.
  'http.execution_deadline_seconds': { worse: (a, b) => longer(a) > longer(b), worst: 0 },
  'http.request_read_deadline_seconds': { worse: (a, b) => longer(a) > longer(b), worst: 0 },
  // 0 is no limit: the largest body there is.
  'http.max_body_bytes': { worse: (a, b) => longer(a) > longer(b), worst: 0 },
  'http.cors_allow_any_origin': trueIsWeak,
  'logging.logs_authorization_header': trueIsWeak,
  'logging.edge_logs_rejected_header_values': trueIsWeak,
  'authentication.required': falseIsWeak,
  'authentication.keys_in_query_string': trueIsWeak,
};

/**
 * The facts of several routes as one: a value every route shares stands (cited at the first);
 * where they differ the weakest stands, cited at its route. A route that leaves a fact open
 * leaves it open, unless another route already shows the weakest value there is; a difference
 * with no order (two authentication methods) is left open, naming both.
 */
export function weakestOf(sheet: FactSheet, routes: { where: string; own: FactSheet }[]): void {
  // Each route's decisions read once, by fact, in the order the routes come.
  const byPath = new Map<string, (ReturnType<FactSheet['decisions']>[number] & { where: string })[]>();
  for (const r of routes) for (const d of r.own.decisions()) byPath.set(d.path, [...(byPath.get(d.path) ?? []), { ...d, where: r.where }]);
  const paths = [...byPath.keys()];
  for (const [path, found] of byPath) {
    const first = found[0]!;
    const order = WEAKER[path];
    const same = found.every((f) => JSON.stringify(f.value) === JSON.stringify(first.value));
    if (found.length === routes.length && same) {
      sheet.adopt(path, first.value, first.sources);
      continue;
    }
    const weakest = order ? found.reduce((w, f) => (order.worse(f.value, w.value) ? f : w)) : null;
    const open = routes.find((r) => !r.own.has(path));
    if (weakest && (!open || (order!.worst !== undefined && weakest.value === order!.worst))) {
      sheet.adopt(path, weakest.value, weakest.sources);
      continue;
    }
    sheet.undecided(
      path,
      open
        ? `the MCP routes differ: ${first.where} shows ${JSON.stringify(first.value)}, ${open.where} does not say (${open.own.openFacts().get(path) ?? 'not set there'})`
        : `the MCP routes differ: ${found.map((f) => `${f.where} shows ${JSON.stringify(f.value)}`).join(', ')}`,
    );
  }
  for (const r of routes) for (const [path, why] of r.own.openFacts()) if (!paths.includes(path)) sheet.undecided(path, why);
}
