// Whether a Kubernetes workload speaks MCP over the network or on its stdin: what it runs names
// the transport, or it declares a port, or a Service reaches a port of it. A pod that does none of
// these (sapientpants/sonarqube-mcp-server's, "stdio transport - no ports needed") may be a stdio
// server reached with `kubectl exec -i`: the files do not say it serves the network.

import { type ScriptCommand, scriptEnv } from '../entrypoint-script.js';
import { healthPortVariable } from '../health-ports.js';
import { transportNamed } from '../server-args.js';
import type { At, FactSheet } from '../sheet.js';
import { getPath, isKnative, type K8sObject } from './load.js';
import { arr, forHealthOnly } from './values.js';
import type { Workload } from './workloads.js';

/** The words the container runs, as the kubelet joins its command and args with the image's ENTRYPOINT and CMD. */
export function runWords(w: Workload): string[] {
  const text = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  const df = w.dockerfile;
  const { command, args } = { command: w.main.c['command'], args: w.main.c['args'] };
  if (command === undefined && args === undefined && df?.commandAt) return df.entrypoint;
  if (command === undefined && df?.entrypointAt) return [...df.entrypointOnly, ...text(args)];
  return [...text(command), ...text(args)];
}

export function transportFacts(
  sheet: FactSheet,
  w: Workload,
  services: K8sObject[],
  env: ReadonlyMap<string, { value: string; at: At }>,
  script: ScriptCommand | null,
): void {
  const at = (...p: (string | number)[]) => w.o.at(...p);
  // What the launcher script exports reaches the command it hands over to, over the container's.
  const values = scriptEnv(new Map([...env].map(([k, v]) => [k, v.value])), script);
  const own = transportNamed(runWords(w), values);
  const named = own ?? (script && !script.branch ? transportNamed(script.words, scriptEnv(new Map(), script)) : null);
  if (named) {
    const where = named.variable
      ? (script?.env.get(named.variable)?.at ?? env.get(named.variable)?.at ?? at(...w.main.path))
      : own
        ? at(...w.main.path)
        : script!.at;
    sheet.set('transport.kind', named.kind, where, named.why);
    if (named.sse) sheet.set('transport.legacy_sse', true, where, `${named.why}: the deprecated HTTP+SSE transport`);
    return;
  }
  if (isKnative(w.o)) {
    sheet.set('transport.kind', 'http', at(), 'a Knative Service serves HTTP requests');
    return;
  }
  // A port named for health or metrics (tas-mcp's postgres server: `health-http` beside a stdio server),
  // or set by a variable so named (its napkin-mcp's `HEALTH_PORT: "8087"`), is no MCP endpoint.
  const vars = new Map([...(w.dockerfile?.env ?? []), ...[...env].map(([k, v]) => [k, v.value] as const)]);
  const all = arr(w.main.c['ports']);
  const healthVar = (p: Record<string, unknown>) => healthPortVariable(String(p['containerPort']), vars);
  const ports = all.filter((p) => !forHealthOnly(p) && !healthVar(p));
  if (ports.length) {
    sheet.set('transport.kind', 'http', at(...w.main.path, 'ports'), `the container declares port ${String(ports[0]!['containerPort'])}`);
    return;
  }
  // A Service's targetPort by number reaches the pod whatever it declares, unless it is one of those health ports.
  const healthPorts = new Set(all.map((p) => String(p['containerPort'])));
  const reaching = services.find((s) =>
    arr(getPath(s.value, ['spec', 'ports'])).some((p) => {
      const target = String(p['targetPort'] ?? p['port'] ?? '');
      return /^\d+$/.test(target) && !healthPorts.has(target);
    }),
  );
  if (reaching) {
    sheet.set('transport.kind', 'http', reaching.at('spec', 'ports'), `Service ${reaching.name} sends traffic to a port of it`);
    return;
  }
  if (all.length) {
    sheet.undecided(
      'transport.kind',
      `the container declares only ports for health or metrics (${all.map((p) => (healthVar(p) ? `${String(p['containerPort'])}, its ${healthVar(p)}` : String(p['name']))).join('; ')}), and what it runs names no transport: whether it serves MCP on the network is in its code`,
    );
    return;
  }
  if (w.dockerfile?.expose) {
    sheet.set('transport.kind', 'http', w.dockerfile.expose.at, `EXPOSE ${w.dockerfile.expose.ports} in its image`);
    return;
  }
  sheet.undecided(
    'transport.kind',
    'the container declares no port, no Service reaches a port of it, and what it runs names no transport: a stdio server (kubectl exec -i, attach) looks the same',
  );
}
