// A gateway that finds its backends by a label (actual-software/mcp-bridge's gateway.yaml:
// `label_selector: mcp.bridge/enabled: "true"`, the label its servers' Services carry): no route
// in the files names the server, yet that gateway may front it. Only a label of a project's own
// domain counts; Kubernetes' own and the common tools' (`app.kubernetes.io/name`) select anything.

import type { Context } from '../context.js';
import type { At } from '../sheet.js';
import { readYaml } from '../yaml-lines.js';
import type { K8sObject } from './load.js';
import { isObj } from './values.js';

const COMMON =
  /(^|\.)(kubernetes\.io|k8s\.io|helm\.sh|openshift\.io|argoproj\.io|istio\.io|linkerd\.io|fluxcd\.io|kustomize\.config\.k8s\.io)$/;

/** A file among the inputs, other than the server's own, that names a label key of its objects; null when none does. */
export function discoveredBy(ctx: Context, objects: K8sObject[]): { key: string; at: At } | null {
  const own = new Set(objects.map((o) => o.file));
  const keys = objects.flatMap((o) => {
    const labels = (o.value['metadata'] as Record<string, unknown> | undefined)?.['labels'];
    return isObj(labels) ? Object.keys(labels) : [];
  });
  for (const key of new Set(keys)) {
    const prefix = key.includes('/') ? key.slice(0, key.indexOf('/')) : null;
    if (!prefix || COMMON.test(prefix)) continue;
    for (const f of ctx.inputs.all()) {
      if (own.has(f.path) || !f.text.includes(key)) continue;
      // In manifests, only what a ConfigMap holds is a program's configuration: another backend's
      // Service carrying the same label selects nothing.
      const kind = ctx.kinds.get(f.path);
      if (kind === 'compose') continue;
      const text = kind === 'kubernetes' ? configMapData(f.text) : f.text;
      if (!text.includes(key)) continue;
      const i = f.text.indexOf(key, kind === 'kubernetes' ? f.text.indexOf('kind: ConfigMap') : 0);
      return { key, at: { file: f.path, line: f.text.slice(0, Math.max(i, 0)).split('\n').length } };
    }
  }
  return null;
}

/** The data of the ConfigMaps a manifest holds, as one text. */
function configMapData(text: string): string {
  try {
    return readYaml(text)
      .filter((d) => isObj(d.value) && d.value['kind'] === 'ConfigMap')
      .map((d) => JSON.stringify((d.value as Record<string, unknown>)['data'] ?? {}))
      .join('\n');
  } catch {
    return '';
  }
}
