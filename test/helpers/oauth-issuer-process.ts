// The test authorization server (test/oauth-issuer/issuer.mjs, oidc-provider) as a process on loopback.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export interface IssuerProcess {
  issuer: string;
  logs(): string;
  rotate(): Promise<string>;
  stats(): Promise<{ jwks_fetches: number; kids: string[] }>;
  stop(): Promise<void>;
}

export async function startIssuerProcess(resources: string[]): Promise<IssuerProcess> {
  const proc = spawn(process.execPath, [join(ROOT, 'test/oauth-issuer/issuer.mjs')], {
    env: { PATH: process.env['PATH'] ?? '', ISSUER_PORT: '0', ISSUER_RESOURCES: resources.join(',') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  proc.stdout!.on('data', (c: Buffer) => (logs += c));
  proc.stderr!.on('data', (c: Buffer) => (logs += c));
  const deadline = Date.now() + 15_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /issuer listening on port \d+ as (\S+)/.exec(logs))) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`issuer did not start:\n${logs}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const issuer = m[1]!;
  return {
    issuer,
    logs: () => logs,
    rotate: async () => ((await (await fetch(`${issuer}/_test/rotate`, { method: 'POST' })).json()) as { kid: string }).kid,
    stats: async () => (await (await fetch(`${issuer}/_test/stats`)).json()) as { jwks_fetches: number; kids: string[] },
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
