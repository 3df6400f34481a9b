import { imageMayHoldSecrets } from '../docker-defaults.js';
import { isPlaceholder, passwordInUrl, SECRET_NAME, saysNoSecret, TOKEN_SHAPES, worstSecrets } from '../secrets.js';
import type { At, FactSheet } from '../sheet.js';
import { getPath, type K8sObject, KUSTOMIZE_HASH } from './load.js';
import { arr, isObj, type Obj } from './values.js';
import type { Workload } from './workloads.js';

/** Names of values that identify rather than authenticate: an app's client or tenant id, a region, a host (not a URL, which may carry a password). */
const IDENTIFIER =
  /(^|_)(CLIENT_ID|TENANT_ID|APP_ID|APPLICATION_ID|ACCOUNT_ID|PROJECT_ID|ORG_ID|ORGANIZATION_ID|SUBSCRIPTION_ID|USER|USERNAME|REGION|ENDPOINT|HOST|PORT)$/i;

/**
 * A connection URL's password written in the manifest; `postgresql://app:$(DB_PASSWORD)@db/x`
 * (Quazmoz/K8SHomelab) is another variable Kubernetes expands there, judged on its own.
 */
const writtenUrlPassword = (value: string): boolean => {
  const password = passwordInUrl(value);
  return password !== null && !/^\$\([A-Za-z_][A-Za-z0-9_]*\)$/.test(password);
};

