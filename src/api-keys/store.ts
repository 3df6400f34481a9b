// The API key store: one JSON file the auth check reads, the CLI writes. It holds, per key,
// only sha256 of the key, an id, a name, times and the last 4 characters: never a key.
// Writes take a lock (concurrent CLI runs lose nothing) and replace the file atomically.
import { timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { SignetError } from '../errors.js';
import { ajv } from '../schema/ajv.js';
import { writeAtomic } from '../shared/atomic-file.js';
import { sha256Tag } from '../shared/hash.js';
import { SHA256_TAG_PATTERN } from '../shared/sha256-tag.js';
import { checkApiKeyFormat, KEY_PREFIX, newApiKey } from './format.js';

export const STORE_FORMAT = 'signet-keys/1';

// On disk: plain JSON, one record a line, sorted by id (diffs and backups stay readable). The
// auth check parses it once and again only when it changes. Stores written in the earlier
// fixed-width layout (padded lines, "record_bytes": 384) read the same way.

export interface KeyRecord {
  id: string;
  name: string;
  /** sha256:<hex> of the whole key string. */
  hash: string;
  last4: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** Set on a key replaced by `rotate`: the id of its successor. */
  rotated_to: string | null;
}

export interface KeyStoreFile {
  format: typeof STORE_FORMAT;
  keys: KeyRecord[];
}

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

export function keyHash(key: string): string {
  return sha256Tag(key);
}

export function statusOf(record: KeyRecord, now: number): ApiKeyStatus {
  if (record.revoked_at !== null && Date.parse(record.revoked_at) <= now) return 'revoked';
  if (record.expires_at !== null && Date.parse(record.expires_at) <= now) return 'expired';
  return 'active';
}

const ISO = '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z$';
const time = { type: 'string', pattern: ISO };
const nullableTime = { type: ['string', 'null'], pattern: ISO };
const ID = '^[0-9A-Za-z]{8}$';

/** The store's records, as JSON Schema. */
const STORE_SCHEMA = {
  type: 'object',
  required: ['format', 'keys'],
  properties: {
    format: { const: STORE_FORMAT },
    record_bytes: { const: 384 },
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'hash', 'last4', 'created_at', 'expires_at', 'revoked_at', 'rotated_to'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: ID },
          name: { type: 'string', pattern: '^[\\w .@-]{1,64}$' },
          hash: { type: 'string', pattern: SHA256_TAG_PATTERN },
          last4: { type: 'string', pattern: '^[0-9A-Za-z]{4}$' },
          created_at: time,
          expires_at: nullableTime,
          revoked_at: nullableTime,
          rotated_to: { type: ['string', 'null'], pattern: ID },
        },
      },
    },
  },
} as const;
const validateStore = ajv.compile(STORE_SCHEMA);

/** Parses and checks a store; a corrupted store is an error naming what is wrong, never "no keys". */
export function parseStore(text: string, path: string): KeyStoreFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new SignetError(
      'store_invalid',
      `Key store ${path} is corrupted (not JSON). Restore it from a backup, or move it away and create keys again.`,
    );
  }
  const bad = (why: string): never => {
    throw new SignetError(
      'store_invalid',
      `Key store ${path} is corrupted (${why}). Restore it from a backup, or move it away and create keys again.`,
    );
  };
  if (!validateStore(data)) {
    const e = validateStore.errors?.[0];
    const where = e?.instancePath
      ? e.instancePath
          .slice(1)
          .replace(/\//g, '.')
          .replace(/^keys\.(\d+)/, 'keys[$1]')
      : '';
    bad(where ? `${where.split('.')[0]} is malformed` : `expected {"format":"${STORE_FORMAT}","keys":[...]}`);
  }
  const ids = new Set<string>();
  for (const k of (data as KeyStoreFile).keys) {
    if (ids.has(k.id)) bad(`duplicate id ${k.id}`);
    ids.add(k.id);
  }
  return data as KeyStoreFile;
}

/** The layout described above: one record a line, id first, sorted by id. */
export function serializeStore(store: KeyStoreFile): string {
  const records = [...store.keys].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const lines = records.map((k) =>
    JSON.stringify({
      id: k.id,
      name: k.name,
      hash: k.hash,
      last4: k.last4,
      created_at: k.created_at,
      expires_at: k.expires_at,
      revoked_at: k.revoked_at,
      rotated_to: k.rotated_to,
    }),
  );
  return `{"format":"${STORE_FORMAT}","keys":[${lines.length ? `\n${lines.join(',\n')}\n` : ''}]}\n`;
}

