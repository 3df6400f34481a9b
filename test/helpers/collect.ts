// Collections for tests: files from this repository (by path) or written inline, collected
// with the bundled doctrine so every result is checked against its facts schema.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CollectOptions, collect, type InputFile } from '../../src/collect/index.js';
import type { CollectionOut } from '../../src/collect/types.js';
import { loadDoctrine } from '../../src/doctrine/load.js';
import { DEFAULT_DOCTRINE, ROOT } from './paths.js';

export const doctrine = loadDoctrine(DEFAULT_DOCTRINE);

/** Files of this repository, by path relative to its root. */
export const repoFiles = (...paths: string[]): InputFile[] => paths.map((path) => ({ path, bytes: readFileSync(join(ROOT, path)) }));

/** Files written inline: path → text. */
export const inline = (files: Record<string, string>): InputFile[] =>
  Object.entries(files).map(([path, text]) => ({ path, bytes: new TextEncoder().encode(text) }));

export const collectWith = (files: InputFile[], options: CollectOptions = {}): CollectionOut => collect(files, { doctrine, ...options });

/** The one deployment whose name ends with `suffix`. */
export function deploymentOf(c: CollectionOut, suffix: string): CollectionOut['deployments'][number] {
  const found = c.deployments.filter((d) => d.name.endsWith(suffix));
  if (found.length !== 1) throw new Error(`expected one deployment ending ${suffix}, got ${c.deployments.map((d) => d.name).join(', ')}`);
  return found[0]!;
}

/** The value of a dotted fact. */
export function fact(d: { facts: Record<string, unknown> }, path: string): unknown {
  let n: unknown = d.facts;
  for (const p of path.split('.')) n = n && typeof n === 'object' ? (n as Record<string, unknown>)[p] : undefined;
  return n;
}

/** The 1-based line of this repository's `file` that matches `pattern` (the first, or the first after `after`). */
export function lineOf(file: string, pattern: RegExp, after?: RegExp): number {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const from = after ? lines.findIndex((l) => after.test(l)) : 0;
  const i = lines.findIndex((l, n) => n >= from && pattern.test(l));
  if (i < 0) throw new Error(`${file}: no line matches ${pattern}`);
  return i + 1;
}

/**
 * A Deployment of one container, its pod labelled `app: NAME`, as manifests write it; `container`
 * holds the container's lines after its image (`command: [...]`, `ports: [...]`), indented for it.
 */
export function deploymentYaml(name: string, image: string, container: string[] = []): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    `metadata: { name: ${name} }`,
    'spec:',
    `  selector: { matchLabels: { app: ${name} } }`,
    '  template:',
    `    metadata: { labels: { app: ${name} } }`,
    '    spec:',
    '      containers:',
    `        - name: ${name}`,
    `          image: ${image}`,
    ...container.map((l) => `          ${l}`),
    '',
  ].join('\n');
}
