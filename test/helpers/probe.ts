// Assertions every probe result must meet, whatever it probed: facts valid against the doctrine's
// facts schema, every decided fact traced to evidence, every fact the probe looks at either
// decided or noted, every request on the target's origin, and the credential nowhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { PROBE_FACTS } from '../../src/probe/findings.js';
import type { ProbeResult } from '../../src/probe/types.js';
import { ajv } from '../../src/schema/ajv.js';
import { ROOT } from './paths.js';

const validateFacts = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'doctrine', 'doctrine.json'), 'utf8')).facts_schema);

export function expectWellFormed(r: ProbeResult, options: { secret?: string; maxRequests?: number } = {}): void {
  expect(validateFacts(r.facts), JSON.stringify(validateFacts.errors)).toBe(true);
  const ids = r.evidence.map((e) => e.id);
  expect(new Set(ids).size, 'evidence ids are unique').toBe(ids.length);
  for (const [path, sources] of Object.entries(r.sources)) {
    expect(sources.length, path).toBeGreaterThan(0);
    for (const s of sources) expect(ids, `${path} cites ${'probe' in s ? s.probe : '?'}`).toContain('probe' in s ? s.probe : '');
  }
  const decided = Object.keys(r.sources);
  expect([...decided, ...r.undecided].sort()).toEqual([...PROBE_FACTS].sort());
  for (const path of r.undecided) expect(r.notes[path], path).toMatch(/\w/);
  const origin = new URL(r.target).origin;
  for (const e of r.evidence) {
    if (e.kind === 'http') expect(e.request.url.startsWith(`${origin}/`), e.request.url).toBe(true);
  }
  expect(r.evidence.length).toBeLessThanOrEqual(options.maxRequests ?? 60);
  if (options.secret) expect(JSON.stringify(r)).not.toContain(options.secret);
}

/** The value of a dotted fact, or undefined when undecided. */
export function fact(r: ProbeResult, path: string): unknown {
  const [group, name] = path.split('.') as [string, string];
  return (r.facts[group] as Record<string, unknown> | undefined)?.[name];
}

/** The evidence ids a decided fact cites. */
export function sourcesOf(r: ProbeResult, path: string): string[] {
  return (r.sources[path] ?? []).map((s) => ('probe' in s ? s.probe : ''));
}

/** The evidence record of an id. */
export function evidence(r: ProbeResult, id: string) {
  const e = r.evidence.find((x) => x.id === id);
  if (!e) throw new Error(`no evidence ${id}`);
  return e;
}