export class KeyStore {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  read(): KeyStoreFile {
    if (!existsSync(this.path)) return { format: STORE_FORMAT, keys: [] };
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      throw new SignetError('store_invalid', `Key store ${this.path} is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return parseStore(text, this.path);
  }

  /** Read-modify-write under an exclusive lock; the file is replaced atomically (mode 0600). */
  async update<T>(change: (store: KeyStoreFile) => T): Promise<T> {
    let release: (() => Promise<void>) | null = null;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    try {
      // The lock is a directory next to the store; stale locks (a crashed CLI) expire after 10 s.
      release = await lockfile.lock(this.path, {
        realpath: false,
        stale: 10_000,
        retries: { retries: 100, factor: 1.2, minTimeout: 20, maxTimeout: 250, randomize: true },
      });
    } catch (err) {
      throw new SignetError('store_invalid', `Cannot lock key store ${this.path}: ${(err as Error).message}`);
    }
    try {
      const store = this.read();
      const result = change(store);
      writeAtomic(this.path, serializeStore(store), 0o600, { exclusive: false });
      return result;
    } finally {
      await release();
    }
  }

  /** Adds a new key; returns the key (shown once) and its record. */
  async create(name: string, expiresAt: Date | null, now = new Date()): Promise<{ key: string; record: KeyRecord }> {
    return this.update((store) => this.addTo(store, name, expiresAt, now));
  }

  /** Adds a key to a store being updated (inside update()). */
  addTo(store: KeyStoreFile, name: string, expiresAt: Date | null, now: Date): { key: string; record: KeyRecord } {
    let key = newApiKey();
    const taken = new Set(store.keys.map((k) => k.id));
    while (taken.has(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8))) key = newApiKey();
    const record: KeyRecord = {
      id: key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8),
      name,
      hash: keyHash(key),
      last4: key.slice(-4),
      created_at: now.toISOString(),
      expires_at: expiresAt ? expiresAt.toISOString() : null,
      revoked_at: null,
      rotated_to: null,
    };
    store.keys.push(record);
    return { key, record };
  }

  async revoke(id: string, now = new Date()): Promise<KeyRecord> {
    return this.update((store) => {
      const record = this.#find(store, id);
      if (record.revoked_at === null || Date.parse(record.revoked_at) > now.getTime()) record.revoked_at = now.toISOString();
      return record;
    });
  }

  /** A new key with the same name; the old one keeps working until now + grace, then stops. */
  async rotate(id: string, graceMs: number, now = new Date()): Promise<{ key: string; record: KeyRecord; old: KeyRecord }> {
    return this.update((store) => {
      const old = this.#find(store, id);
      if (statusOf(old, now.getTime()) !== 'active')
        throw new SignetError('key_invalid', `Key ${id} is ${statusOf(old, now.getTime())}; only an active key can be rotated`);
      // The successor gets the lifetime its predecessor was given, counted from now: rotating a
      // key shortly before it expires must not hand out a key that expires just as soon.
      const lifetime = old.expires_at === null ? null : Date.parse(old.expires_at) - Date.parse(old.created_at);
      const created = this.addTo(store, old.name, lifetime === null ? null : new Date(now.getTime() + lifetime), now);
      const end = new Date(now.getTime() + graceMs).toISOString();
      if (old.expires_at === null || Date.parse(old.expires_at) > Date.parse(end)) old.expires_at = end;
      old.rotated_to = created.record.id;
      return { ...created, old };
    });
  }

  #find(store: KeyStoreFile, id: string): KeyRecord {
    const record = store.keys.find((k) => k.id === id);
    if (!record) throw new SignetError('not_found', `No key with id ${id} (signet keys list shows them)`);
    return record;
  }

  /** Offline verification: format and checksum first (no store access), then the store. */
  verify(key: string, now = Date.now()): { ok: true; record: KeyRecord } | { ok: false; reason: string } {
    const format = checkApiKeyFormat(key);
    if (!format.ok) return format;
    const record = this.read().keys.find((k) => k.id === format.id);
    if (!record) return { ok: false, reason: 'unknown key' };
    const a = Buffer.from(keyHash(key));
    const b = Buffer.from(record.hash);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'unknown key' };
    const status = statusOf(record, now);
    return status === 'active' ? { ok: true, record } : { ok: false, reason: `key ${record.id} is ${status}` };
  }
}
