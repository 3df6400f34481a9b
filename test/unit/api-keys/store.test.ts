import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base62Checksum, checkApiKeyFormat, KEY_SCANNER_REGEX, newApiKey } from '../../../src/api-keys/format.js';
import { KeyStore, keyHash, statusOf } from '../../../src/api-keys/store.js';
import { parseDuration } from '../../../src/shared/duration.js';
import { tempDir } from '../../helpers/tmp-doctrine.js';

describe('API key format', () => {
  it('is sgnk_ + 8 id + 43 secret (256 bits) + 6 checksum characters, all base62, matched by the scanner regex', () => {
    const key = newApiKey();
    expect(key).toMatch(/^sgnk_[0-9A-Za-z]{57}$/);
    expect(new RegExp(KEY_SCANNER_REGEX).test(`token=${key};`)).toBe(true);
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(checkApiKeyFormat(key)).toEqual({ ok: true, id: key.slice(5, 13) });
    const keys = new Set(Array.from({ length: 2000 }, () => newApiKey()));
    expect(keys.size).toBe(2000);
  });

  it('rejects typos, truncation and foreign tokens offline', () => {
    const key = newApiKey();
    const typo = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    expect(checkApiKeyFormat(typo)).toEqual({ ok: false, reason: 'checksum mismatch: the key is mistyped or truncated' });
    expect(checkApiKeyFormat(key.slice(0, -1)).ok).toBe(false);
    expect(checkApiKeyFormat(`ghp_${key.slice(5)}`).ok).toBe(false);
    expect(checkApiKeyFormat(`${key}A`).ok).toBe(false);
    expect(base62Checksum('')).toBe('000000');
  });
});

describe('KeyStore', () => {
  const dir = tempDir('signet-store-');

  it('stores only hashes, ids, names, times and last 4 characters, in a 0600 file', async () => {
    const store = new KeyStore(join(dir, 'a', 'keys.json'));
    const { key, record } = await store.create('alice', null);
    const text = readFileSync(store.path, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(13, 56));
    expect(record).toMatchObject({
      id: key.slice(5, 13),
      name: 'alice',
      hash: keyHash(key),
      last4: key.slice(-4),
      revoked_at: null,
      expires_at: null,
    });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(store.verify(key)).toMatchObject({ ok: true });
  });

  it('revokes, expires and rotates with a grace period', async () => {
    const store = new KeyStore(join(dir, 'b', 'keys.json'));
    const t0 = new Date('2030-01-01T00:00:00Z');
    const a = await store.create('a', new Date(t0.getTime() + 60_000), t0);
    const b = await store.create('b', null, t0);
    expect(store.verify(a.key, t0.getTime() + 59_000)).toMatchObject({ ok: true });
    expect(store.verify(a.key, t0.getTime() + 61_000)).toEqual({ ok: false, reason: `key ${a.record.id} is expired` });
    await store.revoke(b.record.id, t0);
    expect(store.verify(b.key, t0.getTime() + 1)).toEqual({ ok: false, reason: `key ${b.record.id} is revoked` });
    const c = await store.create('c', null, t0);
    const rotated = await store.rotate(c.record.id, 3_600_000, t0);
    expect(rotated.record.name).toBe('c');
    expect(rotated.old.rotated_to).toBe(rotated.record.id);
    expect(store.verify(c.key, t0.getTime() + 3_599_000)).toMatchObject({ ok: true });
    expect(store.verify(rotated.key, t0.getTime() + 3_599_000)).toMatchObject({ ok: true });
    expect(store.verify(c.key, t0.getTime() + 3_601_000).ok).toBe(false);
    expect(store.verify(rotated.key, t0.getTime() + 3_601_000)).toMatchObject({ ok: true });
    await expect(store.rotate(b.record.id, 1000, t0)).rejects.toThrow(/only an active key can be rotated/);
    await expect(store.revoke('nope1234')).rejects.toThrow(/No key with id nope1234/);
    const status = Object.fromEntries(store.read().keys.map((k) => [k.id, statusOf(k, t0.getTime() + 3_601_000)]));
    expect(status).toEqual({ [a.record.id]: 'expired', [b.record.id]: 'revoked', [c.record.id]: 'expired', [rotated.record.id]: 'active' });
  });

  it("gives a rotated key its predecessor's lifetime, counted from the rotation", async () => {
    const store = new KeyStore(join(dir, 'lifetime', 'keys.json'));
    const t0 = new Date('2030-01-01T00:00:00Z');
    const ninetyDays = 90 * 86_400_000;
    const a = await store.create('a', new Date(t0.getTime() + ninetyDays), t0);
    // Rotated one day before it expires: the successor lives 90 days from then, not one.
    const later = new Date(t0.getTime() + ninetyDays - 86_400_000);
    const rotated = await store.rotate(a.record.id, 3_600_000, later);
    expect(Date.parse(rotated.record.expires_at!)).toBe(later.getTime() + ninetyDays);
    expect(Date.parse(rotated.old.expires_at!)).toBe(later.getTime() + 3_600_000);
  });

  it('detects a corrupted or truncated store instead of treating it as empty', async () => {
    const store = new KeyStore(join(dir, 'c', 'keys.json'));
    await store.create('x', null);
    const text = readFileSync(store.path, 'utf8');
    for (const bad of [
      text.slice(0, text.length / 2),
      'garbage',
      '{"format":"other","keys":[]}',
      JSON.stringify({ format: 'signet-keys/1', keys: [{ id: 'short' }] }),
    ]) {
      writeFileSync(store.path, bad);
      expect(() => store.read()).toThrow(/is corrupted/);
      await expect(store.create('y', null)).rejects.toThrow(/is corrupted/);
    }
    const dup = JSON.parse(text);
    dup.keys.push(dup.keys[0]);
    writeFileSync(store.path, JSON.stringify(dup));
    expect(() => store.read()).toThrow(/duplicate id/);
  });

  it('parses durations', () => {
    expect(parseDuration('90d', '--expires')).toBe(90 * 86_400_000);
    expect(parseDuration('24h', '--grace')).toBe(86_400_000);
    expect(() => parseDuration('soon', '--grace')).toThrow(/--grace takes a duration like/);
  });
});

describe('store layout', () => {
  it('is plain JSON, one record a line, sorted by id; a store in the old fixed-width layout reads the same', async () => {
    const { serializeStore, parseStore } = await import('../../../src/api-keys/store.js');
    const store = new KeyStore(join(tempDir('signet-layout-'), 'keys.json'));
    for (let i = 0; i < 25; i++) await store.create(`user ${i}@example.org`, i % 2 ? new Date('2031-01-01T00:00:00Z') : null);
    const text = readFileSync(store.path, 'utf8');
    const keys = JSON.parse(text).keys as { id: string }[];
    expect(keys).toHaveLength(25);
    const lines = text.split('\n').filter((l) => l.startsWith('{"id":'));
    expect(lines).toHaveLength(25);
    const ids = keys.map((k) => k.id);
    expect(ids).toEqual([...ids].sort());
    expect(serializeStore({ format: 'signet-keys/1', keys: [] })).toBe('{"format":"signet-keys/1","keys":[]}\n');
    // The earlier fixed-width layout: the same records, padded lines, "record_bytes": 384.
    const old = `${'{"format":"signet-keys/1","record_bytes":384,"keys":['.padEnd(63, ' ')}\n${lines
      .map((l, i) => `${(i ? ',' : ' ') + l.replace(/,$/, '')}`.padEnd(383, ' '))
      .join('\n')}\n]}\n`;
    expect(parseStore(old, 'old.json').keys.map((k) => k.id)).toEqual(ids);
  });
});
