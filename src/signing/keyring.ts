// The server's own signing keys over time: the current key, and the public keys it signed
// with before (retired: their outputs stay valid) or that must no longer be believed
// (revoked). Kept in <data dir>/signing-keys.json, a `signet-trust/1` file, beside the
// generated key; operators who mount a key file list older keys in SIGNET_TRUST_FILE.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignetError } from '../errors.js';
import {
  fingerprint,
  type KeyStatus,
  parseTrustFile,
  TRUST_FORMAT,
  type TrustedKey,
  type TrustFile,
  TrustFileError,
  type TrustSet,
  trustSet,
} from './trust.js';

export const KEYRING_NAME = 'signing-keys.json';
/** How a trust file names the prepared next key: active (consumers accept it), not signing yet. */
export const NEXT_KEY_NOTE = 'next key: published before it signs; the server signs with it from its next rotation';

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

export { spkiOf } from './spki.js';

export function keyName(spki: string): string {
  return `signet-${fingerprint(spki)
    .slice('SHA256:'.length, 'SHA256:'.length + 8)
    .replace(/[+/]/g, '_')}`;
}

export function readTrustFile(path: string, what: string): TrustFile {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new SignetError('config_invalid', `Cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return parseTrustFile(bytes, `${what} ${path}`);
  } catch (err) {
    if (err instanceof TrustFileError) throw new SignetError('config_invalid', err.message);
    throw err;
  }
}

export function readKeyring(dataDir: string): TrustFile {
  const path = join(dataDir, KEYRING_NAME);
  return existsSync(path) ? readTrustFile(path, 'signing key history') : { format: TRUST_FORMAT, keys: [] };
}

/**
 * The server's keys: the current one (active), the data dir's history and SIGNET_TRUST_FILE.
 * Refuses to start with a current key that any of them revokes.
 */
export function loadServerKeys(
  currentSpki: string,
  source: { dataDir: string; trustFile?: string | undefined },
  /** The prepared next key (rotation.ts), published as active before it signs; only the trust export passes it. */
  nextSpki: string | null = null,
): ServerKeys {
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
    throw new SignetError(
      'key_invalid',
      `The signing key ${fingerprint(currentSpki)} is revoked in the signing key history or SIGNET_TRUST_FILE: rotate to a new key`,
    );
  }
  others.delete(currentSpki);
  if (nextSpki && others.get(nextSpki)?.status === 'revoked') {
    throw new SignetError(
      'key_invalid',
      `The prepared next signing key ${fingerprint(nextSpki)} is revoked: remove it and prepare another`,
    );
  }
  const current: TrustedKey = { name: keyName(currentSpki), public_key: currentSpki, status: 'active' };
  // Other keys listed "active" are not this server's current key: they can only have signed before.
  const rest = [...others.values()].map((k): TrustedKey => (k.status === 'active' ? { ...k, status: 'retired' } : k));
  const next: TrustedKey[] =
    nextSpki && nextSpki !== currentSpki ? [{ name: keyName(nextSpki), public_key: nextSpki, status: 'active', note: NEXT_KEY_NOTE }] : [];
  const keys = [current, ...next, ...rest.filter((k) => k.public_key !== nextSpki)];
  const file: TrustFile = { format: TRUST_FORMAT, keys };
  return {
    list: keys.map((k) => ({ name: k.name, public_key: k.public_key, fingerprint: fingerprint(k.public_key), status: k.status })),
    trust: trustSet({ files: [file] }),
    file,
  };
}
