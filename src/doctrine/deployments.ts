// A review of several deployments, one per MCP server (doctrine.json's `deployments`): each is
// evaluated on its own, and the review's verdict is the worst of theirs. Client facts describe
// the clients that reach a server; some of them describe the client configuration's entry for
// that one server. `signet check` and the golden deployments read this.
import type { Verdict } from './evaluate.js';
import type { Doctrine } from './types.js';

/** Worst first: the order doctrine.json's deployments.verdict_order declares. */
export const VERDICT_ORDER: readonly Verdict[] = ['fail', 'incomplete', 'limited_scope', 'pass'];

/** The worst of the deployments' verdicts; a review with no deployment is incomplete. */
export function worstVerdict(verdicts: Iterable<Verdict>): Verdict {
  let worst: number | null = null;
  for (const v of verdicts) {
    const rank = VERDICT_ORDER.indexOf(v);
    if (rank < 0) throw new Error(`unknown verdict "${v}"`);
    worst = worst === null ? rank : Math.min(worst, rank);
  }
  return worst === null ? 'incomplete' : VERDICT_ORDER[worst]!;
}

export type FactSide = 'server' | 'client' | 'client_entry';

/**
 * Which side a fact path describes: the server, the client application (the same in every
 * deployment that shares it), or the client configuration's entry for this one server.
 */
export function factSide(doctrine: Doctrine, path: string): FactSide {
  const d = doctrine.meta.deployments;
  if (!d) return 'server';
  const under = (p: string) => path === p || path.startsWith(`${p}.`);
  if (d.per_server_client_facts.some(under)) return 'client_entry';
  return d.client_facts.some(under) ? 'client' : 'server';
}
