// Recall of the collectors against readings written independently of them: for some corpus
// cases, a reader listed the facts a careful person decides from the files alone, and the facts
// the files cannot decide, before looking at what the collector outputs for that case
// (test/fixtures/collect-corpus/independent/). The corpus test's own `expect` lists everything
// the collector outputs, so it cannot show what the collector misses; this does. Each fact of
// a reading is collected right, collected wrong (another value), or missed (left undecided);
// a value for a fact the reader says no file decides is wrong too. Wrong must be 0.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectOptions } from '../../../src/collect/index.js';
import { collectWith, fact, inline } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

interface Reading {
  case: string;
  deployment: string;
  reader: string;
  facts: Record<string, { value: unknown; why: string }>;
  undecided: Record<string, string>;
}

const CORPUS = join(ROOT, 'test/fixtures/collect-corpus');
const readings = readdirSync(join(CORPUS, 'independent'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(CORPUS, 'independent', f), 'utf8')) as Reading);

const tally = { right: 0, wrong: 0, missed: 0, open: 0 };
const kinds = new Set<string>();

describe('the corpus against independent readings', () => {
  it('covers at least four cases: a compose project, Kubernetes manifests, a client configuration, a proxy or Dockerfile', () => {
    for (const r of readings) kinds.add(r.deployment.split(':')[0]!);
    expect(readings.length).toBeGreaterThanOrEqual(4);
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['client', 'compose', 'kubernetes']));
    expect([...kinds].some((k) => k === 'proxy' || k === 'image')).toBe(true);
  });

  for (const r of readings) {
    it(`${r.case}: every fact the reader decided, collected right or left open, never wrong`, () => {
      const c = JSON.parse(readFileSync(join(CORPUS, `${r.case}.case.json`), 'utf8')) as {
        files: Record<string, string>;
        options?: CollectOptions;
      };
      const out = collectWith(inline(c.files), c.options ?? {});
      const d = out.deployments.find((x) => x.name === r.deployment);
      expect(d, `${r.deployment} among ${out.deployments.map((x) => x.name).join(', ')}`).toBeDefined();
      const wrong: string[] = [];
      const missed: string[] = [];
      for (const [path, { value, why }] of Object.entries(r.facts)) {
        const got = fact(d!, path);
        if (got === undefined) missed.push(`${path} (read as ${JSON.stringify(value)}: ${why})`);
        else if (JSON.stringify(got) === JSON.stringify(value)) tally.right++;
        else wrong.push(`${path} = ${JSON.stringify(got)} (${d!.sources[path]?.[0]?.why}), read as ${JSON.stringify(value)}: ${why}`);
      }
      for (const [path, why] of Object.entries(r.undecided)) {
        tally.open++;
        const got = fact(d!, path);
        if (got !== undefined)
          wrong.push(`${path} = ${JSON.stringify(got)} (${d!.sources[path]?.[0]?.why}), which the reader found no file decides: ${why}`);
      }
      tally.wrong += wrong.length;
      tally.missed += missed.length;
      if (missed.length) console.info(`${r.case}: missed ${missed.length}:\n  ${missed.join('\n  ')}`);
      expect(wrong).toEqual([]);
    });
  }

  it('reports right, wrong (0) and missed against the readings', () => {
    const total = tally.right + tally.wrong + tally.missed;
    const pct = (n: number) => `${((100 * n) / total).toFixed(1)} %`;
    console.info(
      `independent readings: ${readings.length} cases, ${total} facts decided by a reader: ${tally.right} collected right (${pct(tally.right)}), ${tally.wrong} wrong, ${tally.missed} missed (${pct(tally.missed)}); ${tally.open} facts the reader left undecided`,
    );
    expect(tally.wrong).toBe(0);
  });
});
