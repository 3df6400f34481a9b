// The API key store as the auth check holds it: parsed once into memory, read again when the
// file changes (one stat per check: a revocation, a rotation or a broken file applies to the
// next request, as nginx's per-request read did, at a fraction of its cost). A store that cannot
// be read or is not a whole store refuses every key (fail closed) and says why, once.
import { timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { SignetError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AuthState } from '../shared/edge-contract.js';
import { checkApiKeyFormat, KEY_PATTERN } from './format.js';
import { type KeyRecord, keyHash, parseStore, statusOf } from './store.js';

export type KeyVerdict =
  | { state: 'ok'; record: KeyRecord }
  | { state: Extract<AuthState, 'malformed' | 'checksum' | 'unknown' | 'revoked' | 'expired'>; id?: string }
  | { state: 'unavailable'; why: string };

export class KeySet {
  readonly path: string;
  readonly #log: Logger;
  #stamp = '';
  #byId = new Map<string, KeyRecord>();
  #problem: string | null = 'not read yet';

  constructor(path: string, log: Logger) {
    this.path = path;
    this.#log = log;
  }

  /** Why the store cannot be used right now, or null. */
  get problem(): string | null {
    this.#refresh();
    return this.#problem;
  }

  /** Every record of the store as last read (empty while it cannot be used). */
  records(): KeyRecord[] {
    this.#refresh();
    return [...this.#byId.values()];
  }

  /** The verdict for a bearer that starts with the key prefix; never echoes the key. */
  check(key: string, now = Date.now()): KeyVerdict {
    const format = checkApiKeyFormat(key);
    if (!format.ok) return { state: KEY_PATTERN.test(key) ? 'checksum' : 'malformed' };
    // Typos and truncations stop above, without touching the store.
    this.#refresh();
    if (this.#problem !== null) return { state: 'unavailable', why: this.#problem };
    const record = this.#byId.get(format.id);
    if (!record) return { state: 'unknown', id: format.id };
    const a = Buffer.from(keyHash(key));
    const b = Buffer.from(record.hash);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { state: 'unknown', id: format.id };
    const status = statusOf(record, now);
    return status === 'active' ? { state: 'ok', record } : { state: status, id: record.id };
  }

  /** Reads the store again when its identity changed (inode, size, times); fail closed on any error. */
  #refresh(): void {
    let stamp: string;
    try {
      const st = statSync(this.path);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch (err) {
      this.#fail(`key store ${this.path} cannot be read (${describeError(err)})`, `missing:${(err as NodeJS.ErrnoException).code}`);
      return;
    }
    if (stamp === this.#stamp) return;
    this.#stamp = stamp;
    try {
      const file = parseStore(readFileSync(this.path, 'utf8'), this.path);
      this.#byId = new Map(file.keys.map((k) => [k.id, k]));
      if (this.#problem !== null && this.#problem !== 'not read yet') this.#log.info({ store: this.path }, 'API key store readable again');
      this.#problem = null;
      this.#log.info({ store: this.path, keys: file.keys.length }, 'API key store read');
    } catch (err) {
      this.#fail(
        err instanceof SignetError
          ? `key store ${this.path} cannot be parsed (${err.message})`
          : `key store ${this.path} cannot be read (${describeError(err)})`,
        stamp,
      );
    }
  }

  #fail(problem: string, stamp: string): void {
    this.#byId = new Map();
    this.#stamp = stamp;
    if (this.#problem === problem) return;
    this.#problem = problem;
    this.#log.error({ store: this.path, problem }, `${problem}: every API key is refused with 503 until it is fixed`);
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** EACCES and ENOENT in words an operator acts on (a 0600 store owned by another uid is the usual one). */
function describeError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES')
    return `permission denied: the store is written mode 0600 by its owner; run the auth check as that user (uid ${process.getuid?.() ?? '?'} here)`;
  if (code === 'ENOENT') return "no such file: create keys with 'signet api-keys create --name NAME', or mount the store";
  return code ?? errText(err);
}
