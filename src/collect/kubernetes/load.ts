// Kubernetes objects as the files give them: plain manifests (one or many documents), Helm
// output, and kustomizations read the way `kubectl kustomize` builds them for what the facts
// need (resources and components, namespace, name prefixes and suffixes, images, replicas, labels, strategic-merge and
// JSON 6902 patches, generated Secrets and ConfigMaps). Every value keeps its file and line,
// a patched value the patch's.
import { posix } from 'node:path';
import type { Context } from '../context.js';
import { dirOf, type Inputs } from '../inputs.js';
import type { At } from '../sheet.js';
import { readYaml, type YamlDoc, type YamlPath } from '../yaml-lines.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

interface Layer {
  doc: YamlDoc;
  file: string;
  /** The path in the layer's document of a path in the object (patch lists matched by name). */
  map(path: YamlPath): YamlPath | null;
  /** A strategic-merge patch: a map or list it writes merges into the one an earlier layer wrote. */
  merges?: boolean;
}

export class K8sObject {
  readonly layers: Layer[] = [];

  value: Obj;
  readonly file: string;
  /** An object of an OpenShift Template, created by `oc process`, never by applying a directory. */
  template = false;

  constructor(value: Obj, doc: YamlDoc, file: string) {
    this.value = value;
    this.file = file;
    this.layers.push({ doc, file, map: (p) => p });
  }

  get kind(): string {
    return String(this.value['kind'] ?? '');
  }
  get name(): string {
    return String((this.value['metadata'] as Obj | undefined)?.['name'] ?? '');
  }

  /** Where the value at `path` was written: the last layer that writes it, or the object's nearest line. */
  at(...path: YamlPath): At {
    // The object as a whole is where its base defines it, whatever patches it.
    for (let i = path.length ? this.layers.length - 1 : 0; i > 0; i--) {
      const l = this.layers[i]!;
      const mapped = l.map(path);
      if (!mapped || !l.doc.has(mapped)) continue;
      // A patch that adds a variable to the base's container writes into it, not the container itself.
      const v = getPath(l.doc.value, mapped);
      if (l.merges && v !== null && typeof v === 'object' && this.writtenBefore(i, path)) continue;
      return { file: l.file, line: l.doc.line(mapped) };
    }
    const base = this.layers[0]!;
    // Mapped: an item of a List sits under items[i] of its document.
    return { file: base.file, line: base.doc.line(base.map(path) ?? path) };
  }

  private writtenBefore(layer: number, path: YamlPath): boolean {
    return this.layers.slice(0, layer).some((l) => {
      const mapped = l.map(path);
      return mapped !== null && l.doc.has(mapped);
    });
  }
}

export interface K8sSet {
  /** The kustomization this set was built from, or null for loose manifests. */
  root: string | null;
  objects: K8sObject[];
  how: string;
}

/** Every document of a file that looks like a Kubernetes object. */
export function objectsOf(path: string, text: string): K8sObject[] {
  return readYaml(text)
    .filter((d) => isObj(d.value) && typeof (d.value as Obj)['kind'] === 'string' && typeof (d.value as Obj)['apiVersion'] === 'string')
    .flatMap((d) => {
      const v = d.value as Obj;
      // A List (kubectl get -o yaml|json) holds its objects in items; a typed list as the API
      // server answers it (DeploymentList) leaves kind and apiVersion out of each item.
      const kind = String(v['kind']);
      if (kind.endsWith('List') && Array.isArray(v['items']))
        return (v['items'] as unknown[]).flatMap((item, i) => {
          if (!isObj(item)) return [];
          const typed = kind === 'List' ? item : { apiVersion: v['apiVersion'], kind: kind.slice(0, -4), ...item };
          const o = new K8sObject(typed, d, path);
          o.layers[0] = { doc: d, file: path, map: (p) => ['items', i, ...p] };
          return o;
        });
      // An OpenShift Template (`oc process -f template.yaml | oc apply -f -`, redhat-ai-tools/rosa-mcp-server):
      // its objects, with each parameter's written default; one without a default stays `${NAME}`, open.
      if (kind === 'Template' && /^(template\.openshift\.io\/v1|v1)$/.test(String(v['apiVersion'])) && Array.isArray(v['objects'])) {
        const defaults = new Map(
          (Array.isArray(v['parameters']) ? v['parameters'] : [])
            .filter((p): p is Obj => isObj(p) && typeof p['name'] === 'string' && p['value'] !== undefined && p['value'] !== null)
            .map((p) => [String(p['name']), String(p['value'])]),
        );
        return (v['objects'] as unknown[]).flatMap((item, i) => {
          if (!isObj(item) || typeof item['kind'] !== 'string') return [];
          const o = new K8sObject(withParameters(item, defaults) as Obj, d, path);
          o.layers[0] = { doc: d, file: path, map: (p) => ['objects', i, ...p] };
          o.template = true;
          return o;
        });
      }
      return [new K8sObject(v, d, path)];
    });
}

