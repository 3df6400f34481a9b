// Issue 26, H1 (pen test 4): a host account whose uid is a container's uid read the stack's
// secrets through /proc/<pid>/root (uid 1000: the proxy secret and the signing key; 101: the
// proxy's rendered configuration; 999: the Redis password) and with them forged calls on the
// backend address and re-signed a flipped verdict. Now: from the Docker host, as an
// unprivileged account with every uid, gid and group set the stack's processes and one-shots
// run with, no secret and no key is readable (a container's files through /proc/<pid>/root, a
// process's environment, open files and working directory, the volumes on the host), so
// neither forgery can be made. Root reads the same places first: the control that they hold
// what the test looks for, and that with it the forgeries work.
import { spawnSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signOutput } from '../../src/signing/sign-output.js';
import { Signer } from '../../src/signing/signer.js';
import { docker } from '../helpers/docker.js';
import { rawRequest, rpc } from '../helpers/http-server.js';
import { CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

export interface HostAccountTarget {
  project: string;
  /** Signet's /mcp on its backend address, as the host reaches it (the forged call, with a proxy secret listed). */
  directUrl?: string;
  /** Where each secret lives, in the containers that hold it (paths inside the container). */
  secrets: { label: string; service: string; path: string }[];
  /** With a signing key listed: a signed doctrine_evaluate output of this stack (the verdict the forgery flips). */
  evaluation?(): Promise<Record<string, unknown>>;
  /** With a signing key listed: the stack's trust file (`signet trust export`), what `signet verify --trust` pins. */
  trustFile?(): Promise<string>;
}

interface Identity {
  uid: number;
  gid: number;
  groups: number[];
}

/** Host pids of a container's processes (docker top reports them as the host sees them). */
async function pidsOf(container: string): Promise<number[]> {
  const out = await docker('top', container, '-eo', 'pid');
  return out
    .split('\n')
    .slice(1)
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

function identityOf(pid: number): Identity | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null; // ended meanwhile
  }
  const field = (name: string) => (new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
  return { uid: Number(field('Uid')[0]), gid: Number(field('Gid')[0]), groups: field('Groups').map(Number) };
}

/** `user: "U:G"` of a container (one-shots have no process left to read it from). */
function identityOfUser(user: string): Identity | null {
  const m = /^(\d+):(\d+)$/.exec(user);
  return m ? { uid: Number(m[1]), gid: Number(m[2]), groups: [Number(m[2])] } : null;
}

/**
 * Reads each path as an account with this identity and no privilege (setpriv: uid, gid and
 * supplementary groups set, no capabilities): what was read, by path.
 */
function readAs(who: Identity | null, paths: string[]): Map<string, string> {
  const script =
    'for f; do if out=$(cat -- "$f" 2>/dev/null | base64 -w0); then [ -n "$out" ] && printf "%s\\t%s\\n" "$f" "$out"; fi; done';
  // Root (the control) reads with a plain shell; an account through setpriv, no capabilities.
  const sh = ['sh', '-c', script, 'sh', ...paths];
  const [command, ...args] =
    who === null
      ? sh
      : [
          'setpriv',
          '--reuid',
          String(who.uid),
          '--regid',
          String(who.gid),
          ...(who.groups.length ? ['--groups', who.groups.join(',')] : ['--clear-groups']),
          '--inh-caps=-all',
          '--bounding-set=-all',
          '--',
          ...sh,
        ];
  const r = spawnSync(command!, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(r.error, 'setpriv and sh run').toBeUndefined();
  const read = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) read.set(line.slice(0, tab), Buffer.from(line.slice(tab + 1), 'base64').toString('utf8'));
  }
  return read;
}

