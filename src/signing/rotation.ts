// The lifecycle of the generated signing key (`signet signing-key prepare|rotate|revoke`): a next
// key published before it signs, a new key from the next start with the old one kept as retired,
// and revocation of retired keys. Kept apart from keyring.ts so the server's start does not load
// the file lock.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { SignetError } from '../errors.js';
import { writeAtomic } from '../shared/atomic-file.js';
import { KEYRING_NAME, keyName, readKeyring, spkiOf } from './keyring.js';
import {
  checkKeyFilePermissions,
  GENERATED_KEY_NAME,
  generateSigningKeyPem,
  NEXT_KEY_NAME,
  parseSigningKey,
  writeNewKeyFile,
} from './signing-key.js';
import { fingerprint, type TrustedKey } from './trust.js';

/**
 * Runs a change of the key history alone: two rotations at once could each read the history
 * before the other wrote it, and one retired key would be lost (its outputs then refused).
 */
function withHistoryLock<T>(dataDir: string, change: () => T): T {
  let release: () => void;
  try {
    release = lockfile.lockSync(join(dataDir, KEYRING_NAME), { realpath: false, stale: 30_000 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    throw new SignetError(
      'key_invalid',
      `Another signet signing-key command is changing ${join(dataDir, KEYRING_NAME)}: try again when it is done`,
    );
  }
  try {
    return change();
  } finally {
    release();
  }
}

/** The public key of the prepared next key, or null when none was prepared. */
export function nextKey(dataDir: string): string | null {
  const path = join(dataDir, NEXT_KEY_NAME);
  if (!existsSync(path)) return null;
  checkKeyFilePermissions(path, 'next signing key');
  return spkiOf(parseSigningKey(readFileSync(path, 'utf8'), path));
}

/**
 * Makes the next key before it signs (`signet signing-key prepare`): `signet trust export`
 * publishes it beside the current one, so consumers accept it before the rotation that makes
 * it current, and nothing breaks at the restart (the pre-publish rollover of DNSSEC, RFC 6781
 * §4.1.1.1; OpenSSH's UpdateHostKeys teaches clients new host keys the same way). Refuses a
 * second one: the first may be published already. Returns its public key.
 */
export function prepareNextKey(dataDir: string): string {
  return withHistoryLock(dataDir, () => {
    const path = join(dataDir, NEXT_KEY_NAME);
    if (existsSync(path))
      throw new SignetError('key_exists', `A next signing key is prepared already (${path}): publish it, then rotate to it`);
    writeNewKeyFile(path, generateSigningKeyPem());
    return nextKey(dataDir)!;
  });
}

/**
 * Replaces the generated key in the data dir: with the prepared next key when there is one,
 * else with a new key; the old public key is kept as retired. The history is written first,
 * so a crash in between leaves the old key current and also listed as retired: harmless.
 * Returns both public keys, and whether the new one had been prepared (published).
 */
export function rotateGeneratedKey(dataDir: string): { previous: string; current: string; prepared: boolean } {
  return withHistoryLock(dataDir, () => rotateLocked(dataDir));
}

function rotateLocked(dataDir: string): { previous: string; current: string; prepared: boolean } {
  const keyPath = join(dataDir, GENERATED_KEY_NAME);
  if (!existsSync(keyPath))
    throw new SignetError('key_invalid', `No generated signing key at ${keyPath}: start the server once, or use SIGNET_SIGNING_KEY_FILE`);
  checkKeyFilePermissions(keyPath, 'signing key');
  const previous = spkiOf(parseSigningKey(readFileSync(keyPath, 'utf8'), keyPath));
  const history = readKeyring(dataDir);
  if (!history.keys.some((k) => k.public_key === previous)) {
    history.keys.push({ name: keyName(previous), public_key: previous, status: 'retired' });
  }
  writeAtomic(join(dataDir, KEYRING_NAME), `${JSON.stringify(history, null, 2)}\n`, 0o600, { exclusive: false });
  const next = nextKey(dataDir);
  if (next) {
    // The prepared key becomes the current one by a rename: never half a key, never two current.
    renameSync(join(dataDir, NEXT_KEY_NAME), keyPath);
    return { previous, current: next, prepared: true };
  }
  const pem = generateSigningKeyPem();
  writeAtomic(keyPath, pem, 0o600, { exclusive: false });
  return { previous, current: spkiOf(parseSigningKey(pem, 'new signing key')), prepared: false };
}

/** Marks a retired key of the history revoked: outputs it signed are refused from now on. */
export function revokeKey(dataDir: string, keyOrFingerprint: string, note?: string): TrustedKey {
  return withHistoryLock(dataDir, () => revokeLocked(dataDir, keyOrFingerprint, note));
}

function revokeLocked(dataDir: string, keyOrFingerprint: string, note?: string): TrustedKey {
  const history = readKeyring(dataDir);
  const keyPath = join(dataDir, GENERATED_KEY_NAME);
  const current = existsSync(keyPath) ? spkiOf(parseSigningKey(readFileSync(keyPath, 'utf8'), keyPath)) : null;
  const matches = (spki: string) =>
    spki === keyOrFingerprint || fingerprint(spki) === keyOrFingerprint || keyName(spki) === keyOrFingerprint;
  if (current && matches(current))
    throw new SignetError(
      'key_invalid',
      'That is the current signing key: rotate first (signet signing-key rotate), then revoke the old one',
    );
  const next = nextKey(dataDir);
  if (next && matches(next))
    throw new SignetError(
      'key_invalid',
      `That is the prepared next key, which has signed nothing: delete ${join(dataDir, NEXT_KEY_NAME)} to drop it, and publish the trust file again`,
    );
  const entry = history.keys.find((k) => matches(k.public_key));
  if (!entry)
    throw new SignetError(
      'key_invalid',
      `No key ${JSON.stringify(keyOrFingerprint.slice(0, 80))} in the signing key history (signet signing-key list)`,
    );
  entry.status = 'revoked';
  if (note) entry.note = note;
  writeAtomic(join(dataDir, KEYRING_NAME), `${JSON.stringify(history, null, 2)}\n`, 0o600, { exclusive: false });
  return entry;
}
