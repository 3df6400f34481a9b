// The built `signet token-verifier` as a process, for the process-stack OAuth tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './paths.js';

export interface Verifier {
  proc: ChildProcess;
  logs: () => string;
  stop(): Promise<void>;
}

export async function startVerifier(env: Record<string, string>): Promise<Verifier> {
  const proc = spawn(process.execPath, [CLI, 'token-verifier'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  proc.stdout!.on('data', (c: Buffer) => (logs += c));
  proc.stderr!.on('data', (c: Buffer) => (logs += c));
  const deadline = Date.now() + 15_000;
  while (!/token verifier listening/.test(logs)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`token verifier did not start:\n${logs}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    logs: () => logs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
