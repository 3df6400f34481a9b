import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A private copy of a doctrine folder that a test may modify; removed after the suite. */
export function copyDoctrine(from: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'signet-doctrine-')), 'doctrine');
  cpSync(from, dir, { recursive: true });
  afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));
  return dir;
}

export function tempDir(prefix = 'signet-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
