// `signet check` without the I/O: a collection (and optionally probe facts and declared facts)
// in, one evaluated deployment each and the overall verdict out. Shared by the CLI and the
// deployment_check tool, so both give the same report for the same bytes.
import type { CollectedDeployment, Collection } from '../collect/types.js';
import { evaluateFacts } from '../doctrine/evaluate.js';
import { perDoctrine } from '../doctrine/facts.js';
import type { Doctrine } from '../doctrine/types.js';
import { type ErrorDetail, SignetError } from '../errors.js';
import type { Declared } from './declared.js';
import { type MergedDeployment, mergeDeployment, type ObservedLayer, sourceLabel } from './merge.js';
import { CHECK_FORMAT, type CheckedDeployment, type CheckReport, worstVerdict } from './report.js';

export interface CheckInput {
  collection: Collection;
  declared?: Declared | null;
  /** Facts a probe observed, for the deployment it names (or the only one). */
  probe?: { deployment: string | null; layer: ObservedLayer; evidence: unknown } | null;
  /**
   * Files the caller named (the CLI's file arguments, every file given to deployment_check). One
   * that is skipped (unreadable, malformed) is bad input; a skip found by walking a directory
   * makes the review incomplete at best.
   */
  named?: readonly string[];
}

/** The name a deployment gets when only declared facts describe it. */
export const DECLARED_ONLY = 'declared';

/** The schema's leaf facts: every fact path that is no other's group. */
const leafFacts = perDoctrine((doctrine: Doctrine) =>
  doctrine.factPaths.filter((p) => !doctrine.factPaths.some((q) => q.startsWith(`${p}.`))),
);

/** Deployments to evaluate: the collected ones, or, without any, those the declared file names. */
function deploymentsOf(doctrine: Doctrine, input: CheckInput): CollectedDeployment[] {
  const collected = input.collection.deployments;
  const declared = input.declared;
  if (collected.length > 0) {
    const names = new Set(collected.map((d) => d.name));
    const unknown = declared ? [...declared.deployments.keys()].filter((n) => !names.has(n)) : [];
    if (unknown.length > 0) {
      throw new SignetError(
        'invalid_arguments',
        `${declared!.path}: declares facts for ${unknown.map((n) => `"${n}"`).join(', ')}, which the files do not describe`,
        [{ message: `deployments the files describe: ${[...names].join(', ')}` }],
      );
    }
    return collected;
  }
  // Nothing collected: every fact starts undecided, as a collection with no file deciding it would say.
  const empty = (name: string): CollectedDeployment => ({
    name,
    facts: {},
    sources: {},
    undecided: [...leafFacts(doctrine)],
    reasons: {},
    inexpressible: [],
  });
  if (declared) {
    const named = [...declared.deployments.keys()];
    return named.length > 0 ? named.map(empty) : [empty(DECLARED_ONLY)];
  }
  if (input.probe) return [empty(input.probe.deployment ?? 'probe')];
  // Files that describe no MCP server: a review of nothing, which the report says and which never passes.
  return [];
}

/** Runs the doctrine over one merged deployment; a contradiction names the facts and their sources. */
function evaluate(doctrine: Doctrine, d: MergedDeployment): CheckedDeployment {
  let evaluation: ReturnType<typeof evaluateFacts>;
  try {
    evaluation = evaluateFacts(doctrine, d.facts, { detail: 'failures' });
  } catch (err) {
    if (!(err instanceof SignetError)) throw err;
    const where = (w: string | undefined) =>
      (w ?? '')
        .split(', ')
        .map((p) => p.replace(/^facts\./, ''))
        .map((p) => `${p} (${(d.sources[p] ?? []).map(sourceLabel).join(', ') || 'no source'})`)
        .join(', ');
    throw new SignetError(
      err.code,
      `deployment "${d.name}": ${err.message}`,
      err.details.map((x) => ({ where: where(x.where), message: x.message })),
    );
  }
  return {
    name: d.name,
    verdict: evaluation.summary.verdict,
    facts: d.facts,
    sources: d.sources,
    undecided: d.undecided,
    reasons: d.reasons ?? {},
    inexpressible: d.inexpressible,
    counts: d.counts,
    findings: evaluation.findings,
    summary: evaluation.summary,
  };
}

/** A file named by the caller that could not be read: refused, never reviewed around. */
export function refuseNamedSkips(collection: Collection, namedFiles: readonly string[] = []): void {
  const named = new Set(namedFiles);
  const bad = (collection.skipped ?? []).filter((s) => named.has(s.path));
  if (bad.length === 0) return;
  const one = bad.length === 1 ? bad[0]! : null;
  throw new SignetError(
    'invalid_arguments',
    one
      ? `${one.path} cannot be read: ${one.reason}`
      : `${bad.length} of the files named cannot be read: ${bad.map((s) => s.path).join(', ')}`,
    one ? [{ message: 'fix the file, or leave it out of the paths to check' }] : bad.map((s) => ({ where: s.path, message: s.reason })),
  );
}

export function runCheck(doctrine: Doctrine, input: CheckInput): CheckReport {
  refuseNamedSkips(input.collection, input.named);
  const targets = deploymentsOf(doctrine, input);
  const probe = input.probe ?? null;
  if (probe && probe.deployment !== null && !targets.some((d) => d.name === probe.deployment)) {
    throw new SignetError('invalid_arguments', `the probe names deployment "${probe.deployment}", which the files do not describe`);
  }
  if (probe && probe.deployment === null && targets.length > 1) {
    throw new SignetError(
      'invalid_arguments',
      `the files describe ${targets.length} deployments: say which one the probed URL serves`,
      targets.map((d) => ({ message: d.name })),
    );
  }
  const contradictions: ErrorDetail[] = [];
  const merged = targets.map((d) => {
    const probed = probe && (probe.deployment === null || probe.deployment === d.name) ? probe.layer : null;
    const m = mergeDeployment(d, { probe: probed, declared: input.declared ?? null });
    contradictions.push(...m.contradictions);
    return m.deployment;
  });
  if (contradictions.length > 0) {
    throw new SignetError(
      'invalid_arguments',
      `${contradictions.length} declared or probed fact${contradictions.length === 1 ? '' : 's'} contradict${contradictions.length === 1 ? 's' : ''} what the files say`,
      contradictions,
    );
  }
  const deployments = merged.map((d) => evaluate(doctrine, d));
  const files: CheckReport['files'] = input.collection.files.filter((f) => f.path !== input.declared?.path);
  if (input.declared) files.push({ path: input.declared.path, kind: 'declared_facts', sha256: input.declared.sha256 });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const skipped = input.collection.skipped ?? [];
  // A file left unread may describe a server, or change one described: the review cannot pass.
  const verdicts = deployments.map((d) => d.verdict);
  return {
    format: CHECK_FORMAT,
    verdict: worstVerdict(skipped.length > 0 ? [...verdicts, 'incomplete'] : verdicts),
    doctrine: { name: doctrine.meta.name, version: doctrine.meta.version, hash: doctrine.hash },
    files,
    skipped,
    notes: input.collection.notes ?? [],
    probe: probe ? probe.evidence : null,
    deployments,
  };
}
