import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyStore } from '../../src/api-keys/store.js';
import { CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

function keys(store: string, args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, 'keys', '--store', store, ...args], {
    input,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('signet keys (CLI)', () => {
  const dir = tempDir('signet-keys-cli-');

  it('create prints the key once on stdout; list, verify, rotate and revoke never print a key', () => {
    const store = join(dir, 'one.json');
    const created = keys(store, ['create', '--name', 'ci bot', '--expires', '90d']);
    expect(created.code).toBe(0);
    const key = created.out.trim();
    expect(key).toMatch(/^sgnk_[0-9A-Za-z]{57}$/);
    expect(created.err).toMatch(/shown once/);
    expect(created.err).not.toContain(key);
    const id = key.slice(5, 13);

    const list = keys(store, ['list']);
    expect(list.out).toContain(`${id}  active until`);
    expect(list.out).toContain('name="ci bot"');
    expect(list.out).not.toContain(key.slice(13, 56));
    const json = JSON.parse(keys(store, ['list', '--json']).out);
    expect(json[0]).toMatchObject({ id, status: 'active', name: 'ci bot' });
    expect(json[0].hash).toBeUndefined();

    expect(keys(store, ['verify', key]).code).toBe(0);
    expect(keys(store, ['verify'], `${key}\n`).code).toBe(0);
    const typo = keys(store, ['verify', key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')]);
    expect(typo).toMatchObject({ code: 1 });
    expect(typo.err).toMatch(/checksum mismatch/);

    const rotated = keys(store, ['rotate', id, '--grace', '1h']);
    expect(rotated.code).toBe(0);
    const next = rotated.out.trim();
    expect(next).not.toBe(key);
    expect(rotated.err).toMatch(new RegExp(`rotated ${id} → ${next.slice(5, 13)}`));
    expect(keys(store, ['verify', key]).code).toBe(0); // grace period
    expect(keys(store, ['revoke', next.slice(5, 13)]).code).toBe(0);
    expect(keys(store, ['verify', next]).err).toMatch(/is revoked/);
    expect(keys(store, ['revoke', 'zzzzzzzz']).err).toMatch(/No key with id zzzzzzzz/);
    expect(keys(store, ['create', '--name', 'x', '--expires', 'tomorrow']).err).toMatch(/--expires takes a duration/);
  });

  it("gives every key a 90-day lifetime unless told otherwise (the doctrine's AUTH-005), and `never` opts out", () => {
    const store = join(dir, 'lifetimes.json');
    const before = Date.now();
    const byDefault = keys(store, ['create', '--name', 'default']);
    expect(byDefault.code).toBe(0);
    expect(byDefault.err).toMatch(/expires \d{4}-/);
    const never = keys(store, ['create', '--name', 'forever', '--expires', 'never']);
    expect(never.code).toBe(0);
    const records = new KeyStore(store).read().keys;
    const lifetime = (name: string) => {
      const r = records.find((k) => k.name === name)!;
      return r.expires_at === null ? null : Date.parse(r.expires_at) - Date.parse(r.created_at);
    };
    expect(lifetime('default')).toBe(90 * 86_400_000);
    expect(Date.parse(records.find((k) => k.name === 'default')!.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(lifetime('forever')).toBeNull();
    // init: the zero-config first key expires too, and says when.
    const initStore = join(dir, 'init-lifetime', 'keys.json');
    const init = spawnSync(process.execPath, [CLI, 'keys', '--store', initStore, 'init'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(init.status).toBe(0);
    expect(init.stderr).toMatch(/valid until \d{4}-/);
    const first = new KeyStore(initStore).read().keys[0]!;
    expect(Date.parse(first.expires_at!) - Date.parse(first.created_at)).toBe(90 * 86_400_000);
  });

  it('init with a static key (SIGNET_API_KEY) mints nothing but leaves a store the auth check can read', () => {
    // Compose passes only whether .env sets a key; the auth check it starts anyway is healthy only
    // with a readable store, and `docker compose up --wait` waits for it.
    const store = join(dir, 'static', 'keys.json');
    const init = () =>
      spawnSync(process.execPath, [CLI, 'keys', '--store', store, 'init'], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '', SIGNET_API_KEY: 'set' },
      });
    const first = init();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/SIGNET_API_KEY is set; the proxy uses it as its only key, nothing minted/);
    expect(new KeyStore(store).read().keys).toEqual([]);
    expect(existsSync(store)).toBe(true);
    expect(existsSync(join(dir, 'static', 'initial-api-key'))).toBe(false);
    // A store that holds keys (the operator went from keys to a static key) is kept as it is.
    expect(keys(store, ['create', '--name', 'kept']).code).toBe(0);
    const before = readFileSync(store, 'utf8');
    expect(init().status).toBe(0);
    expect(readFileSync(store, 'utf8')).toBe(before);
  });

  it('loses no key when 20 `keys create` run at once', async () => {
    const store = join(dir, 'concurrent.json');
    const runs = Array.from(
      { length: 20 },
      (_, i) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, [CLI, 'keys', '--store', store, 'create', '--name', `worker-${i}`], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (c) => (out += c));
          child.stderr.on('data', (c) => (err += c));
          child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${err}`))));
        }),
    );
    const created = await Promise.all(runs);
    const s = new KeyStore(store);
    expect(s.read().keys).toHaveLength(20);
    expect(new Set(s.read().keys.map((k) => k.name)).size).toBe(20);
    for (const key of created) expect(s.verify(key)).toMatchObject({ ok: true });
    expect(readFileSync(store, 'utf8')).not.toMatch(/sgnk_/);
  });

  it('refuses to work on a corrupted store, saying so', () => {
    const store = join(dir, 'broken.json');
    writeFileSync(store, '{"format":"signet-keys/1","keys":[');
    const r = keys(store, ['list']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is corrupted/);
  });

  it('init creates a first key once, keeps it printable in initial-api-key, and forgets it when rotated', () => {
    const store = join(dir, 'init', 'keys.json');
    const first = keys(store, ['init']);
    expect(first.code).toBe(0);
    expect(first.err).toMatch(
      /created the first API key, id [0-9A-Za-z]{8}, valid until \S+ \(rotate it with: keys rotate [0-9A-Za-z]{8}\); print it with: docker compose exec auth cat/,
    );
    const initial = readFileSync(join(dir, 'init', 'initial-api-key'), 'utf8').trim();
    expect(first.err).not.toContain(initial);
    expect(keys(store, ['verify', initial]).code).toBe(0);
    expect(keys(store, ['init']).err).toMatch(/already holds keys/);
    expect(new KeyStore(store).read().keys).toHaveLength(1);
    const rotated = keys(store, ['rotate', initial.slice(5, 13), '--grace', '1m']);
    expect(() => readFileSync(join(dir, 'init', 'initial-api-key'))).toThrow();
    // Said where the operator meets it: the file is gone, and where the new key is.
    expect(rotated.err).toContain(
      `signet keys: removed ${join(dir, 'init', 'initial-api-key')}, which held key ${initial.slice(5, 13)}: the new key is printed below, once, and kept nowhere else: store it now\n`,
    );
    expect(rotated.out).toMatch(/^sgnk_\S+\n$/);
    // A rotation of another key removes nothing and says nothing about the file.
    const again = keys(store, ['rotate', rotated.out.trim().slice(5, 13), '--grace', '1m']);
    expect(again.err).not.toContain('removed');
  });

  it('init removes an initial-api-key whose key was rotated by a run that could not remove it (pen test L6)', () => {
    const store = join(dir, 'init-stale', 'keys.json');
    const file = join(dir, 'init-stale', 'initial-api-key');
    expect(keys(store, ['init']).code).toBe(0);
    const initial = readFileSync(file, 'utf8');
    // Another user rotated the key (the file could not be removed then): the file is back.
    keys(store, ['rotate', initial.trim().slice(5, 13), '--grace', '1h']);
    writeFileSync(file, initial, { mode: 0o600 });
    // The old key still works for its grace hour, but it is not the live first key any more.
    expect(keys(store, ['verify', initial.trim()]).code).toBe(0);
    const again = keys(store, ['init']);
    expect(again.code).toBe(0);
    expect(again.err).toMatch(/removed .*initial-api-key: the key it held is no longer the live first key/);
    expect(again.err).not.toContain(initial.trim());
    expect(existsSync(file)).toBe(false);
    // A live first key stays printable across restarts.
    const live = join(dir, 'init-live', 'keys.json');
    keys(live, ['init']);
    keys(live, ['init']);
    expect(existsSync(join(dir, 'init-live', 'initial-api-key'))).toBe(true);
  });
});
