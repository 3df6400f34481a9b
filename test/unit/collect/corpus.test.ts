// The corpus: deployment files copied from public MCP projects (test/fixtures/collect-corpus,
// each case naming its repository, commit and path), with the facts a reader decided by reading
// them and the facts they must leave undecided. A collected fact is right, wrong (a different
// value, or a value for a fact that must stay undecided) or not collected; wrong must be 0.
// `expect.facts` lists every fact the collector outputs (a second reader audited each one), so a
// fact the collector starts to output is a failure until someone reads the files and decides it.
// Fixture files are JSON: real compose files and Dockerfiles stored under their own names would
// be built by CI's docker-env.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectOptions } from '../../../src/collect/index.js';
import { collectWith, fact, inline } from '../../helpers/collect.js';
import { ROOT } from '../../helpers/paths.js';

interface Case {
  about: string;
  sources: { repo: string; commit: string; path: string; what?: string }[];
  options: CollectOptions;
  files: Record<string, string>;
  expect: Record<string, { facts: Record<string, unknown>; undecided: string[] }>;
}

const DIR = join(ROOT, 'test/fixtures/collect-corpus');
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.case.json'))
  .sort()
  .map((f) => ({ name: f.replace(/\.case\.json$/, ''), c: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Case }));

const tally = { right: 0, wrong: 0, undecided: 0, mustStayOpen: 0, unreviewed: 0 };

/** Every decided leaf of a nested facts object, by dotted path. */
const leaves = (o: Record<string, unknown>, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v) ? leaves(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
  );

describe('the corpus of public MCP deployments', () => {
  it('has at least 12 cases, each naming its source by repository, commit and path', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    for (const { name, c } of cases) {
      expect(c.sources.length, name).toBeGreaterThan(0);
      for (const s of c.sources) expect(s.commit, name).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  for (const { name, c } of cases) {
    it(`${name}: every collected fact as a reader decided it, nothing guessed`, () => {
      const out = collectWith(inline(c.files), c.options);
      expect(out.deployments.map((d) => d.name).sort(), 'the deployments found').toEqual(Object.keys(c.expect).sort());
      const wrong: string[] = [];
      for (const [dname, exp] of Object.entries(c.expect)) {
        const d = out.deployments.find((x) => x.name === dname)!;
        for (const [path, value] of Object.entries(exp.facts)) {
          const got = fact(d, path);
          if (got === undefined) tally.undecided++;
          else if (JSON.stringify(got) === JSON.stringify(value)) tally.right++;
          else wrong.push(`${dname}: ${path} = ${JSON.stringify(got)}, read as ${JSON.stringify(value)} (${d.sources[path]?.[0]?.why})`);
        }
        for (const path of leaves(d.facts).filter((p) => !(p in exp.facts) && !exp.undecided.includes(p))) {
          tally.unreviewed++;
          wrong.push(
            `${dname}: ${path} = ${JSON.stringify(fact(d, path))} is collected but no reader decided it (${d.sources[path]?.[0]?.why})`,
          );
        }
        for (const path of exp.undecided) {
          tally.mustStayOpen++;
          if (fact(d, path) !== undefined)
            wrong.push(`${dname}: ${path} = ${JSON.stringify(fact(d, path))} must stay undecided (${d.sources[path]?.[0]?.why})`);
        }
      }
      tally.wrong += wrong.length;
      expect(wrong).toEqual([]);
    });
  }

  it('reports the shares: right, wrong (0) and not collected', () => {
    const total = tally.right + tally.wrong + tally.undecided;
    expect(total).toBeGreaterThan(150);
    expect(tally.wrong).toBe(0);
    const pct = (n: number) => `${((100 * n) / total).toFixed(1)} %`;
    console.info(
      `corpus: ${cases.length} cases, ${total} expected facts: ${tally.right} collected right (${pct(tally.right)}), ${tally.wrong} wrong (${tally.unreviewed} collected that no reader decided), ${tally.undecided} left undecided (${pct(tally.undecided)}); ${tally.mustStayOpen} facts that must stay undecided`,
    );
  });
});
