// Signet's own deployments as `signet check` sees them: the facts collected from the shipped
// files (compose file, overlays, manifests, Dockerfiles, proxy templates), merged with what
// deploy/facts/<kind>.json declares because no file shows it. The complete fact set of each
// kind, and its verdict, for the tests that need them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDeclared } from '../../src/check/declared.js';
import { runCheck } from '../../src/check/run.js';
import type { CollectOptions, InputFile } from '../../src/collect/index.js';
import type { CollectionOut } from '../../src/collect/types.js';
import { collectWith, doctrine, repoFiles } from './collect.js';
import { ROOT } from './paths.js';

export type SignetKind = 'compose' | 'compose-oauth' | 'kubernetes';

const walk = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));

const BUILD = ['Dockerfile', 'package.json', 'package-lock.json', ...walk('proxy')];

/** The files each kind is collected from, and how (the arguments `signet check` would get). */
export const KINDS: Record<SignetKind, { files: string[]; options: CollectOptions; deployment: string }> = {
  compose: { files: ['docker-compose.yml', ...BUILD], options: {}, deployment: 'compose:docker-compose.yml:signet' },
  'compose-oauth': {
    files: ['docker-compose.yml', 'deploy/compose.oauth.yml', ...BUILD],
    options: { compose: [['docker-compose.yml', 'deploy/compose.oauth.yml']] },
    deployment: 'compose:docker-compose.yml:signet',
  },
  kubernetes: {
    files: [...walk('deploy/kubernetes/base'), ...BUILD],
    options: { kustomizations: ['deploy/kubernetes/base'] },
    deployment: 'kubernetes:deploy/kubernetes/base/kustomization.yaml:Deployment/signet',
  },
};

export interface SignetDeployment {
  collection: CollectionOut;
  /** The collected deployment alone. */
  collected: CollectionOut['deployments'][number];
  /** Collected and declared facts together, as `signet check` evaluates them. */
  facts: Record<string, unknown>;
  /** Dotted paths declared in deploy/facts/<kind>.json. */
  declared: string[];
  report: ReturnType<typeof runCheck>;
}

const cache = new Map<SignetKind, SignetDeployment>();

export function signetDeployment(kind: SignetKind): SignetDeployment {
  const hit = cache.get(kind);
  if (hit) return hit;
  const k = KINDS[kind];
  const files: InputFile[] = repoFiles(...k.files);
  const collection = collectWith(files, k.options);
  const path = `deploy/facts/${kind}.json`;
  const declared = parseDeclared(doctrine, path, readFileSync(join(ROOT, path)));
  const report = runCheck(doctrine, { collection, declared });
  const checked = report.deployments.find((d) => d.name === k.deployment)!;
  const collected = collection.deployments.find((d) => d.name === k.deployment)!;
  const leaves = (o: Record<string, unknown>, p = ''): string[] =>
    Object.entries(o).flatMap(([key, v]) =>
      v && typeof v === 'object' && !Array.isArray(v) ? leaves(v as Record<string, unknown>, `${p}${key}.`) : [`${p}${key}`],
    );
  const out = { collection, collected, facts: checked.facts as Record<string, unknown>, declared: leaves(declared.facts), report };
  cache.set(kind, out);
  return out;
}
