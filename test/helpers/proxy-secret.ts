import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A proxy secret file as compose generates one (64 hex digits, no access for others). */
export function writeProxySecret(dir: string, name = 'proxy-secret'): { path: string; secret: string } {
  const secret = randomBytes(32).toString('hex');
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o440 });
  return { path, secret };
}

/** The process stack's proxy secret under `dir`, written on first use: the proxy and the server read the same file. */
export function proxySecretFile(dir: string): string {
  const path = join(dir, 'proxy-secret');
  if (!existsSync(path)) writeProxySecret(dir);
  return path;
}
