import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
 * A backend subnet for one compose project under test: random within 10.200.0.0/13, so
 * suites (and checkouts) running at the same time on one engine never ask for the same subnet.
 */
export function testSubnet(): string {
  const bytes = randomBytes(2);
  return `10.${200 + (bytes[0]! % 8)}.${bytes[1]!}.0/24`;
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
