// Which scopes an MCP message needs when an OAuth principal calls (SIGNET_OAUTH_SCOPE_MAP and
// SIGNET_OAUTH_SCOPE_IMPLIES). Decided from the parsed body, message by message, for both
// protocol eras: the proxy's token check cannot see the body, so this server, which parses
// it anyway, is where a tool's scope is enforced. API keys and requests without a principal
// are not scoped.

/** Methods every holder of a valid token may send: the protocol's lifecycle, not its data. */
const LIFECYCLE = new Set(['initialize', 'ping', 'server/discover']);

export interface ScopePolicy {
  /** Tool name → scopes it needs (all of them); "*" for every other tool and data method. */
  map: ReadonlyMap<string, readonly string[]>;
  /** A scope → the scopes it also grants (a hierarchy: signet:evaluate grants signet:read by default). */
  implies: ReadonlyMap<string, readonly string[]>;
}

/** The scopes a token holds once the hierarchy is applied (transitively). */
export function effectiveScopes(granted: ReadonlySet<string>, implies: ScopePolicy['implies']): Set<string> {
  const out = new Set(granted);
  const todo = [...granted];
  for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
    for (const t of implies.get(s) ?? []) {
      if (!out.has(t)) {
        out.add(t);
        todo.push(t);
      }
    }
  }
  return out;
}

function needed(policy: ScopePolicy, message: unknown): readonly string[] {
  if (message === null || typeof message !== 'object') return [];
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (typeof method !== 'string' || LIFECYCLE.has(method) || method.startsWith('notifications/')) return [];
  if (method === 'tools/call' && params !== null && typeof params === 'object') {
    const name = (params as { name?: unknown }).name;
    if (typeof name === 'string') return policy.map.get(name) ?? policy.map.get('*') ?? [];
  }
  return policy.map.get('*') ?? [];
}

/**
 * The scopes the body needs that the token does not hold (after the hierarchy), in the
 * order the map names them: every one, so one challenge asks for all of them (a batch
 * included). Empty: allowed.
 */
export function missingScopes(policy: ScopePolicy, payload: unknown, granted: ReadonlySet<string>): string[] {
  const have = effectiveScopes(granted, policy.implies);
  const missing: string[] = [];
  for (const m of Array.isArray(payload) ? payload : [payload]) {
    for (const s of needed(policy, m)) if (!have.has(s) && !missing.includes(s)) missing.push(s);
  }
  return missing;
}

/** Every scope the policy names: what a token needs for every operation. */
export function policyScopes(policy: ScopePolicy): string[] {
  const all = new Set<string>();
  for (const scopes of policy.map.values()) for (const s of scopes) all.add(s);
  return [...all];
}
