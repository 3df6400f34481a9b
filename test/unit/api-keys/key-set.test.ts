// The key store as the auth check holds it: the same verdicts as the store's own verification,
// a change seen at once through the folder's watch, and at the latest one stat interval later
// where no watch works, with no system call per check (issue 28: the auth check's hot path).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { base62Checksum, newApiKey } from '../../../src/api-keys/format.js';
import { KeySet, type KeySetIo } from '../../../src/api-keys/key-set.js';
import { KeyStore } from '../../../src/api-keys/store.js';
import { createLogger } from '../../../src/log.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

const log = createLogger('silent');
const DAY = 86_400_000;

/** The real calls, counted. */
function countingIo(options: { watch?: boolean } = {}): KeySetIo & { stats: number } {
  const io = {
    stats: 0,
    statSync: ((...a: Parameters<typeof fs.statSync>) => {
      io.stats++;
      return fs.statSync(...a);
    }) as typeof fs.statSync,
    readFileSync: fs.readFileSync,
    watch: ((...a: Parameters<typeof fs.watch>) => {
      if (options.watch === false) throw Object.assign(new Error('no watch here'), { code: 'ENOSYS' });
      return fs.watch(...a);
    }) as typeof fs.watch,
  };
  return io;
}

describe('KeySet', () => {
  it('gives the verdicts the store gives: ok, revoked, expired, unknown, checksum, malformed', async () => {
    const store = new KeyStore(join(tempDir('signet-keyset-'), 'keys.json'));
    const t0 = new Date('2030-01-01T00:00:00Z');
    const live = await store.create('live', new Date(t0.getTime() + 10 * DAY), t0);
    const gone = await store.create('gone', null, t0);
    await store.revoke(gone.record.id, new Date(t0.getTime() + DAY));
    const set = new KeySet(store.path, log);
    try {
      const at = (days: number) => t0.getTime() + days * DAY;
      expect(set.check(live.key, at(1))).toEqual({ state: 'ok', record: expect.objectContaining({ id: live.record.id }) });
      expect(set.check(live.key, at(10))).toEqual({ state: 'expired', id: live.record.id });
      expect(set.check(gone.key, at(0.5))).toMatchObject({ state: 'ok' });
      expect(set.check(gone.key, at(1))).toEqual({ state: 'revoked', id: gone.record.id });
      const stranger = newApiKey();
      expect(set.check(stranger)).toEqual({ state: 'unknown', id: stranger.slice(5, 13) });
      // Right id, wrong secret (with a good checksum): unknown, as a stranger.
      const forged = `sgnk_${live.record.id}${stranger.slice(13)}`;
      const withSum = forged.slice(0, 56) + base62Checksum(forged.slice(5, 56));
      expect(set.check(withSum)).toEqual({ state: 'unknown', id: live.record.id });
      const typo = live.key.slice(0, 20) + (live.key[20] === 'a' ? 'b' : 'a') + live.key.slice(21);
      expect(set.check(typo)).toEqual({ state: 'checksum' });
      expect(set.check(live.key.slice(0, -1))).toEqual({ state: 'malformed' });
      for (const k of [live, gone]) expect(store.verify(k.key, at(0.5))).toMatchObject({ ok: true });
    } finally {
      set.close();
    }
  });

  it('refuses a key with a known id but another secret, before and after the real key was seen', async () => {
    // The second presentation of a key is compared with the bytes that matched the digest, with
    // no hash: a look-alike must fail there exactly as it fails against the digest.
    const store = new KeyStore(join(tempDir('signet-keyset-'), 'keys.json'));
    const real = await store.create('real', null);
    const set = new KeySet(store.path, log);
    const withChecksum = (k: string) => k.slice(0, 56) + base62Checksum(k.slice(5, 56));
    const lookAlike = () => withChecksum(`sgnk_${real.record.id}${newApiKey().slice(13)}`);
    // Differs from the real key in the last character of its secret only.
    const oneOff = withChecksum(real.key.slice(0, 55) + (real.key[55] === 'a' ? 'b' : 'a'));
    const refused = { state: 'unknown', id: real.record.id };
    try {
      const before = lookAlike();
      expect(set.check(before)).toEqual(refused);
      expect(set.check(oneOff)).toEqual(refused);
      for (let i = 0; i < 3; i++) expect(set.check(real.key)).toMatchObject({ state: 'ok', record: { id: real.record.id } });
      for (let i = 0; i < 20; i++) expect(set.check(lookAlike())).toEqual(refused);
      expect(set.check(before)).toEqual(refused);
      expect(set.check(oneOff)).toEqual(refused);
      expect(set.check(real.key)).toMatchObject({ state: 'ok' });
    } finally {
      set.close();
    }
  });

  it('checks a thousand keys with one stat, and sees a revocation at once through the watch', async () => {
    const store = new KeyStore(join(tempDir('signet-keyset-'), 'keys.json'));
    const { key, record } = await store.create('k', null);
    const io = countingIo();
    // A stat interval longer than the test: what it sees, it sees through the watch.
    const set = new KeySet(store.path, log, { io, recheckMs: 3_600_000 });
    try {
      for (let i = 0; i < 1000; i++) expect(set.check(key).state).toBe('ok');
      expect(io.stats).toBe(1);
      await store.revoke(record.id);
      await vi.waitFor(() => expect(set.check(key).state).toBe('revoked'), { timeout: 5000, interval: 5 });
      // The store's lock and temporary files come and go: no stat for them.
      const after = io.stats;
      for (let i = 0; i < 1000; i++) set.check(key);
      expect(io.stats).toBe(after);
    } finally {
      set.close();
    }
  });

  it('without a watch, sees a change at the next stat (every RECHECK_MS), and says why a store cannot be used', async () => {
    const dir = tempDir('signet-keyset-');
    const store = new KeyStore(join(dir, 'keys.json'));
    const { key } = await store.create('k', null);
    const io = countingIo({ watch: false });
    const set = new KeySet(store.path, log, { io, recheckMs: 20 });
    try {
      expect(set.check(key).state).toBe('ok');
      fs.writeFileSync(store.path, 'not json');
      await vi.waitFor(() => expect(set.check(key).state).toBe('unavailable'), { timeout: 5000, interval: 5 });
      expect(set.problem).toMatch(/^key store \S+ cannot be parsed \(Key store \S+ is corrupted \(not JSON\)/);
      // A typo is still a typo, whatever the store's state.
      expect(set.check(key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21))).toEqual({ state: 'checksum' });
      fs.rmSync(store.path);
      await vi.waitFor(() => expect(set.problem).toMatch(/cannot be read \(no such file: create keys/), { timeout: 5000, interval: 5 });
    } finally {
      set.close();
    }
  });

  it('takes the first key written into a store that was missing at once, with no watch yet', async () => {
    const store = new KeyStore(join(tempDir('signet-keyset-'), 'not-yet', 'keys.json'));
    const set = new KeySet(store.path, log, { io: countingIo({ watch: false }), recheckMs: 3_600_000 });
    try {
      expect(set.check(newApiKey()).state).toBe('unavailable');
      const { key } = await store.create('first', null);
      expect(set.check(key).state).toBe('ok');
    } finally {
      set.close();
    }
  });
});
