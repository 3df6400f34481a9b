// The result of `signet check` (and of the deployment_check tool): `signet-check/1`, one
// verdict per deployment and the worst of them overall. Plain JSON in a fixed shape, written
// as canonical JSON (RFC 8785), so the CLI and the MCP tool give the same bytes.
import type { CollectedFile, CollectionNote, FactSource, Inexpressible, SkippedFile } from '../collect/types.js';
import type { Finding, Summary, Verdict } from '../doctrine/evaluate.js';
import type { FactCounts } from './merge.js';

export const CHECK_FORMAT = 'signet-check/1';

/**
 * The review's verdict is the doctrine's rule (doctrine.json `deployments`, src/doctrine/deployments.ts):
 * the worst of the deployments', fail > incomplete > limited_scope > pass, and incomplete for none,
 * so one unsafe server never hides behind four safe ones and a review of nothing never passes.
 */
export { VERDICT_ORDER, worstVerdict } from '../doctrine/deployments.js';

/** `signet check`'s exit code for a verdict: 0 pass, 1 fail, 3 incomplete or limited scope (2 is bad input). */
export function exitCodeOf(verdict: Verdict): 0 | 1 | 3 {
  return verdict === 'pass' ? 0 : verdict === 'fail' ? 1 : 3;
}

export interface CheckedDeployment {
  name: string;
  verdict: Verdict;
  /** The facts evaluated: collected, probed and declared, merged. */
  facts: Record<string, unknown>;
  /** Dotted leaf path → where its value comes from. */
  sources: Record<string, FactSource[]>;
  /** Facts nothing decided. */
  undecided: string[];
  /** For undecided facts a collector looked at: why the files cannot decide them. */
  reasons: Record<string, string>;
  inexpressible: Inexpressible[];
  counts: FactCounts;
  /** doctrine_evaluate's findings (detail "failures") and summary for these facts. */
  findings: readonly Finding[];
  summary: Summary;
}

export interface CheckReport {
  format: typeof CHECK_FORMAT;
  /** The worst verdict of the deployments. */
  verdict: Verdict;
  doctrine: { name: string; version: string; hash: string };
  /** Every file the check read, with its digest: the collection's files and the declared-facts file. */
  files: (CollectedFile | { path: string; kind: 'declared_facts'; sha256: string })[];
  /** Files read but not used for facts, and why (binary, too large, malformed, not a kind collected). */
  skipped: SkippedFile[];
  /** How the files were read where it matters (a kustomization rendered or read as listed, a service left out). */
  notes: CollectionNote[];
  /** The probe's evidence, when one ran. */
  probe: unknown;
  deployments: CheckedDeployment[];
}
