// The built `signet auth-check` as a process, for the process-stack tests: it binds the port it is
// given (0: any) and reports it in its start-up line. `as` runs it under another uid and gid, with
// no capability (setpriv), as a container's account would.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './paths.js';

export interface AuthCheck {
  proc: ChildProcess;
  port: number;
  logs: () => string;
  stop(): Promise<void>;
}

export async function startAuthCheck(env: Record<string, string>, as?: { uid: number; gid: number }): Promise<AuthCheck> {
  const command = [process.execPath, CLI, 'auth-check'];
  const account = as
    ? ['setpriv', '--reuid', String(as.uid), '--regid', String(as.gid), '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--']
    : [];
  const [program, ...args] = [...account, ...command];
  const proc = spawn(program!, args, {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', SIGNET_AUTH_CHECK_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  proc.stdout!.on('data', (c: Buffer) => (logs += c));
  proc.stderr!.on('data', (c: Buffer) => (logs += c));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the auth check did not start:\n${logs}`)), 15_000);
    const look = () => {
      const line = logs.split('\n').find((l) => l.includes('"msg":"auth check listening"'));
      if (line) {
        clearTimeout(timer);
        resolve(Number(/"port":(\d+)/.exec(line)![1]));
      }
    };
    proc.stdout!.on('data', look);
    proc.stderr!.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the auth check exited with ${proc.exitCode}:\n${logs}`));
    });
  });
  return {
    proc,
    port,
    logs: () => logs,
    stop: () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}