export function secretsFacts(sheet: FactSheet, w: Workload, configMaps: K8sObject[], secrets: K8sObject[]): void {
  const found: { kind: string; at: At; why: string }[] = [];
  // Values written as placeholders (`PLACEHOLDER_DO_NOT_USE`, `your-api-key-here`) the operator replaces.
  const placeholders: string[] = [];
  // The Secrets the pod reads, by name: a committed one's values are in the files.
  const referenced = new Set<string>();
  const at = (...p: (string | number)[]) => w.o.at(...p);
  arr(w.pod['containers']).forEach((c, ci) => {
    arr(c['env']).forEach((e, ei) => {
      const name = String(e['name'] ?? '');
      const eAt = at(...w.spec, 'containers', ci, 'env', ei);
      const keyRef = getPath(e, ['valueFrom', 'secretKeyRef']);
      if (isObj(keyRef)) {
        // An identifier kept in a Secret beside the credentials it goes with (DustHoff/msgraphmcp's
        // AZURE_CLIENT_ID and AZURE_TENANT_ID, its client secret commented out) is no secret itself.
        if (SECRET_NAME.test(name) || !IDENTIFIER.test(name))
          found.push({ kind: 'environment', at: eAt, why: `${name} from a Secret (secretKeyRef)` });
        referenced.add(String(keyRef['name'] ?? ''));
      } else if (SECRET_NAME.test(name) && !/_FILE$/.test(name)) {
        if (isObj(getPath(e, ['valueFrom', 'configMapKeyRef'])))
          found.push({ kind: 'config_map', at: eAt, why: `${name} from a ConfigMap` });
        else if (typeof e['value'] === 'string' && e['value'] !== '' && placeholder(e['value']) && !saysNoSecret(e['value']))
          placeholders.push(`${name} is a placeholder ("${e['value'].slice(0, 40)}")`);
        else if (typeof e['value'] === 'string' && e['value'] !== '' && !saysNoSecret(e['value']))
          found.push({ kind: 'manifest_plaintext', at: eAt, why: `${name} has a literal value in the manifest` });
      } else if (typeof e['value'] === 'string' && writtenUrlPassword(e['value']))
        found.push({ kind: 'manifest_plaintext', at: eAt, why: `${name} is a connection URL with a password written in the manifest` });
      // A value shaped like a credential whatever names it (kagenti/mcp-gateway's `EXPECTED_AUTH: "Bearer …"`).
      else if (
        typeof e['value'] === 'string' &&
        TOKEN_SHAPES.test(e['value'].trim()) &&
        !placeholder(e['value'].replace(/^\s*Bearer\s+/i, ''))
      )
        found.push({ kind: 'manifest_plaintext', at: eAt, why: `${name} holds a credential by its shape, written in the manifest` });
    });
    arr(c['envFrom']).forEach((e, ei) => {
      if (isObj(e['secretRef'])) referenced.add(String(e['secretRef']['name'] ?? ''));
      if (isObj(e['secretRef']))
        found.push({
          kind: 'environment',
          at: at(...w.spec, 'containers', ci, 'envFrom', ei),
          why: `envFrom Secret ${String(e['secretRef']['name'])}`,
        });
      const ref = e['configMapRef'];
      if (isObj(ref)) {
        const cm = configMaps.find((m) => m.name === ref['name']);
        const key = Object.keys((cm?.value['data'] ?? {}) as Obj).find((k) => SECRET_NAME.test(k) && !/_FILE$/.test(k));
        if (cm && key) found.push({ kind: 'config_map', at: cm.at('data', key), why: `ConfigMap ${cm.name} holds ${key}` });
      }
    });
  });
  // An init container that reads a Secret and writes into a volume the server mounts
  // (enkryptai/secure-mcp-gateway's manifest: it fetches the keys file with a secretKeyRef token).
  const mounts = (c: Obj) => new Set(arr(c['volumeMounts']).map((m) => String(m['name'] ?? '')));
  const served = new Set(arr(w.pod['containers']).flatMap((c) => [...mounts(c)]));
  arr(w.pod['initContainers']).forEach((c, ci) => {
    const secret =
      arr(c['env']).find((e) => isObj(getPath(e, ['valueFrom', 'secretKeyRef']))) ?? arr(c['envFrom']).find((e) => isObj(e['secretRef']));
    const shared = [...mounts(c)].find((n) => served.has(n));
    if (secret && shared)
      found.push({
        kind: 'mounted_files',
        at: at(...w.spec, 'initContainers', ci),
        why: `init container ${String(c['name'] ?? ci)} reads a Secret and writes into volume ${shared}, which the server mounts`,
      });
  });
  for (const v of arr(w.pod['volumes'])) {
    // A projected volume is a secret one when it projects a Secret; a ConfigMap or the API token alone is none.
    if (isObj(v['secret']) || arr(getPath(v, ['projected', 'sources'])).some((src) => isObj(src['secret'])))
      found.push({ kind: 'mounted_files', at: at(...w.spec, 'volumes'), why: `Secret volume ${String(v['name'])}` });
    if (isObj(v['secret'])) referenced.add(String(v['secret']['secretName'] ?? ''));
    for (const src of arr(getPath(v, ['projected', 'sources'])))
      if (isObj(src['secret'])) referenced.add(String(src['secret']['name'] ?? ''));
  }
  // A Secret the server uses whose value is written in the files (not generated from a file kept elsewhere).
  for (const s of secrets) {
    // Generated by kustomize from files kept elsewhere: ours marked, kubectl's rendered output
    // named with its content hash.
    const values = secretValues(s);
    // kubectl's output names a generated Secret with its content hash: written in the files only when made from literals.
    // A SOPS-encrypted Secret (Flux decrypts it as it applies it): the files hold ciphertext, not the values.
    const encrypted = isObj(s.value['sops']) || (values.length > 0 && values.every(([, v, raw]) => /^ENC\[/.test(raw) || /^ENC\[/.test(v)));
    const literal =
      !encrypted && (s.value['__literal'] === true || (!s.value['__generated'] && !KUSTOMIZE_HASH.test(s.name))) && values.length > 0;
    // sapientpants/sonarqube-mcp-server's base Secret: `SONARQUBE_TOKEN: "PLACEHOLDER_DO_NOT_USE"`.
    const secretOnes = values.filter(([k]) => !NOT_SECRET_KEY.test(k));
    const filledIn = ([k, v, raw]: [string, string, string]) => placeholder(v) || placeholder(raw) || unfilled(k, v);
    if (literal && referenced.has(s.name) && secretOnes.every(filledIn)) {
      const [k, v, raw] = secretOnes[0] ?? values[0]!;
      placeholders.push(`Secret ${s.name} holds placeholders ("${(placeholder(v) || unfilled(k, v) ? v : raw).slice(0, 40)}")`);
      continue;
    }
    if (literal && referenced.has(s.name)) {
      found.push({
        kind: 'manifest_plaintext',
        at: s.at(s.value['stringData'] ? 'stringData' : 'data'),
        why: `Secret ${s.name} has its values written in the manifest`,
      });
    }
  }
  if (found.length) {
    const worst = worstSecrets(found);
    sheet.set('container.secrets_source', worst.kind, worst.at, worst.why);
  } else if (placeholders.length) {
    sheet.undecided(
      'container.secrets_source',
      `${placeholders[0]} the operator replaces: where the real value is kept is not in the files`,
    );
  } else {
    // An image built elsewhere: what it holds is not in the manifests.
    if (w.dockerfile)
      sheet.set('container.secrets_source', 'none', at(...w.spec), 'no Secret, secret-named variable or secret volume reaches the pod');
    else sheet.undecided('container.secrets_source', imageMayHoldSecrets(String(w.main.c['image'] ?? 'its image')));
  }
}

/**
 * A value the operator fills in before applying: a placeholder, or a template's whole-value
 * reference (microsoft/mcp-gateway's `gatewaySecret: "${GATEWAY_SECRET}"`, set by its deploy script;
 * ynotopec/infocepo-infra-mcp's `"{{.values.api_key}}"`).
 */
const placeholder = (v: string) => isPlaceholder(v) || /^\s*\$\{?[A-Za-z_][A-Za-z0-9_]*\}?\s*$/.test(v) || /^\s*\{\{[^{}]+\}\}\s*$/.test(v);

/**
 * A Secret key left to be filled: empty (zacharycox-tamu/mcp-checkuptime's `token: ""  # Leave empty
 * if creating via kubectl`), or holding its own name (MoisesTapia/mcp-sonarqube's `sonarqube_token`,
 * base64 of `sonarqube_token`).
 */
const unfilled = (key: string, value: string) => {
  const bare = (x: string) => x.toLowerCase().replace(/[^a-z0-9]/g, '');
  return value.trim() === '' || bare(value) === bare(key);
};

/**
 * Keys a Secret often carries beside its secrets that are none themselves: who and where
 * (Yugal0708/Waggle-mcp's `NEO4J_USERNAME: neo4j` beside `NEO4J_PASSWORD: REPLACE_WITH_REAL_PASSWORD`).
 */
const NOT_SECRET_KEY =
  /^([\w.-]*[_.-])?(user(name)?|login|host(name)?|port|db|database|db[_-]?name|region|namespace|tenant([_-]?id)?|client[_-]?id|account[_-]?id)$/i;

/**
 * A Secret's keys and values as the pod gets them: `stringData` as written, `data` decoded from
 * base64; the value as written too, since a placeholder left in `data` unencoded
 * (DustHoff/msgraphmcp's `REPLACE_WITH_BASE64_CLIENT_ID`) decodes to noise.
 */
function secretValues(s: K8sObject): [string, string, string][] {
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  const plain = Object.entries((isObj(s.value['stringData']) ? s.value['stringData'] : {}) as Obj).map(
    ([k, v]) => [k, text(v), text(v)] as [string, string, string],
  );
  const encoded = Object.entries((isObj(s.value['data']) ? s.value['data'] : {}) as Obj).map(
    ([k, v]) => [k, Buffer.from(text(v), 'base64').toString('utf8'), text(v)] as [string, string, string],
  );
  return [...plain, ...encoded];
}
