// One deployment's facts from every source: what the files decide (collect), what a running
// endpoint showed (probe), and what a person declared for the rest. Observations never give
// way to a statement: a declared fact that contradicts a collected or probed one is an error
// naming both sources, as two contradictory facts are for doctrine_evaluate.
import type { CollectedDeployment, FactSource } from '../collect/types.js';
import type { ErrorDetail } from '../errors.js';
import { type Declared, declaredFor } from './declared.js';
import { copyFacts, type Facts, leaves, sameValue, setLeaf } from './facts-tree.js';

/** Facts observed by something other than the files (a probe), each with its sources. */
export interface ObservedLayer {
  facts: Facts;
  sources: Record<string, FactSource[]>;
  /** Facts it looked at but could not decide, and why (`notes`). */
  undecided?: string[];
  notes?: Record<string, string>;
}

/** Where each fact of a merged deployment came from, counted over its leaves. */
export interface FactCounts {
  /** Decided by the files alone. */
  files: number;
  /** Decided by the profile of a server the collector recognised (Signet's own behaviour), with or without a setting in the files. */
  profile: number;
  probed: number;
  declared: number;
  /** Left undecided: neither the files, the probe nor the declared facts decide them. */
  undecided: number;
}

export interface MergedDeployment extends CollectedDeployment {
  counts: FactCounts;
}

/** Where a source is, in one phrase: `compose.yml:12`, `probe e3`, `declared.json`. */
export function sourceLabel(s: FactSource): string {
  if ('file' in s) return `${s.file}:${s.line}`;
  if ('probe' in s) return `probe ${s.probe}`;
  if ('profile' in s) return `profile ${s.profile} ${s.version}`;
  return s.declared;
}

const shown = (v: unknown) => {
  const json = JSON.stringify(v) ?? 'null';
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
};

function sortedSources(sources: Record<string, FactSource[]>): Record<string, FactSource[]> {
  return Object.fromEntries(
    Object.keys(sources)
      .sort()
      .map((k) => [k, sources[k]!]),
  );
}

/**
 * Merges the layers over the collected deployment. Contradictions are returned, not thrown, so
 * a check can name every one across every deployment at once.
 */
export function mergeDeployment(
  collected: CollectedDeployment,
  layers: { probe?: ObservedLayer | null; declared?: Declared | null },
): { deployment: MergedDeployment; contradictions: ErrorDetail[] } {
  const facts = copyFacts(collected.facts);
  const sources: Record<string, FactSource[]> = Object.fromEntries(Object.entries(collected.sources).map(([k, v]) => [k, [...v]]));
  const undecided = new Set(collected.undecided);
  const reasons = { ...(collected.reasons ?? {}) };
  const given = new Map(leaves(facts));
  const fromProfile = [...given.keys()].filter((leaf) => (collected.sources[leaf] ?? []).some((x) => 'profile' in x)).length;
  const counts: FactCounts = { files: given.size - fromProfile, profile: fromProfile, probed: 0, declared: 0, undecided: 0 };
  const contradictions: ErrorDetail[] = [];
  const origin = (leaf: string) => (sources[leaf] ?? []).map(sourceLabel).join(', ') || 'the files';

  const add = (leaf: string, value: unknown, from: FactSource[], where: string, kind: 'probed' | 'declared') => {
    if (given.has(leaf)) {
      const had = given.get(leaf);
      if (sameValue(had, value)) sources[leaf] = [...(sources[leaf] ?? []), ...from];
      else
        contradictions.push({
          where,
          message: `${collected.name}: ${leaf} is ${shown(value)} here, but ${shown(had)} in ${origin(leaf)}`,
        });
      return;
    }
    setLeaf(facts, leaf, value);
    given.set(leaf, value);
    sources[leaf] = from;
    undecided.delete(leaf);
    delete reasons[leaf];
    counts[kind]++;
  };

  if (layers.probe) {
    for (const [leaf, value] of leaves(layers.probe.facts)) {
      add(leaf, value, layers.probe.sources[leaf] ?? [], `probe: ${leaf}`, 'probed');
    }
    // What the probe looked at and could not decide stays open, with its reason, unless the files decided it.
    for (const leaf of layers.probe.undecided ?? []) {
      if (given.has(leaf)) continue;
      undecided.add(leaf);
      const why = layers.probe.notes?.[leaf];
      if (why && reasons[leaf] === undefined) reasons[leaf] = `probe: ${why}`;
    }
  }
  if (layers.declared) {
    const d = layers.declared;
    const own = declaredFor(d, collected.name);
    for (const [leaf, value] of leaves(own.facts)) {
      const line = own.line(leaf);
      add(
        leaf,
        value,
        [{ declared: d.path, why: d.why.get(leaf) ?? 'declared, no reason given' }],
        `${d.path}${line ? `:${line}` : ''}: ${leaf}`,
        'declared',
      );
    }
  }
  // A fact the person left out on purpose says why, where nothing else decided it.
  for (const [leaf, note] of layers.declared?.leftOut ?? []) {
    if (!given.has(leaf) && reasons[leaf] === undefined) reasons[leaf] = `${layers.declared!.path}: ${note}`;
  }
  counts.undecided = undecided.size;
  return {
    deployment: {
      name: collected.name,
      facts,
      sources: sortedSources(sources),
      undecided: [...undecided].sort(),
      reasons: Object.fromEntries(
        Object.keys(reasons)
          .sort()
          .map((k) => [k, reasons[k]!]),
      ),
      inexpressible: collected.inexpressible,
      counts,
    },
    contradictions,
  };
}
