// The server's own signing keys over time: the current key, and the public keys it signed
// with before (retired: their outputs stay valid) or that must no longer be believed
// (revoked). Kept in <data dir>/signing-keys.json, a `signet-trust/1` file, beside the
// generated key; operators who mount a key file list older keys in SIGNET_TRUST_FILE.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignetError } from '../errors.js';
import { writeAtomic } from '../shared/atomic-file.js';
import { fingerprint, parseTrustFile, TRUST_FORMAT, TrustFileError, trustSet, type KeyStatus, type TrustedKey, type TrustFile, type TrustSet } from './trust.js';
import { checkKeyFilePermissions, GENERATED_KEY_NAME, generateSigningKeyPem, parseSigningKey } from './signing-key.js';

export const KEYRING_NAME = 'signing-keys.json';

export interface SigningKeyInfo {
  name: string;
  public_key: string;
  fingerprint: string;
  status: KeyStatus;
}

export interface ServerKeys {
  /** Current key first, then the others in the order their files list them. */
  list: SigningKeyInfo[];
  /** What verify_output accepts by default: the current and retired keys; revoked ones are refused. */
  trust: TrustSet;
  /** The same as a trust file (`signet trust export`). */
  file: TrustFile;
}

export function spkiOf(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
}

export function keyName(spki: string): string {
  return `signet-${fingerprint(spki).slice('SHA256:'.length, 'SHA256:'.length + 8).replace(/[+/]/g, '_')}`;
}

export function readTrustFile(path: string, what: string): TrustFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SignetError('config_invalid', `Cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return parseTrustFile(text, `${what} ${path}`);
  } catch (err) {
    if (err instanceof TrustFileError) throw new SignetError('config_invalid', err.message);
    throw err;
  }
}

function readKeyring(dataDir: string): TrustFile {
  const path = join(dataDir, KEYRING_NAME);
  return existsSync(path) ? readTrustFile(path, 'signing key history') : { format: TRUST_FORMAT, keys: [] };
}

/**
 * The server's keys: the current one (active), the data dir's history and SIGNET_TRUST_FILE.
 * Refuses to start with a current key that any of them revokes.
 */
export function loadServerKeys(currentSpki: string, source: { dataDir: string; trustFile?: string | undefined }): ServerKeys {
  const files = [readKeyring(source.dataDir)];
  if (source.trustFile) files.push(readTrustFile(source.trustFile, 'SIGNET_TRUST_FILE'));
  const others = new Map<string, TrustedKey>();
  const rank: Record<KeyStatus, number> = { active: 0, retired: 1, revoked: 2 };
  for (const f of files) {
    for (const k of f.keys) {
      const known = others.get(k.public_key);
      if (!known || rank[k.status] > rank[known.status]) others.set(k.public_key, { ...k, name: known?.name ?? k.name });
    }
  }
  if (others.get(currentSpki)?.status === 'revoked') {
    throw new SignetError('key_invalid', `The signing key ${fingerprint(currentSpki)} is revoked in the signing key history or SIGNET_TRUST_FILE: rotate to a new key`);
  }
  others.delete(currentSpki);
  const current: TrustedKey = { name: keyName(currentSpki), public_key: currentSpki, status: 'active' };
  // Other keys listed "active" are not this server's current key: they can only have signed before.
  const rest = [...others.values()].map((k): TrustedKey => (k.status === 'active' ? { ...k, status: 'retired' } : k));
  const keys = [current, ...rest];
  const file: TrustFile = { format: TRUST_FORMAT, keys };
  return {
    list: keys.map((k) => ({ name: k.name, public_key: k.public_key, fingerprint: fingerprint(k.public_key), status: k.status })),
    trust: trustSet({ files: [file] }),
    file,
  };
}

/**
 * Replaces the generated key in the data dir with a new one; the old public key is kept as
 * retired. The history is written first, so a crash in between leaves the old key current
 * and also listed as retired: harmless. Returns both public keys.
 */
export function rotateGeneratedKey(dataDir: string): { previous: string; current: string } {
  const keyPath = join(dataDir, GENERATED_KEY_NAME);
  if (!existsSync(keyPath)) throw new SignetError('key_invalid', `No generated signing key at ${keyPath}: start the server once, or use SIGNET_SIGNING_KEY_FILE`);
  checkKeyFilePermissions(keyPath, 'signing key');
  const previous = spkiOf(parseSigningKey(readFileSync(keyPath, 'utf8'), keyPath));
  const history = readKeyring(dataDir);
  if (!history.keys.some((k) => k.public_key === previous)) {
    history.keys.push({ name: keyName(previous), public_key: previous, status: 'retired' });
  }
  writeAtomic(join(dataDir, KEYRING_NAME), JSON.stringify(history, null, 2) + '\n', 0o600, { exclusive: false });
  const pem = generateSigningKeyPem();
  writeAtomic(keyPath, pem, 0o600, { exclusive: false });
  return { previous, current: spkiOf(parseSigningKey(pem, 'new signing key')) };
}

/** Marks a retired key of the history revoked: outputs it signed are refused from now on. */
export function revokeKey(dataDir: string, keyOrFingerprint: string, note?: string): TrustedKey {
  const history = readKeyring(dataDir);
  const keyPath = join(dataDir, GENERATED_KEY_NAME);
  const current = existsSync(keyPath) ? spkiOf(parseSigningKey(readFileSync(keyPath, 'utf8'), keyPath)) : null;
  const matches = (spki: string) => spki === keyOrFingerprint || fingerprint(spki) === keyOrFingerprint || keyName(spki) === keyOrFingerprint;
  if (current && matches(current)) throw new SignetError('key_invalid', 'That is the current signing key: rotate first (signet signing-key rotate), then revoke the old one');
  const entry = history.keys.find((k) => matches(k.public_key));
  if (!entry) throw new SignetError('key_invalid', `No key ${JSON.stringify(keyOrFingerprint.slice(0, 80))} in the signing key history (signet signing-key list)`);
  entry.status = 'revoked';
  if (note) entry.note = note;
  writeAtomic(join(dataDir, KEYRING_NAME), JSON.stringify(history, null, 2) + '\n', 0o600, { exclusive: false });
  return entry;
}
