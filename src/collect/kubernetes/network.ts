import type { FactSheet } from '../sheet.js';
import { getPath, type K8sObject } from './load.js';
import { arr, isObj, selectorOf, selects } from './values.js';
import type { Workload } from './workloads.js';

/** NetworkPolicies add up, and a namespace's default-deny policy often lives with the cluster, not the app. */
const NO_POLICY = (dir: string) =>
  `no NetworkPolicy among the files limits ${dir} for the server; one applied to its namespace elsewhere (a default-deny policy kept with the cluster) would, and that is not in the files`;

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
      sheet.undecided(
        'egress.cloud_metadata_credentials_reachable',
        'egress reaches any address; whether a metadata service answers depends on the cluster',
      );
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
      else
        sheet.undecided(
          'egress.cloud_metadata_credentials_reachable',
          'egress allows address blocks; whether they contain a metadata service is not checked',
        );
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