/** A Template's object with `${NAME}` and `${{NAME}}` replaced by the parameters' defaults, as `oc process` does. */
function withParameters(value: unknown, defaults: Map<string, string>): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{\{?([A-Za-z_][A-Za-z0-9_]*)\}?\}/g, (m, name: string) => defaults.get(name) ?? m);
  if (Array.isArray(value)) return value.map((x) => withParameters(x, defaults));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, withParameters(x, defaults)]));
  return value;
}

const KUSTOMIZATION = /(^|\/)(kustomization\.ya?ml|Kustomization)$/;

/**
 * A kustomization's objects, built as kustomize would for the fields that decide facts. A
 * Component (`components:`) is built into its parent's objects (`into`): its resources join
 * them, and its generators, patches and other transformers act on everything the parent has
 * accumulated by then, as kustomize applies components after the parent's resources.
 */
export function buildKustomization(ctx: Context, path: string, depth = 0, seen = new Set<string>(), into: K8sObject[] = []): K8sObject[] {
  if (depth > 10 || seen.has(path)) return into;
  seen.add(path);
  const f = ctx.inputs.get(path);
  if (!f) return into;
  const doc = readYaml(f.text)[0];
  const k = (doc?.value ?? {}) as Obj;
  const dir = dirOf(path);
  const out = into;
  const loadRef = (ref: string) => {
    const target = ctx.inputs.resolve(`${dir ? `${dir}/` : ''}x`, ref);
    const asDir = kustomizationIn(ctx.inputs, target);
    if (asDir) out.push(...buildKustomization(ctx, asDir, depth + 1, seen));
    else {
      const file = ctx.inputs.get(target);
      if (file) out.push(...objectsOf(file.path, file.text));
      else ctx.note(path, `resource ${ref} is not among the files read`);
    }
  };
  for (const r of (k['resources'] as unknown[]) ?? []) if (typeof r === 'string' && !/^(https?:|git@|github\.com)/.test(r)) loadRef(r);
  for (const r of (k['bases'] as unknown[]) ?? []) if (typeof r === 'string') loadRef(r);
  for (const c of (k['components'] as unknown[]) ?? []) {
    if (typeof c !== 'string') continue;
    const component = kustomizationIn(ctx.inputs, ctx.inputs.resolve(`${dir ? `${dir}/` : ''}x`, c));
    if (component) buildKustomization(ctx, component, depth + 1, seen, out);
    else ctx.note(path, `component ${c} is not among the files read: not applied`);
  }

  // Generated Secrets and ConfigMaps: their names, types and literal keys. A ConfigMap's files are
  // read (a proxy's configuration: 0x1D-1983/book-api-mcp-docker-compose-bundle's Envoy), with the
  // file each key comes from; a Secret's never are. A Secret's `literals` are written in the
  // kustomization itself (aRustyDev/pcf-mcp's `pcf-api-key=dev-api-key`): values in the files.
  const generated = (kind: 'Secret' | 'ConfigMap', list: unknown, field: string) => {
    ((list as unknown[]) ?? []).forEach((g, i) => {
      if (!isObj(g)) return;
      const data: Obj = {};
      const from: Record<string, string> = {};
      for (const lit of (g['literals'] as unknown[]) ?? []) {
        const s = String(lit);
        data[s.split('=')[0]!] = s.slice(s.indexOf('=') + 1);
      }
      const literal = Object.keys(data).length > 0;
      for (const fe of (g['files'] as unknown[]) ?? []) {
        const [key, file] = String(fe).includes('=') ? String(fe).split('=', 2) : [String(fe).split('/').pop()!, String(fe)];
        const read = kind === 'ConfigMap' ? ctx.inputs.get(ctx.inputs.resolve(`${dir ? `${dir}/` : ''}x`, file!)) : undefined;
        if (kind === 'Secret' && literal) continue;
        data[key!] = read?.text ?? '';
        if (read) from[key!] = read.path;
      }
      const value: Obj = {
        apiVersion: 'v1',
        kind,
        metadata: { name: g['name'] },
        type: g['type'],
        [kind === 'Secret' ? 'stringData' : 'data']: data,
        // From files kept elsewhere, unless a Secret writes literals here.
        __generated: !(kind === 'Secret' && literal),
        __literal: kind === 'Secret' && literal,
        __files: from,
      };
      const o = new K8sObject(value, doc!, path);
      o.layers[0] = { doc: doc!, file: path, map: (p) => (p.length === 0 ? [field, i] : [field, i, 'literals']) };
      out.push(o);
    });
  };
  generated('Secret', k['secretGenerator'], 'secretGenerator');
  generated('ConfigMap', k['configMapGenerator'], 'configMapGenerator');

  // Patches: strategic merge (a file or inline object) and JSON 6902 (inline list or file).
  for (const key of ['patches', 'patchesStrategicMerge', 'patchesJson6902'])
    for (const [i, p] of (Array.isArray(k[key]) ? (k[key] as unknown[]) : []).entries()) applyPatch(ctx, out, p, path, dir, doc!, [key, i]);

  // Images, replicas, namespace.
  for (const [i, img] of ((k['images'] as unknown[]) ?? []).entries()) {
    if (!isObj(img)) continue;
    for (const o of out)
      forEachContainer(o, (c, cpath) => {
        const image = String(c['image'] ?? '');
        const repo = image.split('@')[0]!.replace(/:[^/:]+$/, '');
        if (repo !== img['name']) return;
        const name = String(img['newName'] ?? repo);
        c['image'] = img['digest']
          ? `${name}@${String(img['digest'])}`
          : `${name}:${String(img['newTag'] ?? image.split('@')[0]!.match(/:([^/:]+)$/)?.[1] ?? 'latest')}`;
        o.layers.push({ doc: doc!, file: path, map: (q) => (q.join('/') === [...cpath, 'image'].join('/') ? ['images', i] : null) });
      });
  }
  for (const [i, r] of ((k['replicas'] as unknown[]) ?? []).entries()) {
    if (!isObj(r)) continue;
    for (const o of out) {
      if (o.name !== r['name'] || !isObj(o.value['spec'])) continue;
      (o.value['spec'] as Obj)['replicas'] = r['count'];
      o.layers.push({ doc: doc!, file: path, map: (q) => (q.join('/') === 'spec/replicas' ? ['replicas', i] : null) });
    }
  }
  if (typeof k['namespace'] === 'string') for (const o of out) ((o.value['metadata'] ??= {}) as Obj)['namespace'] = k['namespace'];
  rename(out, typeof k['namePrefix'] === 'string' ? k['namePrefix'] : '', typeof k['nameSuffix'] === 'string' ? k['nameSuffix'] : '');
  return out;
}

