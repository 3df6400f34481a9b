// Signet's own deployments as `signet check` sees them: the facts collected from the shipped
// files (compose file, overlays, manifests, Dockerfiles, proxy templates), merged with what
// deploy/facts declares because no file shows it. The complete fact set of each kind, and its
// verdict, for the tests that need them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDeclared } from '../../src/check/declared.js';
import { runCheck } from '../../src/check/run.js';
import type { CollectOptions, InputFile } from '../../src/collect/index.js';
import type { CollectionOut } from '../../src/collect/types.js';
import { collectWith, doctrine, repoFiles } from './collect.js';
import { ROOT } from './paths.js';

export type SignetKind = 'compose' | 'compose-oauth' | 'compose-tls' | 'kubernetes' | 'kubernetes-dev' | 'kubernetes-dev-oauth';

/** Every file under `dir`, but an overlay's git-ignored secrets/ (a developer's real keys are never read into a test). */
const walk = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'secrets' ? [] : walk(`${dir}/${e.name}`)) : [`${dir}/${e.name}`],
  );

const BUILD = ['Dockerfile', 'package.json', 'package-lock.json', ...walk('proxy')];
const K8S_BASE = walk('deploy/kubernetes/base');
const K8S_DEV = [...K8S_BASE, ...walk('deploy/kubernetes/overlays/dev')];

/**
 * The files each kind is collected from, and how (the arguments `signet check` would get), and
 * the declared-facts file it is checked with: the overlays with their base's (deploy/facts
 * says why in each description: they change only what the files show).
 */
export const KINDS: Record<SignetKind, { files: string[]; options: CollectOptions; deployment: string; declared: string }> = {
  compose: {
    files: ['docker-compose.yml', ...BUILD],
    options: {},
    deployment: 'compose:docker-compose.yml:signet',
    declared: 'deploy/facts/compose.json',
  },
  'compose-oauth': {
    files: ['docker-compose.yml', 'deploy/compose.oauth.yml', ...BUILD],
    options: { compose: [['docker-compose.yml', 'deploy/compose.oauth.yml']] },
    deployment: 'compose:docker-compose.yml:signet',
    declared: 'deploy/facts/compose-oauth.json',
  },
  'compose-tls': {
    files: ['docker-compose.yml', 'deploy/compose.tls.yml', ...BUILD],
    options: { compose: [['docker-compose.yml', 'deploy/compose.tls.yml']] },
    deployment: 'compose:docker-compose.yml:signet',
    declared: 'deploy/facts/compose.json',
  },
  kubernetes: {
    files: [...K8S_BASE, ...BUILD],
    options: { kustomizations: ['deploy/kubernetes/base'] },
    deployment: 'kubernetes:deploy/kubernetes/base/kustomization.yaml:Deployment/signet',
    declared: 'deploy/facts/kubernetes.json',
  },
  'kubernetes-dev': {
    files: [...K8S_DEV, ...BUILD],
    options: { kustomizations: ['deploy/kubernetes/overlays/dev'] },
    deployment: 'kubernetes:deploy/kubernetes/overlays/dev/kustomization.yaml:Deployment/signet',
    declared: 'deploy/facts/kubernetes.json',
  },
  'kubernetes-dev-oauth': {
    files: [...K8S_DEV, ...walk('deploy/kubernetes/overlays/dev-oauth'), ...walk('deploy/kubernetes/components/oauth'), ...BUILD],
    options: { kustomizations: ['deploy/kubernetes/overlays/dev-oauth'] },
    deployment: 'kubernetes:deploy/kubernetes/overlays/dev-oauth/kustomization.yaml:Deployment/signet',
    declared: 'deploy/facts/kubernetes.json',
  },
};

export interface SignetDeployment {
  collection: CollectionOut;
  /** The collected deployment alone. */
  collected: CollectionOut['deployments'][number];
  /** Collected and declared facts together, as `signet check` evaluates them. */
  facts: Record<string, unknown>;
  /** Dotted paths declared in the kind's deploy/facts file. */
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
  const path = k.declared;
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
