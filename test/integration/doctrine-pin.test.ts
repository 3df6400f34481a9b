// SIGNET_DOCTRINE_HASH: a deployment pins the doctrine it approved, and the server refuses
// to start on any other (the doctrine's SIGN-002), with the real CLI over stdio.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { loadDoctrine } from '../../src/doctrine/load.js';
import { checkPinnedHash } from '../../src/doctrine/publisher.js';
import { connectStdio, type StdioSession } from '../helpers/mcp-client.js';
import { CLI, DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { copyDoctrine, tempDir } from '../helpers/tmp-doctrine.js';

const approved = loadDoctrine(DEFAULT_DOCTRINE).hash;

function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [CLI], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, stdout })));
}

describe('SIGNET_DOCTRINE_HASH', () => {
  const dataDir = tempDir('signet-pin-');
  let session: StdioSession | undefined;
  afterAll(async () => session?.close());

  it('starts on the pinned doctrine and answers from it', async () => {
    session = await connectStdio({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_DOCTRINE_HASH: approved });
    const info = await session.client.callTool({ name: 'doctrine_info', arguments: {} });
    expect((info.structuredContent as { result: { doctrine_hash: string } }).result.doctrine_hash).toBe(approved);
  });

  it('refuses to start on a doctrine that differs from the pinned hash, naming both hashes', async () => {
    const dir = copyDoctrine(DEFAULT_DOCTRINE);
    appendFileSync(join(dir, 'documents', 'changelog.md'), '\nAn edit nobody approved.\n');
    const changed = loadDoctrine(dir).hash;
    const r = await start({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: dir, SIGNET_DOCTRINE_HASH: approved });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`pins ${approved}`);
    expect(r.stderr).toContain(changed);
    expect(r.stdout).toBe('');
  });

  it('takes only a well-formed hash, and nothing when unset', () => {
    expect(() => loadConfig({ SIGNET_DOCTRINE_HASH: 'sha256:ABC' })).toThrow(/SIGNET_DOCTRINE_HASH/);
    expect(loadConfig({ SIGNET_DOCTRINE_HASH: approved }).doctrineHash).toBe(approved);
    expect(loadConfig({}).doctrineHash).toBeUndefined();
    const d = loadDoctrine(DEFAULT_DOCTRINE);
    expect(() => checkPinnedHash(d, undefined)).not.toThrow();
    expect(() => checkPinnedHash(d, approved)).not.toThrow();
    expect(() => checkPinnedHash(d, `sha256:${'0'.repeat(64)}`)).toThrow(/serve the approved doctrine/);
  });
});