/** Regular files a process holds open, as /proc/<pid>/fd/<n> paths (root lists them). */
function openFiles(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`)
      .map((n) => `/proc/${pid}/fd/${n}`)
      .filter((p) => {
        try {
          return readlinkSync(p).startsWith('/');
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/** The proxy's uid (docs/operations.md, "Accounts and user namespaces"). */
const PROXY_UID = 65521;

/** The host pid a /proc/<pid>/... place belongs to; 0 for a volume on the host. */
function pidOfPlace(path: string): number {
  return Number(/^\/proc\/(\d+)\//.exec(path)?.[1] ?? 0);
}

/** The H1 request: straight to signet's backend address, a forged key id and principal, this secret. */
async function forgedCall(url: string, secret: string): Promise<number> {
  const r = await rawRequest(url, {
    headers: {
      host: 'localhost',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-signet-proxy-auth': secret,
      // Markers of this suite's own (the other H1 test checks that its markers reach no log).
      'x-signet-key-id': 'HostAcct',
      'x-forwarded-for': '7.7.7.7',
    },
    body: rpc('ping', undefined, 'h1-host-account'),
  });
  return r.status;
}

/** The H1 forgery with a key: flip the verdict, re-sign with that key, and let `signet verify --trust` judge it. */
function reSignedVerdict(evaluation: Record<string, unknown>, pem: string, trust: string): number {
  const {
    footer: { output_hash: _h, output_signature: _s, ...footer },
    ...body
  } = evaluation['structuredContent'] as { footer: Record<string, string> } & Record<string, unknown>;
  const result = body['result'] as { verdict: string };
  result.verdict = result.verdict === 'pass' ? 'fail' : 'pass';
  const forged = signOutput(body as never, footer as never, new Signer(createPrivateKey(pem)));
  const dir = tempDir('signet-h1-');
  writeFileSync(join(dir, 'trust.json'), trust);
  writeFileSync(join(dir, 'forged.json'), JSON.stringify({ content: [{ type: 'text', text: forged.text }], isError: false }));
  return spawnSync(process.execPath, [CLI, 'verify', '--trust', join(dir, 'trust.json'), join(dir, 'forged.json')], { encoding: 'utf8' })
    .status!;
}

export function defineHostAccountSuite(name: string, getTarget: () => Promise<HostAccountTarget>): void {
  describe(`${name}: a host account with the stack's uids and gids (H1)`, () => {
    it('reads no secret and no key, in any container, process environment or volume, so neither forgery can be made', async () => {
      const t = await getTarget();
      const containers = (await docker('ps', '-a', '--filter', `label=com.docker.compose.project=${t.project}`, '--format', '{{.Names}}'))
        .trim()
        .split('\n');
      const service = async (c: string) =>
        (await docker('inspect', '--format', '{{index .Config.Labels "com.docker.compose.service"}}', c)).trim();

      // Every identity the stack runs with, and every place a secret could be reached through.
      const identities = new Map<string, Identity>();
      const remember = (i: Identity | null) => {
        if (!i) return;
        identities.set(`${i.uid}:${i.gid}:${i.groups.join(',')}`, i);
        identities.set(`${i.uid}:${i.gid}:`, { ...i, groups: [] });
      };
      const places: string[] = [];
      const secretPlaces: { label: string; service: string; path: string }[] = [];
      for (const c of containers) {
        remember(identityOfUser((await docker('inspect', '--format', '{{.Config.User}}', c)).trim()));
        const running = (await docker('inspect', '--format', '{{.State.Running}}', c)).trim() === 'true';
        if (!running) continue;
        const svc = await service(c);
        for (const pid of await pidsOf(c)) {
          remember(identityOf(pid));
          places.push(`/proc/${pid}/environ`, `/proc/${pid}/cmdline`, ...openFiles(pid));
          for (const s of t.secrets) {
            places.push(`/proc/${pid}/root${s.path}`, `/proc/${pid}/cwd/${s.path.split('/').pop()}`);
            if (s.service === svc) secretPlaces.push({ label: s.label, service: svc, path: `/proc/${pid}/root${s.path}` });
          }
        }
      }
      const volumes = (await docker('volume', 'ls', '--filter', `label=com.docker.compose.project=${t.project}`, '--format', '{{.Name}}'))
        .trim()
        .split('\n')
        .filter(Boolean);
      for (const v of volumes) {
        const mountpoint = (await docker('volume', 'inspect', '--format', '{{.Mountpoint}}', v)).trim();
        for (const s of t.secrets) places.push(join(mountpoint, s.path.split('/').pop()!));
      }
      const nginxWorkers = new Set(
        places
          .filter((p) => p.endsWith('/cmdline'))
          .map(pidOfPlace)
          .filter((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('nginx: worker process');
            } catch {
              return false; // ended meanwhile
            }
          }),
      );
      expect(
        [...identities.values()].every((i) => i.uid !== 0),
        'no process of the stack runs as root',
      ).toBe(true);

      // The control, as root: each secret is where the test looks, and holds what the forgeries need.
      const asRoot = readAs(null, [...places, ...secretPlaces.map((s) => s.path)]);
      // Per secret and service, at least one process shows it (short-lived ones, such as the
      // proxy's upstream watcher's sleep, may have ended since they were listed).
      const secretValues = new Map<string, string>();
      for (const s of t.secrets) {
        const shown = secretPlaces.filter((p) => p.label === s.label && p.service === s.service).map((p) => asRoot.get(p.path));
        const value = shown.find((v) => v !== undefined);
        expect(value, `root reads the ${s.label} in ${s.service}`).toBeTruthy();
        secretValues.set(s.label, value!.trim());
      }
      const values = [...new Set(secretValues.values())];
      // And none of it is in any process's environment or command line, even for root.
      for (const [path, text] of asRoot) {
        if (!/\/(environ|cmdline)$/.test(path)) continue;
        for (const v of values) expect(text.includes(v), `a secret in ${path}`).toBe(false);
      }

      // As each identity: nothing of a secret's place is readable, and nothing read holds a
      // secret. The one exception is nginx's worker processes: nginx marks them dumpable again
      // (ngx_worker_process_init calls prctl(PR_SET_DUMPABLE, 1), for core dumps), so the
      // proxy's own uid can still inspect them; that uid is one no host account has (checked
      // below), and a user namespace closes it (docs/operations.md, "Accounts").
      const found: string[] = [];
      const throughNginxWorkers: string[] = [];
      const candidates = new Set<string>(['']);
      for (const who of identities.values()) {
        const read = readAs(who, places);
        for (const [path, text] of read) {
          if (!secretPlaces.some((s) => s.path === path) && !values.some((v) => text.includes(v))) continue;
          const line = `uid ${who.uid} gid ${who.gid} groups [${who.groups}] read ${path}`;
          if (nginxWorkers.has(pidOfPlace(path))) throughNginxWorkers.push(line);
          else {
            found.push(line);
            for (const m of text.match(/[A-Za-z0-9._~+/=-]{32,512}/g) ?? []) candidates.add(m);
          }
        }
      }
      expect(found).toEqual([]);
      expect(
        throughNginxWorkers.every((l) => l.startsWith(`uid ${PROXY_UID} `)),
        throughNginxWorkers.join('\n'),
      ).toBe(true);
      // No account of this host has any uid or gid the stack uses (the premise of H1).
      for (const who of identities.values()) {
        expect(spawnSync('getent', ['passwd', String(who.uid)]).status, `a host account with uid ${who.uid}`).toBe(2);
        for (const g of [who.gid, ...who.groups])
          expect(spawnSync('getent', ['group', String(g)]).status, `a host group with gid ${g}`).toBe(2);
      }

      // The forgeries: with the secret root read, a forged call on the backend address is served
      // (why no one else may read it); with anything the accounts read, it is refused.
      const proxySecret = secretValues.get('proxy secret');
      if (proxySecret && t.directUrl) {
        expect(await forgedCall(t.directUrl, proxySecret), 'the control: the forged call with the secret').toBe(200);
        for (const c of candidates) expect(await forgedCall(t.directUrl, c), 'the forged call with what the accounts read').toBe(403);
      }
      const signingKey = secretValues.get('signing key');
      if (signingKey && t.evaluation && t.trustFile) {
        const evaluation = await t.evaluation();
        const trust = await t.trustFile();
        expect(reSignedVerdict(evaluation, signingKey, trust), 'the control: a flipped verdict re-signed with the key is trusted').toBe(0);
      }
    }, 300_000);
  });
}
