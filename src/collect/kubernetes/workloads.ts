// The workloads among the objects: each pod spec, its main container, the role of its image and
// the Dockerfile that builds it.
import { posix } from 'node:path';
import type { Context } from '../context.js';
import type { DockerfileInfo } from '../dockerfile/read.js';
import { dockerfileBuiltAs, dockerfileFor } from '../own-image.js';
import { builtRole, imageRole, namesMcpServer, type Role, repository } from '../roles.js';
import { getPath, type K8sObject, type K8sSet, podSpecPath } from './load.js';
import { arr, isObj, type Obj } from './values.js';

export interface Workload {
  o: K8sObject;
  spec: (string | number)[];
  pod: Obj;
  labels: Obj;
  main: { c: Obj; path: (string | number)[] };
  role: Role;
  dockerfile: DockerfileInfo | null;
}

/**
 * The part of an image reference that names the program: a `ko://` reference is a Go package path
 * (`ko://github.com/Cali0707/AutoMCP/demo`), whose host, owner and repository name the project, not it.
 */
export const programOf = (image: string): string => (image.startsWith('ko://') ? image.replace(/^ko:\/\/([^/]+\/){3}/, '') : image);

/**
 * The Dockerfile an OpenShift BuildConfig of the set builds `image` from: its output ImageStreamTag
 * (or image) named like the image, its `dockerStrategy.dockerfilePath` under `source.contextDir`,
 * where the files hold it (rdwj/mcp-server-template's openshift.yaml builds `mcp-server:latest`
 * from Containerfile, and its Deployment runs that image).
 */
function builtByBuildConfig(ctx: Context, set: K8sSet, image: string): DockerfileInfo | null {
  const base = posix.basename(repository(image));
  for (const b of set.objects.filter((x) => x.kind === 'BuildConfig')) {
    const to = getPath(b.value, ['spec', 'output', 'to', 'name']);
    if (typeof to !== 'string' || posix.basename(repository(to)) !== base) continue;
    const dir = String(getPath(b.value, ['spec', 'source', 'contextDir']) ?? '').replace(/^\/+/, '');
    const file = String(getPath(b.value, ['spec', 'strategy', 'dockerStrategy', 'dockerfilePath']) ?? 'Dockerfile');
    const path = posix.normalize(posix.join(dir || '.', file));
    if (ctx.kinds.get(path) === 'dockerfile') return ctx.dockerfile(path);
  }
  return null;
}

export function workloads(ctx: Context, set: K8sSet): Workload[] {
  const out: Workload[] = [];
  for (const o of set.objects) {
    const spec = podSpecPath(o);
    if (!spec || o.kind === 'Job' || o.kind === 'CronJob') continue;
    // A Helm test hook runs only on `helm test`, never as part of the release.
    if (/(^|,)\s*test(-success)?\s*(,|$)/.test(String(getPath(o.value, ['metadata', 'annotations', 'helm.sh/hook']) ?? ''))) continue;
    const pod = getPath(o.value, spec) as Obj;
    if (!isObj(pod)) continue;
    const containers = arr(pod['containers']);
    if (!containers.length) continue;
    const mainIndex = mainContainer(o.name, containers);
    const c = containers[mainIndex]!;
    const image = String(c['image'] ?? '');
    const df = builtByBuildConfig(ctx, set, image) ?? dockerfileFor(ctx, image) ?? dockerfileBuiltAs(ctx, image);
    if (df) ctx.claimed.add(df.path);
    const role = df ? builtRole(df.base?.image ?? null, df.proxyInstalled?.product ?? null, image) : imageRole(image);
    const tmplLabels = podLabels(o, spec);
    out.push({
      o,
      spec,
      pod,
      labels: tmplLabels,
      main: { c, path: [...spec, 'containers', mainIndex] },
      role,
      dockerfile: df,
    });
  }
  return out;
}

/**
 * The container that is the workload's program: the one named like it, else the one of several
 * that alone is named for MCP where the first is not (rh-ecosystem-edge/assisted-chat's pod runs
 * lightspeed-stack first and assisted-service-mcp fifth), else the first.
 */
function mainContainer(workload: string, containers: Obj[]): number {
  const named = containers.findIndex((c) => c['name'] === workload);
  if (named >= 0) return named;
  const mcp = containers
    .map((c, i) => ({ i, on: namesMcpServer(String(c['name'] ?? '')) || namesMcpServer(programOf(String(c['image'] ?? ''))) }))
    .filter((x) => x.on);
  return mcp.length === 1 && mcp[0]!.i > 0 ? mcp[0]!.i : 0;
}

/** The labels of the pods a workload runs: its pod template's, or a Pod's own. */
export function podLabels(o: K8sObject, spec: (string | number)[]): Obj {
  const labels =
    o.kind === 'Pod' ? getPath(o.value, ['metadata', 'labels']) : getPath(o.value, [...spec.slice(0, -1), 'metadata', 'labels']);
  return isObj(labels) ? labels : {};
}
