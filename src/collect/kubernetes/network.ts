import { BlockList, isIP } from 'node:net';
import type { FactSheet } from '../sheet.js';
import { getPath, type K8sObject } from './load.js';
import { arr, isObj, selectorOf, selects } from './values.js';
import type { Workload } from './workloads.js';

/** NetworkPolicies add up, and a namespace's default-deny policy often lives with the cluster, not the app. */
const NO_POLICY = (dir: string) =>
  `no NetworkPolicy among the files limits ${dir} for the server; one applied to its namespace elsewhere (a default-deny policy kept with the cluster) would, and that is not in the files`;

/** The clouds' instance metadata services: AWS, GCP, Azure and most others, Alibaba Cloud's, AWS's IPv6 one. */
const METADATA: [string, 'ipv4' | 'ipv6'][] = [
  ['169.254.169.254', 'ipv4'],
  ['100.100.100.200', 'ipv4'],
  ['fd00:ec2::254', 'ipv6'],
];

/** A CIDR as a test of addresses of its own family (an IPv6 block holds no IPv4 address); null when it is not one. */
function block(cidr: unknown): ((address: string, type: 'ipv4' | 'ipv6') => boolean) | null {
  const m = /^([0-9a-fA-F.:]+)\/(\d{1,3})$/.exec(String(cidr ?? ''));
  const family = m && isIP(m[1]!) === 6 ? 'ipv6' : 'ipv4';
  if (!m || !isIP(m[1]!) || Number(m[2]) > (family === 'ipv6' ? 128 : 32)) return null;
  const list = new BlockList();
  list.addSubnet(m[1]!, Number(m[2]), family);
  return (address, type) => type === family && list.check(address, type);
}

/**
 * Whether egress reaches a metadata service's address: the ipBlocks of the rules (grafana-mcp's
 * `0.0.0.0/0` with `except: [169.254.0.0/16]` reaches none). A rule without `to` reaches every address.
 */
function metadataFacts(sheet: FactSheet, rules: { p: K8sObject; r: Record<string, unknown> }[], at: K8sObject): void {
  const WHY = 'whether a metadata service answers depends on the cluster';
  if (rules.some(({ r }) => !Array.isArray(r['to']) || arr(r['to']).length === 0)) {
    sheet.undecided('egress.cloud_metadata_credentials_reachable', `egress reaches any address; ${WHY}`);
    return;
  }
  for (const t of rules.flatMap(({ r }) => arr(r['to']))) {
    const ip = t['ipBlock'];
    if (!isObj(ip)) continue;
    const allowed = block(ip['cidr']);
    const except = Array.isArray(ip['except']) ? ip['except'].map(block) : [];
    if (!allowed || except.some((e) => e === null)) {
      sheet.undecided('egress.cloud_metadata_credentials_reachable', `egress allows ${String(ip['cidr'])}, not read as an address block`);
      return;
    }
    const reached = METADATA.find(([a, type]) => allowed(a, type) && !except.some((e) => e!(a, type)));
    if (reached) {
      sheet.undecided(
        'egress.cloud_metadata_credentials_reachable',
        `egress allows ${String(ip['cidr'])}, which holds ${reached[0]}; ${WHY}`,
      );
      return;
    }
  }
  sheet.set(
    'egress.cloud_metadata_credentials_reachable',
    false,
    at.at('spec', 'egress'),
    `egress allows no metadata service's address (${METADATA.map(([a]) => a).join(', ')}): its address blocks leave them out`,
  );
}

