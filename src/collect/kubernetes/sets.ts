// The Kubernetes object sets among the files: each kustomization built (or its rendered output),
// and the loose manifests applied together, a directory at a time.
import type { Context } from '../context.js';
import { dirOf, normalise, type TextFile } from '../inputs.js';
import { firstLine, unparsed } from '../parse-errors.js';
import type { FileKind, SkippedFile } from '../types.js';
import { readYaml } from '../yaml-lines.js';
import { linkedDirs } from './linked-dirs.js';
import { buildKustomization, isPatchFragment, type K8sObject, type K8sSet, KUSTOMIZE_HASH, kustomizationIn, objectsOf } from './load.js';

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Kubernetes object sets: each kustomization built (or its rendered output), and the loose manifests of each directory. */
export function kubernetesSets(ctx: Context, texts: TextFile[], kinds: Map<string, FileKind>, skipped: SkippedFile[]): K8sSet[] {
  const kustomizations = texts.filter((t) => kinds.get(t.path) === 'kustomization').map((t) => t.path);
  const referenced = new Set<string>();
  const members = new Set<string>();
  const refs = new Map<string, string[]>();
  for (const k of kustomizations) {
    try {
      const v = readYaml(ctx.inputs.get(k)!.text)[0]?.value as Record<string, unknown> | undefined;
      for (const field of ['resources', 'bases', 'components', 'patchesStrategicMerge']) {
        for (const r of (v?.[field] as unknown[]) ?? []) {
          if (typeof r !== 'string') continue;
          const target = ctx.inputs.resolve(k, r);
          const sub = kustomizationIn(ctx.inputs, target);
          if (sub) {
            referenced.add(sub);
            refs.set(k, [...(refs.get(k) ?? []), sub]);
          } else members.add(target);
        }
      }
      for (const p of (v?.['patches'] as unknown[]) ?? []) {
        const path = typeof p === 'string' ? p : p && typeof p === 'object' ? (p as Record<string, unknown>)['path'] : undefined;
        if (typeof path === 'string') members.add(ctx.inputs.resolve(k, path));
      }
    } catch {
      /* reported when built */
    }
  }
  // kubectl kustomize refuses a kustomization that includes itself, directly or through others.
  const path = (from: string, to: string, seen: string[] = []): string[] | null => {
    for (const x of refs.get(from) ?? []) {
      if (x === to) return [...seen, from, x];
      if (!seen.includes(x) && x !== from) {
        const p = path(x, to, [...seen, from]);
        if (p) return p;
      }
    }
    return null;
  };
  const cyclic = new Set<string>();
  for (const k of kustomizations) {
    const cycle = path(k, k);
    if (!cycle) continue;
    cyclic.add(k);
    skipped.push({
      path: k,
      reason: `a kustomization that includes itself (${cycle.map((x) => dirOf(x) || '.').join(' → ')}): kubectl kustomize refuses the cycle`,
    });
  }
  const wanted = ctx.options.kustomizations?.map((d) => kustomizationIn(ctx.inputs, normalise(d))).filter((k): k is string => !!k);
  const roots = (wanted?.length ? wanted : kustomizations.filter((k) => !referenced.has(k))).filter((k) => !cyclic.has(k));
  const sets: K8sSet[] = [];
  const rendered = new Set(Object.values(ctx.options.rendered ?? {}).map(normalise));
  for (const root of roots.sort()) {
    const dir = dirOf(root);
    const out = ctx.options.rendered?.[dir];
    if (out && ctx.inputs.get(out)) {
      let objects: K8sObject[];
      try {
        objects = objectsOf(out, ctx.inputs.get(out)!.text);
      } catch (err) {
        skipped.push({ path: out, reason: `could not be read as kubernetes: ${firstLine(err)}` });
        continue;
      }
      // Secrets and ConfigMaps its generators make from files kept elsewhere are kubectl's output
      // here, their values written in: marked as generated, as reading the kustomization marks them.
      let built: K8sObject[];
      try {
        // Read for its generators alone: its notes are about a reading this set does not use.
        const quiet: Context = Object.assign(Object.create(ctx) as Context, { note: () => {} });
        built = buildKustomization(quiet, root);
      } catch {
        built = [];
      }
      const marked = (flag: string) => new Set(built.filter((o) => o.value[flag]).map((o) => `${o.kind}/${o.name}`));
      const [generated, literal] = [marked('__generated'), marked('__literal')];
      for (const o of objects) {
        const id = `${o.kind}/${o.name.replace(KUSTOMIZE_HASH, '')}`;
        if (generated.has(id)) o.value['__generated'] = true;
        if (literal.has(id)) o.value['__literal'] = true;
      }
      sets.push({ root, objects, how: 'rendered with kubectl kustomize' });
      ctx.note(root, `rendered with kubectl kustomize (${out})`);
    } else {
      let objects: K8sObject[];
      try {
        objects = buildKustomization(ctx, root);
      } catch (err) {
        skipped.push({ path: root, reason: `could not be read as kustomization: ${firstLine(err)}` });
        continue;
      }
      sets.push({ root, objects, how: 'read from the resources listed' });
      ctx.note(root, 'read from the resources, components and patches it lists (no kubectl kustomize output among the inputs)');
    }
  }
  const loose = new Map<string, K8sObject[]>();
  for (const t of texts) {
    if (kinds.get(t.path) !== 'kubernetes' || members.has(t.path) || rendered.has(t.path)) continue;
    let objs: K8sObject[];
    try {
      objs = objectsOf(t.path, t.text);
    } catch (err) {
      skipped.push({ path: t.path, reason: `could not be read as kubernetes: ${unparsed(t.text, err)}` });
      continue;
    }
    for (const o of objs.filter(isPatchFragment))
      ctx.note(
        t.path,
        `${o.kind} ${o.name}: no selector and no image, so it is a patch of another object and not a workload (a kustomization applies it only where it lists it among its patches)`,
      );
    objs = objs.filter((o) => !isPatchFragment(o));
    // A Template's objects are one set of their own: `oc process -f` creates them, not an apply of the directory.
    const template = objs.filter((o) => o.template);
    if (template.length) sets.push({ root: null, objects: template, how: 'an OpenShift Template' });
    objs = objs.filter((o) => !o.template);
    if (objs.length) loose.set(dirOf(t.path), [...(loose.get(dirOf(t.path)) ?? []), ...objs]);
  }
  for (const g of linkedDirs(loose, (objects) => sameObjectTwice(objects) !== null)) {
    if (g.dirs.length > 1) {
      for (const j of g.joined) ctx.note(j.dir || '.', `read with ${j.with || '.'} as one set: ${j.why}`);
      sets.push({ root: null, objects: g.objects, how: 'plain manifests' });
      continue;
    }
    const [dir, objects] = [g.dirs[0]!, g.objects];
    // `kubectl apply -f dir` applies a directory's manifests together, unless two files define the
    // same object: then they are alternatives (microsoft/mcp-gateway's local-deployment.yml and
    // cloud-deployment-template.yml), and each file is read on its own.
    const clash = sameObjectTwice(objects);
    if (!clash) {
      sets.push({ root: null, objects, how: 'plain manifests' });
      continue;
    }
    ctx.note(
      dir || '.',
      `${clash.files.join(' and ')} both define ${clash.object}: read as alternatives, each file on its own; name the files that are applied together to read them as one set`,
    );
    const byFile = new Map<string, K8sObject[]>();
    for (const o of objects) byFile.set(o.file, [...(byFile.get(o.file) ?? []), o]);
    for (const [, own] of [...byFile.entries()].sort((a, b) => cmp(a[0], b[0])))
      sets.push({ root: null, objects: own, how: 'plain manifests' });
  }
  return sets;
}

/** The first object (kind, namespace and name) two files of a set both define, if any. */
function sameObjectTwice(objects: K8sObject[]): { object: string; files: string[] } | null {
  const seen = new Map<string, string>();
  for (const o of objects) {
    if (!o.kind || !o.name) continue;
    const ns = String((o.value['metadata'] as Record<string, unknown> | undefined)?.['namespace'] ?? '');
    const id = `${o.kind}/${ns ? `${ns}/` : ''}${o.name}`;
    const first = seen.get(id);
    if (first !== undefined && first !== o.file) return { object: id, files: [first, o.file].sort(cmp) };
    seen.set(id, o.file);
  }
  return null;
}
