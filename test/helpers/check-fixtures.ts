// Collections built by hand for the check tests: a deployment whose every fact comes from a
// named file and line, so merging, locating and formatting can be checked against known places.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { leaves } from '../../src/check/facts-tree.js';
import type { CollectedDeployment, Collection, FactSource } from '../../src/collect/types.js';
import { FACTS } from './paths.js';
import { signetDeployment } from './signet-deployments.js';

/** Signet's own compose deployment (collected from its files, plus deploy/facts/compose.json): complete, and its verdict is known. */
export function composeFacts(): Record<string, unknown> {
  return structuredClone(signetDeployment('compose').facts);
}

/** A fact set of test/fixtures/facts (hardened passes, exposed fails, stdio-dev has limited scope). */
export function fixtureFacts(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(FACTS(name), 'utf8')) as Record<string, unknown>;
}

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A deployment whose leaves come from `file`, one line each in leaf order, minus the facts in `undecided`. */
export function deploymentFrom(name: string, file: string, facts: Record<string, unknown>, undecided: string[] = []): CollectedDeployment {
  const kept: Record<string, unknown> = structuredClone(facts);
  for (const path of undecided) {
    const parts = path.split('.');
    const group = parts.slice(0, -1).reduce<Record<string, unknown>>((n, p) => n[p] as Record<string, unknown>, kept);
    delete group[parts.at(-1)!];
  }
  const sources: Record<string, FactSource[]> = {};
  leaves(kept).forEach(([path], i) => {
    sources[path] = [{ file, line: i + 1, why: `${file} says so (${path})` }];
  });
  return { name, facts: kept, sources, undecided: [...undecided].sort(), reasons: {}, inexpressible: [] };
}

export function collectionOf(deployments: CollectedDeployment[], files: Record<string, string>): Collection {
  return {
    format: 'signet-facts/1',
    files: Object.entries(files)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, text]) => ({ path, kind: 'compose' as const, sha256: sha(text) })),
    deployments,
    skipped: [],
    notes: [],
  };
}

/** Sets a leaf in a copy of nested facts. */
export function withFact(facts: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(facts);
  const parts = path.split('.');
  const group = parts.slice(0, -1).reduce<Record<string, unknown>>((n, p) => (n[p] ??= {}) as Record<string, unknown>, copy);
  group[parts.at(-1)!] = value;
  return copy;
}
