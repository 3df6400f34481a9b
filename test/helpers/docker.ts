import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

export const run = promisify(execFile);


/** Is a Docker engine reachable? With SIGNET_REQUIRE_DOCKER=1 a missing engine is a failure, not a skip. */
export function dockerReachable(): boolean {
  const r = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 && r.stdout.trim().length > 0;
}

export const dockerRequired = process.env['SIGNET_REQUIRE_DOCKER'] === '1';

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}