export function networkFacts(
  sheet: FactSheet,
  w: Workload,
  policies: K8sObject[],
  fronts: Workload[],
  ws: Workload[],
  viaIngress: boolean,
): void {
  const mine = policies.filter((p) => selects(selectorOf(p), w.labels) || Object.keys(selectorOf(p)).length === 0);
  const types = (p: K8sObject) =>
    (
      (getPath(p.value, ['spec', 'policyTypes']) as unknown[]) ??
      (getPath(p.value, ['spec', 'egress']) ? ['Ingress', 'Egress'] : ['Ingress'])
    ).map(String);
  const egress = mine.filter((p) => types(p).includes('Egress'));
  if (!egress.length) {
    sheet.undecided('egress.network_restricted', NO_POLICY('egress'));
    sheet.undecided(
      'egress.cloud_metadata_credentials_reachable',
      'egress is open; whether a metadata service answers depends on the cluster',
    );
  } else {
    const rules = egress.flatMap((p) => arr(getPath(p.value, ['spec', 'egress'])).map((r) => ({ p, r })));
    const open = rules.find(
      ({ r }) =>
        // A rule without `to` (or with an empty one) allows every destination on its ports.
        !Array.isArray(r['to']) ||
        arr(r['to']).length === 0 ||
        arr(r['to']).some((t) => /^0\.0\.0\.0\/0$|^::\/0$/.test(String(getPath(t, ['ipBlock', 'cidr']) ?? ''))),
    );
    if (open) {
      sheet.set(
        'egress.network_restricted',
        false,
        open.p.at('spec', 'egress'),
        `NetworkPolicy ${open.p.name} allows egress to any address`,
      );
      metadataFacts(sheet, rules, open.p);
    } else {
      sheet.set(
        'egress.network_restricted',
        true,
        egress[0]!.at('spec', 'policyTypes'),
        `NetworkPolicy ${egress.map((p) => p.name).join(', ')} limits egress`,
      );
      const ipBlocks = rules.flatMap(({ r }) => arr(r['to'])).filter((t) => isObj(t['ipBlock']));
      if (!ipBlocks.length)
        sheet.set(
          'egress.cloud_metadata_credentials_reachable',
          false,
          egress[0]!.at('spec', 'egress'),
          'egress goes to pods and namespaces only, never to an address block',
        );
      else metadataFacts(sheet, rules, egress[0]!);
    }
  }
  const ingress = mine.filter((p) => types(p).includes('Ingress'));
  if (!ingress.length) sheet.undecided('exposure.ingress_restricted_to_proxy', NO_POLICY('ingress'));
  else {
    const rules = ingress.flatMap((p) => arr(getPath(p.value, ['spec', 'ingress'])).map((r) => ({ p, r })));
    const proxyLabels = fronts.map((f) => f.labels);
    const others = rules.filter(
      ({ r }) =>
        !Array.isArray(r['from']) ||
        arr(r['from']).length === 0 ||
        arr(r['from']).some((f) => {
          // Behind an Ingress, the ingress controller's pods (selected by a namespace or labels that name it) are the proxy.
          if (viaIngress && !f['ipBlock'] && JSON.stringify(f).toLowerCase().includes('ingress')) return false;
          const sel = getPath(f, ['podSelector', 'matchLabels']);
          if (!isObj(sel) || f['namespaceSelector'] || f['ipBlock']) return true;
          // A rule for pods that are not the proxy (e.g. a metrics scraper on another port) does not reach the MCP port only if it names other ports.
          return (
            !proxyLabels.some((l) => selects(sel, l)) && !ws.some((x) => x !== w && x.role?.kind === 'datastore' && selects(sel, x.labels))
          );
        }),
    );
    const onMcpPort = others.filter(
      ({ r }) =>
        !Array.isArray(r['ports']) ||
        arr(r['ports']).some((p) => arr(w.main.c['ports']).some((cp) => cp['containerPort'] === p['port'] || cp['name'] === p['port'])),
    );
    const mcpPorts = arr(w.main.c['ports']);
    // Only the cluster's ingress controller on the server's port, with no Ingress among the files
    // (MikkoParkkola/mcp-gateway's policy: namespace ingress-nginx on 39400): that controller is the proxy.
    const onServerPort = rules.filter(
      ({ r }) =>
        !Array.isArray(r['ports']) ||
        arr(r['ports']).some((p) => mcpPorts[0]?.['containerPort'] === p['port'] || mcpPorts[0]?.['name'] === p['port']),
    );
    const controllerOnly =
      !viaIngress &&
      fronts.length === 0 &&
      onServerPort.length > 0 &&
      onServerPort.every(
        ({ r }) =>
          Array.isArray(r['from']) &&
          arr(r['from']).length > 0 &&
          arr(r['from']).every((f) => !f['ipBlock'] && JSON.stringify(f).toLowerCase().includes('ingress')),
      );
    if (controllerOnly) {
      const why = `NetworkPolicy ${onServerPort[0]!.p.name} admits only the cluster's ingress controller on the server's port`;
      sheet.set('exposure.ingress_restricted_to_proxy', true, onServerPort[0]!.p.at('spec', 'ingress'), why);
      return;
    }
    const strict =
      (fronts.length > 0 || viaIngress) &&
      onMcpPort.filter(
        ({ r }) =>
          !Array.isArray(r['ports']) ||
          arr(r['ports']).some((p) => mcpPorts[0]?.['containerPort'] === p['port'] || mcpPorts[0]?.['name'] === p['port']),
      ).length === 0;
    sheet.set(
      'exposure.ingress_restricted_to_proxy',
      strict,
      ingress[0]!.at('spec', 'ingress'),
      strict
        ? `NetworkPolicy ${ingress.map((p) => p.name).join(', ')} admits only the proxy on the server's port`
        : fronts.length === 0 && !viaIngress
          ? // sainiteshGit/dotnet-mcp-k8s: a default-deny policy with no rule admits nobody, and no proxy either.
            'no proxy workload or Ingress is in front: there is no proxy to restrict ingress to'
          : 'a NetworkPolicy rule admits other sources on the server port',
    );
  }
}
