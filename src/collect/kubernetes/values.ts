// Reading the plain values of parsed Kubernetes objects: maps, lists, strings, label selectors.

import { getPath, type K8sObject } from './load.js';
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
export const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Every string value in a parsed YAML value (an Ingress's hosts, paths and names). */
export const stringsIn = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(stringsIn) : isObj(v) ? Object.values(v).flatMap(stringsIn) : [];

export const selects = (selector: unknown, labels: Obj) => isObj(selector) && Object.entries(selector).every(([k, v]) => labels[k] === v);
export const selectorOf = (p: K8sObject) => (getPath(p.value, ['spec', 'podSelector', 'matchLabels']) ?? {}) as Obj;

/** A container port named for health, metrics or probes (`health`, `health-http`, `metrics`): no MCP endpoint. */
export const forHealthOnly = (port: Obj): boolean =>
  /^(health[-_a-z]*|metrics[-_a-z]*|probes?|readiness|liveness|webhook|pprof)$/i.test(String(port['name'] ?? ''));
