import { literal } from '../../shared/regexp.js';
import { dockerfileFacts, imageFacts, privilegeDrop, supervisedRun } from '../build-facts.js';
import type { Context } from '../context.js';
import { scriptCommand } from '../entrypoint-script.js';
import { contextOfDockerfile, mcpEvidenceOfBuild, npmDeclared, runsBinaryOnly } from '../packages.js';
import { isReferenceProxy, recogniseSignet, signetFacts } from '../profiles/signet.js';
import { registryName } from '../registry-server.js';
import { namesMcpRoute, namesMcpServer, runsAuthenticator, runsMcpClient } from '../roles.js';
import { hostCheckOff, legacySse, listenFacts, tlsFlags, tlsVariables } from '../server-args.js';
import { type At, FactSheet } from '../sheet.js';
import { smitheryBuild } from '../smithery.js';
import { startImage, startRelease } from '../start-release.js';
import { discoveredBy } from './discovery.js';
import { configMapsOf, endpoint, ingressFacts, knativeFacts, proxyFacts } from './front.js';
import { clusterAddress, namesService } from './linked-dirs.js';
import { getPath, isKnative, type K8sSet } from './load.js';
import { networkFacts } from './network.js';
import { containerEnv, podFacts } from './pod.js';
import { routeStringsTo } from './route-strings.js';
import { secretsFacts } from './secrets.js';
import { runWords, transportFacts } from './transport.js';
import { arr, isObj, type Obj, selects, stringsIn } from './values.js';
import { programOf, type Workload, workloads } from './workloads.js';

const PUBLISHED = 'its image is published as an MCP server (the MCP Registry label, or a smithery.yaml that builds it)';

/** Operators' resources that ask for an MCP server (ToolHive's MCPServer, VirtualMCPServer, MCPRemoteProxy; ARK's, kagent's MCPServer and ToolServer). */
const OPERATOR_SERVERS = /^(MCPServer|VirtualMCPServer|MCPRemoteProxy|ToolServer)$/i;

/** The container's one serving port (health and metrics ports aside) when a probe of its own fetches it in HTTPS, or null. */
function httpsProbed(c: Obj): { port: unknown; probe: string } | null {
  const serving = arr(c['ports']).filter((cp) => !/health|metrics|probe|status|admin|monitor/i.test(String(cp['name'] ?? '')));
  if (serving.length !== 1) return null;
  const only = serving[0]!;
  for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe'] as const) {
    const get = getPath(c[probe], ['httpGet']);
    if (!isObj(get) || String(get['scheme'] ?? 'HTTP').toUpperCase() !== 'HTTPS') continue;
    if (get['port'] === only['containerPort'] || (only['name'] !== undefined && get['port'] === only['name']))
      return { port: only['containerPort'], probe };
  }
  return null;
}

