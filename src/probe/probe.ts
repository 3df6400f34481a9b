// `probe(url, options)`: the facts a running MCP endpoint shows, each with the exchanges that
// decided it (docs/checking.md, "What the probe sends"). The checks run one after another in a
// fixed order, on the target's origin only, within a request budget, a timeout each and a total
// deadline; a fact no answer decides stays undecided, with the reason.
import { type Check, type CheckContext, createContext } from './check.js';
import { address } from './checks/address.js';
import { authentication } from './checks/authentication.js';
import { authorizationServer } from './checks/authorization-server.js';
import { bodyLimit } from './checks/body-limit.js';
import { cors } from './checks/cors.js';
import { discovery } from './checks/discovery.js';
import { errorDetails } from './checks/error-details.js';
import { headerMismatch } from './checks/header-mismatch.js';
import { host } from './checks/host.js';
import { hsts } from './checks/hsts.js';
import { legacySse } from './checks/legacy-sse.js';
import { origin } from './checks/origin.js';
import { queryCredential } from './checks/query-credential.js';
import { rateLimit } from './checks/rate-limit.js';
import { revisions } from './checks/revisions.js';
import { sessions } from './checks/sessions.js';
import { tls } from './checks/tls.js';
import { tools } from './checks/tools.js';
import { Prober, ProbeStop } from './exchange.js';
import { Findings } from './findings.js';
import { legacyHeaders } from './mcp.js';
import { parseTarget } from './target.js';
import type { ProbeOptions, ProbeResult } from './types.js';

export const DEFAULTS = { timeoutMs: 10_000, deadlineMs: 90_000, maxRequests: 60 } as const;
/** Connections the rate-limit run may add to the budget. */
const FLOOD_ALLOWANCE = 100;

/** In run order. Those after `revisions` marked `served` need a request the server serves. */
const CHECKS: { check: Check; served?: true }[] = [
  { check: authentication },
  { check: tls },
  { check: discovery },
  { check: authorizationServer },
  { check: revisions },
  { check: origin },
  { check: cors },
  { check: host },
  { check: sessions },
  { check: tools, served: true },
  { check: headerMismatch, served: true },
  { check: errorDetails, served: true },
  { check: queryCredential, served: true },
  { check: bodyLimit, served: true },
  { check: legacySse },
  { check: rateLimit },
  { check: hsts },
  { check: address },
];

function unservedReason(ctx: CheckContext): string {
  if (ctx.state.credentialWithheld) return ctx.state.credentialWithheld;
  return ctx.prober.hasCredential
    ? 'no request was served with the credential given'
    : 'no request was served without a credential: give one (--key or --token)';
}

/** Closes the sessions the probe opened (DELETE with the session id), within what is left of the budget. */
async function closeSessions(ctx: CheckContext): Promise<void> {
  for (const [i, sessionId] of ctx.state.openSessions.entries()) {
    await ctx.send({
      id: `cleanup.session-${i + 1}`,
      purpose: 'DELETE of a session the probe opened',
      method: 'DELETE',
      path: ctx.target.path,
      headers: legacyHeaders({ revision: '2025-03-26', sessionId }),
      withCredential: ctx.state.sendCredential,
    });
  }
}

export async function probe(url: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const target = parseTarget(url);
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const deadline = AbortSignal.timeout(options.deadlineMs ?? DEFAULTS.deadlineMs);
  const maxRequests = (options.maxRequests ?? DEFAULTS.maxRequests) + (options.exerciseRateLimit ? FLOOD_ALLOWANCE : 0);
  const prober = new Prober(target, { credential: options.credential, ca: options.ca, timeoutMs, maxRequests }, deadline);
  const findings = new Findings();
  const ctx = createContext(target, prober, findings, options.exerciseRateLimit === true);

  let stopped: ProbeStop | undefined;
  for (const { check, served } of CHECKS) {
    if (stopped) {
      for (const f of check.facts) findings.leave(f, `not probed: ${stopped.message}`);
      continue;
    }
    if (served && !ctx.state.session) {
      for (const f of check.facts) findings.leave(f, unservedReason(ctx));
      continue;
    }
    try {
      await check.run(ctx);
    } catch (err) {
      if (!(err instanceof ProbeStop)) throw err;
      stopped = err;
      for (const f of check.facts) findings.leave(f, `not probed: ${err.message}`);
    }
  }
  if (!stopped) {
    try {
      await closeSessions(ctx);
    } catch (err) {
      if (!(err instanceof ProbeStop)) throw err;
    }
  }

  const built = findings.build();
  return {
    format: 'signet-probe/1',
    target: target.url.href,
    credential: options.credential?.kind ?? 'none',
    facts: built.facts,
    sources: built.sources,
    undecided: built.undecided,
    notes: built.notes,
    inexpressible: ctx.state.inexpressible,
    evidence: prober.evidence,
  };
}
