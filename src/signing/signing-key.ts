import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SignetError } from '../errors.js';
import { writeAtomic } from '../shared/atomic-file.js';

export const GENERATED_KEY_NAME = 'signing-key.pem';
/** The key `signet signing-key prepare` made: published in the trust file before it signs (rotation.ts). */
export const NEXT_KEY_NAME = 'signing-key.next.pem';

export function generateSigningKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * Writes a new PEM with mode 0600, refusing to overwrite: a key that exists is an
 * identity consumers may have pinned. The content is written to a temp file first and
 * then hard-linked into place, so no reader ever sees a half-written key and two
 * processes racing on the same path cannot both win.
 */
export function writeNewKeyFile(path: string, pem: string): void {
  let result: 'written' | 'exists';
  try {
    result = writeAtomic(path, pem, 0o600, { exclusive: true });
  } catch (err) {
    throw new SignetError('key_invalid', `Cannot create key file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (result === 'exists') throw new SignetError('key_exists', `Refusing to overwrite existing key file ${path}`);
}

/** Parses a PKCS#8 PEM Ed25519 private key; the error never quotes the file's content. */
export function parseSigningKey(pem: string, source: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new SignetError('key_invalid', `${source} is not a PKCS#8 PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SignetError('key_invalid', `${source} holds a ${key.asymmetricKeyType ?? 'unknown'} key; Signet signs with Ed25519`);
  }
  return key;
}

export interface SigningKeySource {
  /** SIGNET_SIGNING_KEY_FILE, when set. */
  keyFile?: string | undefined;
  /** SIGNET_DATA_DIR: where a generated key is persisted. */
  dataDir: string;
}

export interface LoadedSigningKey {
  key: KeyObject;
  origin: 'file' | 'generated' | 'persisted';
  path: string;
}

/**
 * Refuses a private key file others could read, the way PostgreSQL checks ssl_key_file:
 * owned by the running user with no group or other permissions (0600, 0400), or owned by
 * root with at most 0640 (group read, for a Kubernetes Secret mounted with fsGroup). The
 * check is on the file a symlink resolves to (Secret volumes are ..data symlinks).
 */
export function checkKeyFilePermissions(path: string, what: string): void {
  if (typeof process.getuid !== 'function') return; // Windows: no POSIX modes to check
  let target: string;
  let st: ReturnType<typeof statSync>;
  try {
    target = realpathSync(path);
    st = statSync(target);
  } catch (err) {
    throw new SignetError('key_invalid', `Cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const uid = process.getuid();
  const mode = st.mode & 0o777;
  const shown = `${path}${target === path ? '' : ` (-> ${target})`}`;
  const octal = mode.toString(8).padStart(4, '0');
  if (st.uid === uid) {
    if ((mode & 0o077) !== 0) {
      throw new SignetError('key_invalid', `${what} ${shown} has mode ${octal}: group or others can read it. Fix: chmod 600 ${target}`);
    }
  } else if (st.uid === 0) {
    if ((mode & 0o037) !== 0) {
      throw new SignetError(
        'key_invalid',
        `${what} ${shown} is owned by root with mode ${octal}: at most 0640 is allowed. Fix: chmod 640 ${target}`,
      );
    }
  } else {
    throw new SignetError(
      'key_invalid',
      `${what} ${shown} is owned by uid ${st.uid}, not by the user running Signet (uid ${uid}) or root. Fix: chown ${uid} ${target}`,
    );
  }
}

function readKeyFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new SignetError('key_invalid', `Cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/**
 * The configured key file, else the key persisted in the data dir, else a new one
 * persisted there, so the public key stays the same across restarts.
 */
export function loadOrCreateSigningKey(source: SigningKeySource): LoadedSigningKey {
  if (source.keyFile) {
    checkKeyFilePermissions(source.keyFile, 'SIGNET_SIGNING_KEY_FILE');
    const key = parseSigningKey(readKeyFile(source.keyFile, 'SIGNET_SIGNING_KEY_FILE'), 'SIGNET_SIGNING_KEY_FILE');
    return { key, origin: 'file', path: source.keyFile };
  }
  const path = join(source.dataDir, GENERATED_KEY_NAME);
  let exists = true;
  try {
    statSync(path);
  } catch (err) {
    // Only a key that is not there is made anew: one this account cannot reach (a volume of
    // another uid) is refused, never replaced by a new identity.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new SignetError('key_invalid', `Cannot read signing key ${path}: ${code ?? 'error'}`);
    exists = false;
  }
  if (!exists) {
    try {
      writeNewKeyFile(path, generateSigningKeyPem());
      return { key: parseSigningKey(readKeyFile(path, 'signing key'), path), origin: 'generated', path };
    } catch (err) {
      // Two processes starting at once on the same data dir: the other one won; use its key.
      if (!(err instanceof SignetError && err.code === 'key_exists')) throw err;
    }
  }
  checkKeyFilePermissions(path, 'signing key');
  return { key: parseSigningKey(readKeyFile(path, 'signing key'), path), origin: 'persisted', path };
}