export function kubernetesDeployments(ctx: Context, set: K8sSet): FactSheet[] {
  const ws = workloads(ctx, set);
  const tied = new Set(ws.map((w) => w.dockerfile?.path));
  const untied = ctx.inputs
    .all()
    .filter((f) => ctx.kinds.get(f.path) === 'dockerfile' && !tied.has(f.path))
    .map((f) => f.path);
  const services = set.objects.filter((o) => o.kind === 'Service' && !isKnative(o));
  const policies = set.objects.filter((o) => o.kind === 'NetworkPolicy');
  const ingresses = set.objects.filter((o) => ['Ingress', 'HTTPRoute', 'Route', 'IngressRoute'].includes(o.kind));
  const configMaps = set.objects.filter((o) => o.kind === 'ConfigMap');
  const secrets = set.objects.filter((o) => o.kind === 'Secret');
  const hpas = set.objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  // Operators' MCP server resources (ARK's, kagent's, ToolHive's MCPServer) that point at a Service.
  const mcpResources = set.objects.filter((o) => /^MCPServer$/i.test(o.kind));
  const servicesOf = (w: Workload) => services.filter((s) => selects(getPath(s.value, ['spec', 'selector']), w.labels));
  const exposedBy = (x: Workload) =>
    servicesOf(x).some((s) => ['LoadBalancer', 'NodePort'].includes(String(getPath(s.value, ['spec', 'type']))));
  const names = (w: Workload) => [w.o.name, ...servicesOf(w).map((s) => s.name)];
  const proxies = ws.filter((w) => w.role?.kind === 'proxy');
  // What a proxy's containers run and read, one string per line: its arguments, environment and
  // ConfigMaps (an nginx.conf, an Envoy bootstrap).
  const text = (w: Workload) =>
    stringsIn([
      arr(w.pod['containers']).map((c) => [c['args'], c['command'], c['env']]),
      configMapsOf(w, configMaps).map((cm) => cm.value['data']),
    ]).join('\n');
  // A Service or workload name as a host of its own (`mcp-server`, `mcp-server.ns.svc.cluster.local:8080`),
  // not a part of another name (`mcp-server-v2`).
  const forwardsTo = (p: Workload, w: Workload) =>
    names(w).some((n) => new RegExp(`(^|[^A-Za-z0-9_.-])${literal(n)}(\\.[a-z0-9-]+)*(?![A-Za-z0-9_-]|\\.[a-z0-9])`, 'm').test(text(p)));

  const wanted = ctx.options.servers ?? [];
  const wantedName = (w: Workload) => wanted.includes(w.o.name);
  // The MCP Inspector is a client, by its image, its command or a name of its own (as in Compose).
  const inspector = (w: Workload) =>
    runsMcpClient(String(w.main.c['image'] ?? ''), w.main.c['command'], w.main.c['args']) ||
    [w.o.name, String(w.main.c['name'] ?? '')].some((n) => /^(mcp[-_]?)?inspector$/i.test(n));
  const candidates = ws.filter(
    (w) => w.role === null && !runsAuthenticator(w.main.c['args'], w.main.c['command']) && !(inspector(w) && !wantedName(w)),
  );
  for (const w of ws.filter((x) => x.role === null && inspector(x) && !wantedName(x)))
    ctx.note(w.o.file, `${w.o.kind} ${w.o.name} runs the MCP Inspector, a client that debugs servers: not read as a server`);
  const evidence = new Map<Workload, string>();
  for (const w of candidates) {
    // An Ingress (or route) whose name, host or paths name MCP: one to an echo server says nothing.
    // The route's name speaks for all of it; otherwise the hosts and paths that lead to this workload.
    const route = ingresses.find((i) =>
      servicesOf(w).some(
        (s) =>
          JSON.stringify(i.value['spec']).includes(`"${s.name}"`) &&
          // The route's name, unless its last word gives what it routes to another role (`mcp-backend-ingress`).
          ((namesMcpRoute(i.name) && namesMcpServer(i.name.replace(/[-_.](ingress|route|httproute|ing)$/i, ''))) ||
            routeStringsTo(i, s.name).some(namesMcpRoute)),
      ),
    );
    if (wanted.includes(w.o.name)) evidence.set(w, 'named with --server');
    else if (route) evidence.set(w, `${route.kind === 'Route' ? 'a' : 'an'} ${route.kind} of an MCP route routes to it`);
    else if (mcpResources.some((m) => servicesOf(w).some((s) => JSON.stringify(m.value['spec']).includes(`"${s.name}"`))))
      evidence.set(w, `an ${mcpResources[0]!.kind} resource names its Service`);
    else if (
      namesMcpServer(w.o.name) ||
      namesMcpServer(programOf(String(w.main.c['image'] ?? ''))) ||
      /mcp/i.test(JSON.stringify(w.main.c['args'] ?? ''))
    ) {
      // Every port it declares is for health or metrics: a controller or operator of the MCP
      // project (kagenti/mcp-gateway's mcp-controller, `--controller` on ports health and metrics), no server.
      const ports = arr(w.main.c['ports']);
      if (
        ports.length &&
        ports.every((p) => /^(health[a-z]*|metrics|probes?|readiness|liveness|webhook|pprof)$/i.test(String(p['name'] ?? '')))
      )
        ctx.note(
          w.o.file,
          `${w.o.kind} ${w.o.name} declares only health and metrics ports (${ports.map((p) => String(p['name'])).join(', ')}): no MCP endpoint, not read as a server; name it with --server if it serves MCP`,
        );
      else evidence.set(w, 'its name, image or arguments name MCP');
    } else if (
      w.dockerfile &&
      mcpEvidenceOfBuild(
        ctx.inputs,
        contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied),
        w.dockerfile.copied,
        runsBinaryOnly(w.dockerfile, ctx.inputs),
      )
    )
      evidence.set(w, 'its image is built from an MCP SDK project');
    // Its image published as an MCP server: the MCP Registry's label, or a smithery.yaml that builds
    // it (anthony-chaudhary/fak's Go server, its Deployment named for the product).
    else if (w.dockerfile && (registryName(w.dockerfile) || smitheryBuild(ctx.inputs, w.dockerfile.path))) evidence.set(w, PUBLISHED);
  }
  // Two workloads of one image: the image's own command serves MCP; a sibling whose `command`
  // replaces it with another program (datanexum/databridge-mcp's Celery workers, yskale/
  // redis_mcp_server's `uvicorn agent_api:app`) runs something else from it, unless it names MCP.
  const runNamesMcp = (w: Workload) => /mcp/i.test(JSON.stringify([w.main.c['command'] ?? '', w.main.c['args'] ?? '']));
  const byImageOnly = (w: Workload) =>
    ['its name, image or arguments name MCP', 'its image is built from an MCP SDK project', PUBLISHED].includes(evidence.get(w) ?? '');
  const siblings = wanted.length
    ? []
    : candidates.flatMap((w) => {
        if (!byImageOnly(w) || w.main.c['command'] === undefined || runNamesMcp(w) || /mcp/i.test(w.o.name)) return [];
        const server = candidates.find(
          (o) =>
            o !== w &&
            evidence.has(o) &&
            String(o.main.c['image'] ?? '') === String(w.main.c['image'] ?? '') &&
            (o.main.c['command'] === undefined || runNamesMcp(o)),
        );
        return server ? [{ w, server }] : [];
      });
  for (const { w, server } of siblings) {
    evidence.delete(w);
    ctx.note(
      w.o.file,
      `${w.o.kind} ${w.o.name} runs another program (its command) from the image ${server.o.kind} ${server.o.name} serves MCP from: not read as a server; name it with --server if it serves MCP`,
    );
  }
  // A gateway is given its backends' addresses and serves MCP itself (TheLukasHenry/proxy-server's
  // mcp-proxy: MCP_FILESYSTEM_URL, and a port named http-mcp): by its name, or a port named for MCP.
  const gateway = (w: Workload) =>
    /[-_](proxy|gateway|router|hub|aggregator|bridge|broker)$/i.test(w.o.name) ||
    arr(w.main.c['ports']).some((p) => /mcp/i.test(String(p['name'] ?? '')));
  // A workload given another MCP server's address to call (Tributary-ai-services/tas-mcp's trigger
  // handlers, `MCP_GRPC_ENDPOINT=tas-mcp-service:50051`) is its client, as in Compose: `mcp` in its
  // name is the project's, not what it serves.
  const clientsNoted = new Set<Workload>();
  if (!wanted.length)
    for (const w of candidates.filter((x) => byImageOnly(x) && !gateway(x))) {
      const own = new Set(names(w));
      const call = [...containerEnv(w, configMaps)].find(([k, v]) => {
        if (!/(^|_)MCP(_|$)/i.test(k) || !/(URL|URI|ENDPOINT|HOST|ADDR|ADDRESS|SERVERS?)$/i.test(k)) return false;
        const host = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([a-z0-9-]+)(\.[a-z0-9-]+)?(\.svc(\.cluster\.local)?)?(:\d+)?(\/\S*)?$/i.exec(
          v.value.trim(),
        );
        return host !== null && !own.has(host[1]!) && !/^(localhost|0|127\.\d+)$/.test(host[1]!) && (!host[2] || !!host[3]);
      });
      // Or it mounts a client's configuration of servers (cfchase/text-to-image-demo's chat backend: a
      // ConfigMap from mcp-config.json, `mcpServers`, for its fastmcp Client), its image an SDK's only.
      const config =
        call || evidence.get(w) !== 'its image is built from an MCP SDK project'
          ? undefined
          : configMapsOf(w, configMaps).find((cm) =>
              Object.values(isObj(cm.value['data']) ? cm.value['data'] : {}).some(
                (v) => typeof v === 'string' && /"mcpServers"\s*:|^\s*mcpServers:/m.test(v),
              ),
            );
      if (!call && !config) continue;
      evidence.delete(w);
      clientsNoted.add(w);
      ctx.note(
        w.o.file,
        call
          ? `${w.o.kind} ${w.o.name} is given an MCP server's address to call (${call[0]}=${call[1].value}): a client of that server, not read as one; name it with --server if it serves MCP`
          : `${w.o.kind} ${w.o.name} mounts ConfigMap ${config!.name}, a client's list of MCP servers (mcpServers), and its image holds an MCP SDK only: a client of those servers, not read as one; name it with --server if it serves MCP`,
      );
    }
  // A proxy forwarding to a workload marks it only when nothing else names the MCP server: an
  // edge proxy also routes to the admin tools beside it (book-api-mcp-docker-compose-bundle's
  // Envoy sends /pgadmin to pgAdmin).
  if (!evidence.size)
    for (const w of candidates) if (proxies.some((p) => forwardsTo(p, w))) evidence.set(w, 'a proxy workload forwards to it');
  let servers = candidates.filter((w) => (wanted.length ? wanted.includes(w.o.name) : evidence.has(w)));
  // The only workload left, in files the caller named (ctx.pointedAt); in a walk, as for Compose, not.
  // Not one just read as a client.
  const only = candidates.length === 1 && !clientsNoted.has(candidates[0]!) ? candidates[0]! : null;
  if (!servers.length && !wanted.length && only && ctx.pointedAt([...new Set(set.objects.map((o) => o.file))], set.root)) {
    servers = candidates;
    evidence.set(only, 'the only workload that is neither a proxy nor a datastore, in files named');
  }
  if (!servers.length) {
    // Manifests with no workload at all (CRDs, RBAC, an Issuer) have nothing to name: no note,
    // unless an operator's resource asks for an MCP server whose workload the operator creates.
    // Whatever else runs beside them (StacklokLabs/toolhive-demo-sandbox's cloudflared tunnel).
    const asked = set.objects.filter((o) => OPERATOR_SERVERS.test(o.kind));
    if (asked.length)
      ctx.note(
        set.root ?? asked[0]!.file,
        `${asked.map((o) => `${o.kind} ${o.name}`).join(', ')}: an operator creates the workload that runs ${asked.length === 1 ? 'this MCP server' : 'these MCP servers'}, and its facts are not read from the resource; check the workload the operator creates (kubectl get deployment,service -o yaml) or declare its facts`,
      );
    if (!ws.length) return [];
    ctx.note(
      set.root ?? candidates[0]?.o.file ?? ws[0]!.o.file,
      `no workload is recognisably an MCP server (candidates: ${candidates.map((c) => c.o.name).join(', ') || 'none'}); name it with --server`,
    );
    return [];
  }

  return servers.map((w) => {
    const sheet = new FactSheet(`kubernetes:${set.root ?? w.o.file}:${w.o.kind}/${w.o.name}`);
    const at = (...p: (string | number)[]) => w.o.at(...p);
    sheet.set('container.used', true, at(), `${w.o.kind} ${w.o.name} (${evidence.get(w)})`);
    sheet.set('container.orchestrator', 'kubernetes', at(), `a Kubernetes ${w.o.kind}`);
    // An image ENTRYPOINT the container keeps may be a script that ends in the server's command.
    const script =
      w.main.c['command'] === undefined && w.dockerfile
        ? scriptCommand(
            w.dockerfile,
            ctx.inputs,
            contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied),
            w.main.c['args'] !== undefined,
          )
        : null;
    transportFacts(sheet, w, servicesOf(w), containerEnv(w, configMaps), script);
    const hpa = hpas.find((h) => getPath(h.value, ['spec', 'scaleTargetRef', 'name']) === w.o.name);
    if (hpa)
      sheet.undecided(
        'deployment.replicas',
        `HorizontalPodAutoscaler ${hpa.name} changes the count between ${String(getPath(hpa.value, ['spec', 'minReplicas']) ?? 1)} and ${String(getPath(hpa.value, ['spec', 'maxReplicas']))}`,
      );
    else if (w.o.kind === 'DaemonSet') sheet.undecided('deployment.replicas', 'a DaemonSet runs one pod per node');
    else {
      const n = w.o.kind === 'Pod' ? 1 : Number(getPath(w.o.value, ['spec', 'replicas']) ?? 1);
      sheet.set(
        'deployment.replicas',
        n,
        at('spec', 'replicas'),
        getPath(w.o.value, ['spec', 'replicas']) === undefined ? 'no replicas: Kubernetes runs one' : `replicas: ${n}`,
      );
    }
    podFacts(sheet, w, set);
    // The server's own listen flag: loopback only, or on the host's network a host port.
    const podEnv = containerEnv(w, configMaps);
    listenFacts(
      sheet,
      script?.words ?? runWords(w),
      script?.at ?? at(...w.main.path),
      w.pod['hostNetwork'] === true ? 'hostNetwork' : null,
      (name) => script?.env.get(name)?.value ?? podEnv.get(name)?.value,
    );
    secretsFacts(sheet, w, configMaps, secrets);
    const image = String(w.main.c['image'] ?? '');
    if (w.dockerfile)
      dockerfileFacts(
        sheet,
        w.dockerfile,
        ctx.inputs,
        contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied),
        at(...w.main.path, 'image'),
      );
    else if (image) imageFacts(sheet, image, at(...w.main.path, 'image'), untied);
    // A runner or an install as the container starts fetches the server then.
    startRelease(
      sheet,
      script?.words ?? runWords(w),
      script?.at ?? at(...w.main.path),
      script ? 'its entrypoint script' : 'the container',
      startImage(
        w.dockerfile,
        image || null,
        w.dockerfile
          ? npmDeclared(ctx.inputs, contextOfDockerfile(ctx.inputs, w.dockerfile.path, w.dockerfile.copied), w.dockerfile.copied)
          : [],
      ),
    );
    // The image reference in the manifest, whatever built it. None (a rendered file whose image
    // line was filtered out, a patch) decides nothing about it.
    // `${MCP_IMAGE}`, filled in by a deploy step, may be a digest or a tag: open (imageFacts says why).
    if (image && /^\$\{?[A-Za-z_]/.test(image))
      sheet.undecided(
        'container.image_pinned_by_digest',
        `image ${image} is a variable a deploy step fills in: what it names is not in the files`,
      );
    else if (image)
      sheet.set('container.image_pinned_by_digest', /@sha256:[0-9a-f]{64}$/.test(image), at(...w.main.path, 'image'), `image: ${image}`);
    else {
      const why = `container ${String(w.main.c['name'] ?? '')} names no image in these files`;
      sheet.undecided('container.image_pinned_by_digest', why);
      if (!w.dockerfile) sheet.undecided('supply_chain.deployed_release', why);
    }
    if (!sheet.has('container.runs_as_root'))
      sheet.undecided(
        'container.runs_as_root',
        "neither the pod nor the image's Dockerfile sets the user: the image's default user decides",
      );
    const routedHere = ingresses.some((i) => servicesOf(w).some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)));
    networkFacts(
      sheet,
      w,
      policies,
      proxies.filter((p) => forwardsTo(p, w)),
      ws,
      routedHere,
    );
    // With neither command nor args, the container runs its image's ENTRYPOINT and CMD, as the build among the files writes them.
    // args alone replace the image's CMD and follow its ENTRYPOINT; a command replaces the ENTRYPOINT and drops the CMD.
    const ownRun: [At, ...unknown[]] =
      w.main.c['args'] === undefined && w.main.c['command'] === undefined && w.dockerfile?.commandAt
        ? [w.dockerfile.commandAt, w.dockerfile.entrypoint]
        : w.main.c['command'] === undefined && w.dockerfile?.entrypointAt
          ? [at(...w.main.path), w.dockerfile.entrypointOnly, w.main.c['args']]
          : [at(...w.main.path), w.main.c['command'], w.main.c['args']];
    legacySse(sheet, ...ownRun);
    hostCheckOff(sheet, ...ownRun);
    if (script && !sheet.has('transport.legacy_sse')) legacySse(sheet, script.at, script.words);
    // A runAsUser in the pod decides who runs; else the script's drop, or supervisord's configuration, does.
    if (
      getPath(w.main.c, ['securityContext', 'runAsUser']) === undefined &&
      getPath(w.pod, ['securityContext', 'runAsUser']) === undefined
    ) {
      if (script) privilegeDrop(sheet, script);
      supervisedRun(sheet, script?.words ?? runWords(w));
    }

    // In front: a proxy workload, an Ingress, or a Service of type LoadBalancer/NodePort.
    const front = proxies.find((p) => forwardsTo(p, w));
    const exposed = servicesOf(w).filter((s) => ['LoadBalancer', 'NodePort'].includes(String(getPath(s.value, ['spec', 'type']))));
    const routed = ingresses.filter((i) => servicesOf(w).some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)));
    if (exposed.length) {
      sheet.set(
        'exposure.behind_reverse_proxy',
        false,
        exposed[0]!.at('spec', 'type'),
        `Service ${exposed[0]!.name} (${String(getPath(exposed[0]!.value, ['spec', 'type']))}) exposes the server itself`,
      );
      sheet.undecided('exposure.endpoint_address_class', 'a LoadBalancer or NodePort address is assigned by the cluster');
      // A NodePort (and a LoadBalancer, which allocates one) opens the port on every node's interfaces.
      sheet.set(
        'container.published_ports',
        'all_interfaces',
        exposed[0]!.at('spec', 'type'),
        `Service ${exposed[0]!.name} (${String(getPath(exposed[0]!.value, ['spec', 'type']))}) publishes the server's port on every node`,
      );
    } else if (front) {
      sheet.set('exposure.behind_reverse_proxy', true, front.o.at(), `${front.o.name} forwards to the server`);
      proxyFacts(ctx, sheet, front, names(w), configMaps, exposedBy(front), recogniseSignet(ctx.inputs, w.dockerfile) !== null);
      const frontServices = servicesOf(front);
      const pExposed = frontServices.find((s) => ['LoadBalancer', 'NodePort'].includes(String(getPath(s.value, ['spec', 'type']))));
      const pRouted = ingresses.filter((i) => frontServices.some((s) => JSON.stringify(i.value['spec']).includes(`"${s.name}"`)));
      endpoint(sheet, pExposed, pRouted, frontServices);
    } else if (routed.length) {
      sheet.set(
        'exposure.behind_reverse_proxy',
        true,
        routed[0]!.at(),
        `${routed[0]!.kind} ${routed[0]!.name} routes to the server through the cluster's ingress controller`,
      );
      ingressFacts(sheet, routed);
      endpoint(sheet, undefined, routed, servicesOf(w));
    } else {
      // A gateway's resource (a kgateway Backend, an Istio VirtualService) that names the Service:
      // what it does with the route is in a form this collector does not read.
      const gateway = servicesOf(w).flatMap((s) => set.objects.filter((o) => namesService(o, s)).map((o) => ({ o, s })))[0];
      const discovery = gateway ? null : discoveredBy(ctx, [w.o, ...servicesOf(w)]);
      if (gateway)
        sheet.undecided(
          'exposure.behind_reverse_proxy',
          `${gateway.o.kind} ${gateway.o.name} (${gateway.o.file}) names the server's Service at ${stringsIn(gateway.o.value['spec']).find((x) => clusterAddress(gateway.s).test(x)) ?? gateway.s.name}: a gateway whose resources are not read may front it`,
        );
      else if (discovery)
        sheet.undecided(
          'exposure.behind_reverse_proxy',
          `the server carries the label ${discovery.key}, which ${discovery.at.file}:${discovery.at.line} names: a gateway that finds its backends by that label may front it`,
        );
      else {
        // A NetworkPolicy that admits only the cluster's ingress controller on the server's port: clients come through it.
        const only = sheet.decisions().find((d) => d.path === 'exposure.ingress_restricted_to_proxy' && d.value === true)?.sources[0];
        if (only && 'file' in only && /ingress controller/.test(only.why))
          sheet.set(
            'exposure.behind_reverse_proxy',
            true,
            only,
            `${only.why}: clients come through it, by an Ingress kept with the cluster, not in the files`,
          );
        else
          sheet.set(
            'exposure.behind_reverse_proxy',
            false,
            at(),
            'no proxy workload, Ingress or route in the files forwards to the server',
          );
      }
      endpoint(sheet, undefined, [], servicesOf(w));
    }
    // Nothing in front terminates TLS: the server's own flags say whether it serves TLS.
    if (!front && !sheet.has('tls.enabled')) {
      const words = [w.main.c['command'], w.main.c['args']].flat().filter((x): x is string => typeof x === 'string');
      const flag = tlsFlags(words);
      const variable = flag ? null : tlsVariables(containerEnv(w, configMaps));
      const https = flag || variable ? null : httpsProbed(w.main.c);
      if (flag && !routed.length) sheet.set('tls.enabled', true, at(...w.main.path), `the server serves TLS itself (${flag} and its key)`);
      else if (variable && !routed.length)
        sheet.set('tls.enabled', true, variable.v.at, `the server serves TLS itself (${variable.name} and its key in its environment)`);
      // Its own probes fetch its one serving port in HTTPS (CasualClark/OpenSpec's scheme: HTTPS on 8443).
      else if (https && !routed.length)
        sheet.set(
          'tls.enabled',
          true,
          at(...w.main.path, https.probe, 'httpGet', 'scheme'),
          `the pod's ${https.probe} fetches its port ${String(https.port)} in HTTPS: the server serves TLS itself`,
        );
      // A LoadBalancer or NodePort that clients reach on port 80, with no certificate annotation for
      // the cloud's load balancer to terminate TLS: plain HTTP (CDataSoftware/cdata-sync-mcp-server),
      // whatever an Ingress beside it serves.
      else if (!flag) {
        // Or on a port the pod's own probe fetches in plain HTTP (rohitg00/kubectl-mcp-server's NodePort
        // 30800 onto 8000, which its httpGet probe checks without scheme HTTPS).
        const plainProbed = (p: Obj) => {
          const target = p['targetPort'] ?? p['port'];
          const c = w.main.c;
          const named = arr(c['ports']).find((cp) => cp['name'] === target)?.['containerPort'];
          return (['livenessProbe', 'readinessProbe', 'startupProbe'] as const).some((k) => {
            const get = getPath(c[k], ['httpGet']);
            if (!isObj(get) || String(get['scheme'] ?? 'HTTP').toUpperCase() !== 'HTTP') return false;
            const port = get['port'];
            return (
              port === target ||
              (named !== undefined && port === named) ||
              (typeof port === 'string' && arr(c['ports']).find((cp) => cp['name'] === port)?.['containerPort'] === target)
            );
          });
        };
        const aside = (p: Obj) =>
          [p['name'], p['targetPort']].some((x) => typeof x === 'string' && /health|metrics|probe|status|admin|monitor/i.test(x));
        const serving = (ports: Obj[]) => ports.filter((p) => !aside(p));
        let why = '';
        const plain = exposed.find((svc) => {
          if (Object.keys((getPath(svc.value, ['metadata', 'annotations']) ?? {}) as Obj).some((k) => /ssl|tls|cert/i.test(k)))
            return false;
          const ports = arr(getPath(svc.value, ['spec', 'ports']));
          if (ports.some((p) => p['port'] === 80)) why = 'takes clients on port 80, with no certificate for its load balancer: plain HTTP';
          // Only the one port left when health and metrics ports are set aside (aRustyDev/pcf-mcp's http
          // beside metrics): beside others, the probed one may be a health port, not MCP's.
          else if (serving(ports).length === 1 && plainProbed(serving(ports)[0]!))
            why = "takes clients on a port the pod's own probe fetches in plain HTTP, with no certificate for its load balancer";
          else return false;
          return true;
        });
        if (plain)
          sheet.set(
            'tls.enabled',
            false,
            plain.at('spec', 'ports'),
            `Service ${plain.name} (${String(getPath(plain.value, ['spec', 'type']))}) ${why}`,
          );
      }
    }
    if (isKnative(w.o)) knativeFacts(sheet, w);
    const signet = recogniseSignet(ctx.inputs, w.dockerfile);
    if (signet) {
      ctx.note(w.dockerfile!.path, signet);
      const env = containerEnv(w, configMaps);
      const ref = front && isReferenceProxy(ctx.inputs, front.dockerfile) ? front : null;
      const proxyEnv = ref ? containerEnv(ref, configMaps) : null;
      const tlsDir = proxyEnv?.get('SIGNET_TLS_DIR')?.value || '/etc/signet/tls';
      const mountIndex = ref ? arr(ref.main.c['volumeMounts']).findIndex((m) => m['mountPath'] === tlsDir) : -1;
      signetFacts(
        sheet,
        {
          env,
          platform: 'kubernetes',
          behindProxy: sheet.get('exposure.behind_reverse_proxy') === true,
          replicas: sheet.get('deployment.replicas') as number | undefined,
        },
        ref && proxyEnv
          ? {
              env: proxyEnv,
              tlsMount: mountIndex >= 0 ? ref.o.at(...ref.main.path, 'volumeMounts', mountIndex) : null,
              at: ref.o.at(),
              facesClients: exposedBy(ref),
            }
          : null,
      );
      // The signing key file: mode from the Secret volume mounted over its directory.
      const keyFile = env.get('SIGNET_SIGNING_KEY_FILE')?.value;
      const mounts = arr(w.main.c['volumeMounts']);
      const m = keyFile ? mounts.find((x) => keyFile.startsWith(`${String(x['mountPath']).replace(/\/$/, '')}/`)) : undefined;
      const vol = m ? arr(w.pod['volumes']).find((v) => v['name'] === m['name']) : undefined;
      const mode = isObj(vol?.['secret']) ? (vol['secret'] as Obj)['defaultMode'] : undefined;
      if (typeof mode === 'number')
        sheet.set(
          'signing_key.file_mode_restricted',
          (mode & 0o007) === 0,
          w.o.at(...w.spec, 'volumes'),
          `Secret volume ${String(vol!['name'])} with defaultMode 0${mode.toString(8)}`,
        );
    }
    return sheet;
  });
}
