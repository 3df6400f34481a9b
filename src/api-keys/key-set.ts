// The API key store as the auth check holds it: parsed once into memory, read again when the
// file changes. A change is seen at once through a watch on the store's folder (the CLI replaces
// the file: a rename there), and at the latest RECHECK_MS later by a stat, for file systems
// that send no events: a revocation, a rotation or a broken file applies to the next request
// without a system call per request (only a store that cannot be used is stat'ed per request). A store that cannot be read or is not a whole store
// refuses every key (fail closed) and says why, once.
import { hash, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname } from 'node:path';
import { SignetError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AuthState } from '../shared/edge-contract.js';
import { base62Checksum, KEY_BODY_LENGTH, KEY_CHECKSUM_LENGTH, KEY_PATTERN, KEY_PREFIX } from './format.js';
import { type KeyRecord, parseStore } from './store.js';

export type KeyVerdict =
  | { state: 'ok'; record: KeyRecord }
  | { state: Extract<AuthState, 'malformed' | 'checksum' | 'unknown' | 'revoked' | 'expired'>; id?: string }
  | { state: 'unavailable'; why: string };

/** A record with what its check needs computed once, when the store is read. */
interface Entry {
  record: KeyRecord;
  /** The raw SHA-256 of the key, from the record's `sha256:<hex>`. */
  digest: Buffer;
  /**
   * The key's bytes once a presented key matched the digest: the next presentation is compared
   * with them in constant time, with no hash (OpenSSL's SHA-256 was a tenth of the auth check's
   * CPU per request). Only a key that was sent is kept, in this process's memory, as the request
   * that carried it was; a store read again starts without them.
   */
  seen: Buffer | null;
  /** Milliseconds since the epoch; Infinity for none. */
  revokedAt: number;
  expiresAt: number;
}

/** The file system calls the set makes (a test counts them). */
export interface KeySetIo {
  statSync: typeof fs.statSync;
  readFileSync: typeof fs.readFileSync;
  watch: typeof fs.watch;
}

export interface KeySetOptions {
  io?: KeySetIo;
  /** The stat's interval (RECHECK_MS); a test lengthens it to see the watch alone. */
  recheckMs?: number;
}

/** The longest a change goes unseen when the folder's watch sends nothing (network file systems). */
export const RECHECK_MS = 250;

const ID_END = KEY_PREFIX.length + 8;
const CHECKED_END = KEY_PREFIX.length + KEY_BODY_LENGTH - KEY_CHECKSUM_LENGTH;
/** Whether a well-formed key (KEY_PATTERN: ASCII, one length) is the entry's, in constant time. */
function matches(entry: Entry, key: string): boolean {
  const presented = Buffer.from(key, 'latin1');
  if (entry.seen !== null) return timingSafeEqual(presented, entry.seen);
  if (!timingSafeEqual(hash('sha256', key, 'buffer'), entry.digest)) return false;
  entry.seen = presented;
  return true;
}

const instant = (t: string | null) => (t === null ? Number.POSITIVE_INFINITY : Date.parse(t));

export class KeySet {
  readonly path: string;
  readonly #log: Logger;
  readonly #io: KeySetIo;
  readonly #recheckMs: number;
  #stamp = '';
  #byId = new Map<string, Entry>();
  #problem: string | null = 'not read yet';
  /** performance.now() of the last stat; -Infinity: stat at the next look. */
  #checkedAt = Number.NEGATIVE_INFINITY;
  #watcher: fs.FSWatcher | null = null;
  #closed = false;

  constructor(path: string, log: Logger, options: KeySetOptions = {}) {
    this.path = path;
    this.#log = log;
    this.#io = options.io ?? fs;
    this.#recheckMs = options.recheckMs ?? RECHECK_MS;
  }

  /** Why the store cannot be used right now, or null. */
  get problem(): string | null {
    this.#refresh();
    return this.#problem;
  }

  /** Every record of the store as last read (empty while it cannot be used). */
  records(): KeyRecord[] {
    this.#refresh();
    return [...this.#byId.values()].map((e) => e.record);
  }

  /** The verdict for a bearer that starts with the key prefix; never echoes the key. */
  check(key: string, now = Date.now()): KeyVerdict {
    if (!KEY_PATTERN.test(key)) return { state: 'malformed' };
    const id = key.slice(KEY_PREFIX.length, ID_END);
    this.#refresh();
    const entry = this.#problem === null ? this.#byId.get(id) : undefined;
    if (entry !== undefined && matches(entry, key)) {
      if (now >= entry.revokedAt) return { state: 'revoked', id };
      if (now >= entry.expiresAt) return { state: 'expired', id };
      return { state: 'ok', record: entry.record };
    }
    // Not a key of the store: a typo or a truncation says so first, whatever the store's state
    // (a key that matched a record carries a good checksum: it was minted with one).
    if (base62Checksum(key.slice(KEY_PREFIX.length, CHECKED_END)) !== key.slice(CHECKED_END)) return { state: 'checksum' };
    if (this.#problem !== null) return { state: 'unavailable', why: this.#problem };
    return { state: 'unknown', id };
  }

  /** Stops watching the store's folder. */
  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = null;
  }

  /** Reads the store again when its identity changed (inode, size, times); fail closed on any error. */
  #refresh(): void {
    const t = performance.now();
    // While the store cannot be used every look stats it (every key is refused meanwhile): the
    // first key written into a store that was missing works at once, watch or not.
    if (this.#problem === null && t - this.#checkedAt < this.#recheckMs) return;
    this.#checkedAt = t;
    this.#watch();
    let stamp: string;
    try {
      const st = this.#io.statSync(this.path);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch (err) {
      this.#fail(`key store ${this.path} cannot be read (${describeError(err)})`, `missing:${(err as NodeJS.ErrnoException).code}`);
      return;
    }
    if (stamp === this.#stamp) return;
    this.#stamp = stamp;
    try {
      const file = parseStore(this.#io.readFileSync(this.path, 'utf8'), this.path);
      this.#byId = new Map(
        file.keys.map((k) => [
          k.id,
          {
            record: k,
            digest: Buffer.from(k.hash.slice(k.hash.indexOf(':') + 1), 'hex'),
            seen: null,
            revokedAt: instant(k.revoked_at),
            expiresAt: instant(k.expires_at),
          },
        ]),
      );
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

  /**
   * Watches the store's folder (the file itself is replaced, not written in place): any event
   * there makes the next look stat the store. Retried at each stat while the folder is missing.
   */
  #watch(): void {
    if (this.#watcher !== null || this.#closed) return;
    const name = basename(this.path);
    try {
      const w = this.#io.watch(dirname(this.path), { persistent: false }, (_event, file) => {
        // The store's own temporary files and lock (keys.json.*) say nothing yet; the rename
        // that follows names the store. Any other entry may be it (a Kubernetes ..data swap).
        if (file === null || file === name || !file.startsWith(`${name}.`)) this.#checkedAt = Number.NEGATIVE_INFINITY;
      });
      w.on('error', () => {
        w.close();
        if (this.#watcher === w) this.#watcher = null;
        this.#checkedAt = Number.NEGATIVE_INFINITY;
      });
      this.#watcher = w;
    } catch {
      // No folder yet, or no watch on this file system: the stat every RECHECK_MS still sees changes.
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
