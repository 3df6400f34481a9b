import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { proxySecretFile } from './proxy-secret.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? 'nginx';
export interface RenderResult {
  code: number | null;
  stderr: string;
}

/** Runs proxy/render.sh exactly as the container does, with the given environment. */
export function renderProxy(env: Record<string, string>): RenderResult {
  const r = spawnSync('sh', [join(ROOT, 'proxy/render.sh')], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr };
}

export interface NginxProcess {
  proc: ChildProcess;
  accessLog: () => string;
  errorLog: () => string;
  stop(): Promise<void>;
}

/** Starts Debian's nginx on a configuration rendered by render.sh into `dir`. */
export async function startNginx(dir: string, port: number): Promise<NginxProcess> {
  const conf = join(dir, 'conf', 'nginx.conf');
  // nginx writes its pid file once every listener is bound: until then (and for good, when the
  // port was taken meanwhile: nginx retries, then exits) a connection could reach another process.
  const pidFile = /^pid\s+([^;\s]+);/m.exec(readFileSync(conf, 'utf8'))?.[1];
  const proc = spawn(NGINX, ['-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c));
  proc.stderr!.on('data', (c: Buffer) => (out += c));
  const bound = () => pidFile === undefined || (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(proc.pid));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited ${proc.exitCode}: ${out}`);
    // A TCP connection, not an HTTP request: a PROXY-protocol or TLS listener answers no plain request.
    const ok =
      bound() &&
      (await new Promise<boolean>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port }, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      }));
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`nginx did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  return {
    proc,
    accessLog: () => read('access.log'),
    errorLog: () => read('error.log') + out,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGQUIT');
      }),
  };
}

/** The environment render.sh needs to write a process-stack configuration under `dir`. */
export function processProxyEnv(
  dir: string,
  listenPort: number,
  upstreamPort: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SIGNET_UPSTREAM: `127.0.0.1:${upstreamPort}`,
    SIGNET_PROXY_LISTEN: `127.0.0.1:${listenPort}`,
    SIGNET_PROXY_CONF_DIR: join(dir, 'conf'),
    SIGNET_PROXY_RUNTIME_DIR: join(dir, 'run'),
    SIGNET_PROXY_ACCESS_LOG: join(dir, 'access.log'),
    SIGNET_PROXY_ERROR_LOG: join(dir, 'error.log'),
    // nginx starts as root here: its workers stay root, to reach the test's 0700 temporary folders
    // (the container runs everything as its own uid).
    SIGNET_PROXY_WORKER_USER: 'root',
    SIGNET_TLS_DIR: join(dir, 'tls'),
    // The proxy's credential towards the server (the server gets the same file: proxySecretFile).
    SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
    ...extra,
  };
}

/** The first port of the kernel's ephemeral range, which every port-0 bind, outgoing connection and published Docker port draws from. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const bindable = (port: number) =>
  new Promise<number | null>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      const bound = (s.address() as { port: number }).port;
      s.close(() => resolve(bound));
    });
  });

/**
 * A free TCP port on loopback, for a process that cannot bind port 0 and say which it got
 * (nginx). Chosen below the ephemeral range: between this check and that process's bind, a
 * process binding port 0 (another suite's server) cannot be handed the same port.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let i = 0; low > 11_024 && i < 20; i++) {
    const port = await bindable(10_000 + randomInt(low - 10_000));
    if (port !== null) return port;
  }
  const port = await bindable(0);
  if (port === null) throw new Error('no free port on 127.0.0.1');
  return port;
}