/**
 * Where one object names another by name, with the kind it names (kustomize's nameReference, the
 * references the facts follow): `[key of the holder, key of the name, kind]`. The scaleTargetRef's
 * kind is its own `kind` field.
 */
const REFERENCES: [string, string, string][] = [
  ['service', 'name', 'Service'],
  ['configMap', 'name', 'ConfigMap'],
  ['configMapRef', 'name', 'ConfigMap'],
  ['configMapKeyRef', 'name', 'ConfigMap'],
  ['secret', 'secretName', 'Secret'],
  ['secretRef', 'name', 'Secret'],
  ['secretKeyRef', 'name', 'Secret'],
  ['persistentVolumeClaim', 'claimName', 'PersistentVolumeClaim'],
];

/**
 * `namePrefix` and `nameSuffix`, as `kubectl kustomize` applies them: every object of the
 * kustomization renamed (not a Namespace or a CRD), and each reference to one of them by its old
 * name renamed with it, so an Ingress still routes to its Service and an HPA still scales its
 * Deployment (Tributary-ai-services/tas-mcp's overlays use `namePrefix: prod-`).
 */
function rename(objects: K8sObject[], prefix: string, suffix: string): void {
  if (!prefix && !suffix) return;
  const renamed = new Map<string, string>();
  for (const o of objects) {
    if (o.kind === 'Namespace' || o.kind === 'CustomResourceDefinition' || !o.name) continue;
    renamed.set(`${o.kind}/${o.name}`, `${prefix}${o.name}${suffix}`);
    (o.value['metadata'] as Obj)['name'] = `${prefix}${o.name}${suffix}`;
  }
  const update = (holder: Obj, key: string, kind: string) => {
    const now = typeof holder[key] === 'string' ? renamed.get(`${kind}/${holder[key]}`) : undefined;
    if (now) holder[key] = now;
  };
  const walk = (v: unknown, parent: string): void => {
    if (Array.isArray(v)) for (const x of v) walk(x, parent);
    if (!isObj(v)) return;
    for (const [holder, key, kind] of REFERENCES) if (parent === holder) update(v, key, kind);
    if (parent === 'scaleTargetRef' && typeof v['kind'] === 'string') update(v, 'name', v['kind']);
    if (parent === 'tls') update(v, 'secretName', 'Secret');
    update(v, 'serviceAccountName', 'ServiceAccount');
    for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  for (const o of objects) walk(o.value['spec'], 'spec');
}

export function kustomizationIn(inputs: Inputs, dir: string): string | null {
  for (const n of ['kustomization.yaml', 'kustomization.yml', 'Kustomization']) {
    const p = dir ? `${dir}/${n}` : n;
    if (inputs.get(p)) return p;
  }
  return null;
}

function forEachContainer(o: K8sObject, f: (c: Obj, path: (string | number)[]) => void): void {
  const spec = podSpecPath(o);
  if (!spec) return;
  const pod = getPath(o.value, spec) as Obj;
  for (const field of ['initContainers', 'containers']) {
    for (const [i, c] of ((pod?.[field] as unknown[]) ?? []).entries()) if (isObj(c)) f(c, [...spec, field, i]);
  }
}

/** Where a workload keeps its pod spec. */
/** Knative Serving's objects (`serving.knative.dev`), which share the name Service with the core one. */
export const isKnative = (o: K8sObject): boolean => /^serving\.knative\.dev\//.test(String(o.value['apiVersion'] ?? ''));

/**
 * The content hash kustomize appends to a generated Secret's or ConfigMap's name: ten characters
 * of an alphabet without vowels (so no word is spelt), as kubectl kustomize renders it.
 */
export const KUSTOMIZE_HASH = /-[2456789bcdfghkmt]{10}$/;

/** Workload kinds whose API object needs a selector. */
const SELECTED = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/**
 * The API refuses an apps/v1 workload without a selector and a container without an image: one
 * with neither is a fragment for `kubectl patch --patch-file` (kagenti/mcp-gateway's
 * poll-interval-patch.yaml), never an object of its own. A rendered chart whose image lines were
 * filtered out keeps its selector (mock-llm's).
 */
export function isPatchFragment(o: K8sObject): boolean {
  if (!SELECTED.has(o.kind) || getPath(o.value, ['spec', 'selector']) !== undefined) return false;
  const containers = getPath(o.value, ['spec', 'template', 'spec', 'containers']);
  return (
    Array.isArray(containers) && containers.every((c) => !isObj(c) || c['image'] === undefined || c['image'] === null || c['image'] === '')
  );
}

export function podSpecPath(o: K8sObject): (string | number)[] | null {
  switch (o.kind) {
    case 'Pod':
      return ['spec'];
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
    // Argo Rollouts' Rollout and OpenShift's DeploymentConfig hold their pod template where a Deployment does.
    case 'Rollout':
    case 'DeploymentConfig':
      return ['spec', 'template', 'spec'];
    case 'CronJob':
      return ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
    // A Knative Service (Cloud Run's service YAML too) runs its revision's pods from spec.template.
    case 'Service':
      return isKnative(o) ? ['spec', 'template', 'spec'] : null;
    default:
      return null;
  }
}

export function getPath(v: unknown, path: YamlPath): unknown {
  let n = v;
  for (const p of path) {
    if (n === null || typeof n !== 'object') return undefined;
    n = (n as Record<string | number, unknown>)[p];
  }
  return n;
}

function applyPatch(ctx: Context, objects: K8sObject[], p: unknown, kpath: string, dir: string, kdoc: YamlDoc, entry: YamlPath): void {
  let patchDoc: YamlDoc | undefined;
  let patchFile = kpath;
  let target: Obj | null = null;
  let base: YamlPath = [];
  // An inline patch: its lines are the kustomization's (offset to where the patch is written).
  const inline = (text: string, at: YamlPath): YamlDoc | undefined => {
    const inner = readYaml(text)[0];
    const offset = kdoc.line(at);
    return inner && { value: inner.value, line: (q) => offset + inner.line(q), has: (q) => inner.has(q) };
  };
  // A patchesStrategicMerge entry is a file path or, written across lines, the patch itself.
  if (typeof p === 'string' && p.includes('\n')) patchDoc = inline(p, entry);
  else if (typeof p === 'string') {
    patchFile = ctx.inputs.resolve(`${dir ? `${dir}/` : ''}x`, p);
    const pf = ctx.inputs.get(patchFile);
    patchDoc = pf ? readYaml(pf.text)[0] : undefined;
  } else if (isObj(p)) {
    target = isObj(p['target']) ? p['target'] : null;
    if (typeof p['path'] === 'string') {
      patchFile = ctx.inputs.resolve(`${dir ? `${dir}/` : ''}x`, p['path']);
      const pf = ctx.inputs.get(patchFile);
      patchDoc = pf ? readYaml(pf.text)[0] : undefined;
    } else if (typeof p['patch'] === 'string') patchDoc = inline(p['patch'], [...entry, 'patch']);
    base = [];
  }
  if (!patchDoc) {
    ctx.note(
      kpath,
      typeof p === 'string' && p.includes('\n')
        ? `${entry.join('[')}] is an inline patch that is not YAML: not applied`
        : `a patch (${typeof p === 'string' ? p : JSON.stringify(p).slice(0, 60)}) is not among the files read: not applied`,
    );
    return;
  }
  const pv = patchDoc.value;
  const what =
    typeof p === 'string' && !p.includes('\n')
      ? p
      : isObj(p) && typeof p['path'] === 'string'
        ? String(p['path'])
        : `${String(entry[0])}[${String(entry[1])}]`;
  // kubectl refuses a patch without a target that matches nothing, and skips one whose target selects nothing.
  const none = (tgt: Obj | null) =>
    ctx.note(
      kpath,
      `patch ${what} matches no object among the resources read (${tgt ? `${String(tgt['kind'] ?? '*')}/${String(tgt['name'] ?? '*')}` : 'any'}): not applied`,
    );
  if (Array.isArray(pv)) {
    // JSON 6902: add / replace / remove by JSON pointer on the target.
    const hits = objects.filter((x) => matches(x, target));
    if (hits.length === 0) none(target);
    for (const o of hits) {
      pv.forEach((op, i) => {
        if (!isObj(op)) return;
        const ptr = String(op['path'] ?? '')
          .split('/')
          .slice(1)
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
        jsonPatch(o.value, String(op['op']), ptr, op['value']);
        const at = patchDoc!;
        o.layers.push({
          doc: at,
          file: patchFile,
          map: (q) => (q.join('/').startsWith(ptr.filter((s) => s !== '-').join('/')) ? [i] : null),
        });
      });
    }
    return;
  }
  if (!isObj(pv)) return;
  const meta = (pv['metadata'] ?? {}) as Obj;
  const tgt = target ?? { kind: pv['kind'], name: meta['name'] };
  const hits = objects.filter((x) => matches(x, tgt));
  if (hits.length === 0) none(tgt);
  for (const o of hits) {
    const before = o.value;
    o.value = strategicMerge(before, pv) as Obj;
    o.layers.push({ doc: patchDoc, file: patchFile, map: (q) => mapByName(before, pv, q), merges: true });
  }
  void base;
}

function matches(o: K8sObject, target: Obj | null): boolean {
  if (!target) return true;
  if (target['kind'] && target['kind'] !== o.kind) return false;
  if (target['name'] && target['name'] !== o.name) return false;
  return true;
}

/** Lists of objects with a `name` (containers, env, volumes, ports) merge by name, as strategic merge does. */
export function strategicMerge(a: unknown, b: unknown): unknown {
  if (isObj(a) && isObj(b)) {
    const out: Obj = { ...a };
    for (const [k, v] of Object.entries(b)) {
      if (v === null) delete out[k];
      else out[k] = strategicMerge(out[k], v);
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && b.every((x) => isObj(x) && 'name' in x) && a.every((x) => isObj(x) && 'name' in x)) {
    const out = [...a] as Obj[];
    for (const item of b as Obj[]) {
      const i = out.findIndex((x) => x['name'] === item['name']);
      if (i >= 0) out[i] = strategicMerge(out[i], item) as Obj;
      else out.push(item);
    }
    return out;
  }
  return b === undefined ? a : b;
}

/** The path in a strategic-merge patch of a path in the merged object (list items matched by name). */
function mapByName(target: unknown, patch: unknown, path: YamlPath): YamlPath | null {
  const out: (string | number)[] = [];
  let t = target;
  let p = patch;
  for (const seg of path) {
    if (typeof seg === 'number' && Array.isArray(t) && Array.isArray(p)) {
      const name = (t[seg] as Obj | undefined)?.['name'];
      const j = p.findIndex((x) => isObj(x) && x['name'] === name);
      if (j < 0) return null;
      out.push(j);
      t = t[seg];
      p = p[j];
    } else {
      if (!isObj(p) || !(String(seg) in p)) return null;
      out.push(seg);
      t = isObj(t) ? t[String(seg)] : undefined;
      p = p[String(seg)];
    }
  }
  return out;
}

function jsonPatch(root: Obj, op: string, ptr: string[], value: unknown): void {
  if (!ptr.length) return;
  let parent: unknown = root;
  for (const seg of ptr.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return;
    parent = (parent as Record<string, unknown>)[seg];
  }
  const last = ptr[ptr.length - 1]!;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (op === 'add') parent.splice(i, 0, value);
    else if (op === 'replace') parent[i] = value;
    else if (op === 'remove') parent.splice(i, 1);
  } else if (isObj(parent)) {
    if (op === 'remove') delete parent[last];
    else parent[last] = value;
  }
}

export const isKustomization = (p: string) => KUSTOMIZATION.test(p);
export const basenameOf = (p: string) => posix.basename(p);
