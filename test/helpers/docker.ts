import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DockerComposeEnvironment, Wait } from 'testcontainers';
import { ROOT } from './paths.js';

export const run = promisify(execFile);

/**
 * Settings testcontainers reads from the environment, set by the compose suites when they
 * start (never on import): no Ryuk reaper (it cannot be pulled here; the suites clean up in
 * afterAll), and, for a local engine, the host to probe published ports on. The stack
 * publishes on 127.0.0.1 only (by design); inside a container (/.dockerenv) with a local
 * socket, testcontainers would otherwise probe the bridge gateway (172.17.0.1), where nothing
 * listens. A remote engine (tcp://) keeps testcontainers' own resolution.
 */
export function configureTestcontainers(): void {
  process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';
  const dockerHost = process.env['DOCKER_HOST'] ?? '';
  if (dockerHost === '' || dockerHost.startsWith('unix:')) process.env['TESTCONTAINERS_HOST_OVERRIDE'] ??= '127.0.0.1';
}

/** Is a Docker engine reachable? With SIGNET_REQUIRE_DOCKER=1 a missing engine is a failure, not a skip. */
export function dockerReachable(): boolean {
  const r = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 && r.stdout.trim().length > 0;
}

/**
 * A backend subnet for one compose project under test, within 10.200.0.0/13: one no network of
 * the engine holds, claimed by creating a file of its name with O_EXCL in a folder every test
 * process on this machine shares, so suites running at the same time never ask for the same
 * subnet (a random pick alone collided: "Pool overlaps with other one on this address space").
 * A claim older than CLAIM_TTL_MS is stale (its run is over) and may be taken again.
 */
export function testSubnet(): string {
  const dir = join(tmpdir(), 'signet-test-subnets');
  mkdirSync(dir, { recursive: true });
  const held = engineSubnets();
  for (let i = 0; i < 500; i++) {
    const bytes = randomBytes(2);
    const subnet = `10.${200 + (bytes[0]! % 8)}.${bytes[1]!}.0/24`;
    if (held.has(subnet)) continue;
    const claim = join(dir, subnet.replace('/', '_'));
    try {
      if (Date.now() - statSync(claim).mtimeMs < CLAIM_TTL_MS) continue;
      rmSync(claim, { force: true });
    } catch {
      // No claim yet.
    }
    try {
      writeFileSync(claim, `${process.pid}\n`, { flag: 'wx' });
      return subnet;
    } catch {
      // Another process claimed it a moment ago.
    }
  }
  throw new Error(`no free test subnet in 10.200.0.0/13 (claims in ${dir})`);
}

const CLAIM_TTL_MS = 3 * 60 * 60 * 1000;

/** The subnets of the engine's networks now (none when it cannot be asked). */
function engineSubnets(): Set<string> {
  const ids = spawnSync('docker', ['network', 'ls', '-q'], { encoding: 'utf8', timeout: 20_000 }).stdout?.trim().split(/\s+/) ?? [];
  if (ids.length === 0 || ids[0] === '') return new Set();
  const r = spawnSync('docker', ['network', 'inspect', '--format', '{{range .IPAM.Config}}{{.Subnet}} {{end}}', ...ids], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return new Set((r.stdout ?? '').split(/\s+/).filter(Boolean));
}

export const dockerRequired = process.env['SIGNET_REQUIRE_DOCKER'] === '1';

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * Removes a compose project's containers, networks and volumes by its labels. Used in afterAll
 * when `up()` failed half-way, so a failed run never leaves networks that overlap the next one.
 */
export async function removeComposeProject(project: string): Promise<void> {
  await run('docker', ['compose', '-p', project, 'down', '--volumes', '--remove-orphans', '--timeout', '5']).catch(() => undefined);
}

/**
 * A Signet compose stack as the suites start it: built from the working tree under its own
 * project, waiting for what every variant has (signet healthy, the key, Redis-password,
 * proxy-secret, proxy-config and auth-config one-shots done, the proxy healthy: answering /healthz). A suite adds its profile's or overlay's
 * services.
 */
export function signetCompose(files: string | string[], project: string, environment: Record<string, string>): DockerComposeEnvironment {
  return new DockerComposeEnvironment(ROOT, files)
    .withProjectName(project)
    .withBuild()
    .withEnvironment(environment)
    .withWaitStrategy('signet-1', Wait.forHealthCheck())
    .withWaitStrategy('keys-1', Wait.forOneShotStartup())
    .withWaitStrategy('redis-auth-1', Wait.forOneShotStartup())
    .withWaitStrategy('proxy-auth-1', Wait.forOneShotStartup())
    .withWaitStrategy('proxy-config-1', Wait.forOneShotStartup())
    .withWaitStrategy('auth-config-1', Wait.forOneShotStartup())
    .withWaitStrategy('proxy-1', Wait.forHealthCheck())
    .withStartupTimeout(180_000);
}
