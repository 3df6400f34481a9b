// The compose stack's first API key: minted on first start when the store is empty, kept in
// `initial-api-key` beside the store (mode 0600) so the operator can print it once, and
// removed as soon as it is no longer the live first key (revoked, rotated, expired), as
// GitLab removes its initial root password file: a plaintext key must not outlive its use.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../shared/atomic-file.js';
import { parseDuration } from '../shared/duration.js';
import { checkApiKeyFormat } from './format.js';
import { DEFAULT_KEY_LIFETIME } from './lifetime.js';
import { type KeyRecord, type KeyStore, statusOf } from './store.js';

/** Beside the store: the zero-config first key, kept so `cat` can show it once more. */
export const INITIAL_KEY_FILE = 'initial-api-key';

export const initialKeyFile = (s: KeyStore) => join(dirname(s.path), INITIAL_KEY_FILE);

/** The first key, created (and written beside the store) when the store holds none; null otherwise. */
export async function mintFirstKey(s: KeyStore): Promise<KeyRecord | null> {
  return s.update((file) => {
    if (file.keys.length > 0) return null;
    const now = new Date();
    const added = s.addTo(file, 'initial', new Date(now.getTime() + parseDuration(DEFAULT_KEY_LIFETIME, 'the default lifetime')), now);
    writeAtomic(initialKeyFile(s), `${added.key}\n`, 0o600, { exclusive: false });
    return added.record;
  });
}

/**
 * Removes the initial key file when it holds key `id` (or a malformed key). A file that cannot
 * be removed is said, never ignored: the returned message, for the caller to print.
 */
export function forgetInitialKey(s: KeyStore, id: string): string | null {
  const file = initialKeyFile(s);
  let held: string;
  try {
    held = readFileSync(file, 'utf8').trim();
  } catch {
    return null; // no initial key file
  }
  const check = checkApiKeyFormat(held);
  if (check.ok && check.id !== id) return null;
  try {
    rmSync(file);
    return null;
  } catch (err) {
    return `${file} still holds a key that no longer works and could not be removed (${(err as NodeJS.ErrnoException).code ?? 'error'}): delete it`;
  }
}

/**
 * Every start: the file goes once its key is no longer the live first key, however that happened
 * (rotated or revoked by a run that could not remove it, expired, edited away). What to say, or null.
 */
export function forgetStaleInitialKey(s: KeyStore): string[] {
  const file = initialKeyFile(s);
  let held: string;
  try {
    held = readFileSync(file, 'utf8').trim();
  } catch {
    return [];
  }
  const check = checkApiKeyFormat(held);
  const record = check.ok ? s.read().keys.find((k) => k.id === check.id) : undefined;
  if (record && record.rotated_to === null && statusOf(record, Date.now()) === 'active') return [];
  const problem = forgetInitialKey(s, check.ok ? check.id : '');
  return [...(problem ? [problem] : []), `removed ${file}: the key it held is no longer the live first key`];
}
