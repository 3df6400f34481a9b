// Signet reference proxy, key-store mode: is this request's bearer key an active key of
// the store? Runs in nginx's njs (0.7.9+): no Node APIs, no state kept between requests.
//
//   $signet_auth    "ok", or why not: missing, malformed, checksum, unknown, revoked,
//                   expired, unavailable (the store cannot be used: fail closed)
//   $signet_key_id  the key's id when ok (never the key), for the upstream and the log
//
// The store (written by `signet keys`) holds sha256 of each key, never a key. Its lines have
// a fixed width and records are sorted by id (src/api-keys/store.ts), so one open, an fstat and
// a binary search of a few 8-byte reads find a key, whatever the number of keys, where
// parsing the whole file in njs measured ~1 ms for 100 keys.
//
// With njs 0.8+ and the `signet_keys` shared dict (render.sh declares it when the module
// supports it), a key seen before is decided from nginx shared memory instead: the entry is
// keyed by the key's SHA-256 (never the key) and holds the id, revocation and expiry times
// and the identity of the store file it was read from (inode, size, change and modification
// times), checked with one stat per request. Any rewrite of the store (a revocation, a new
// key, a broken file) changes that identity, so it applies to the next request, as without
// the cache. Unknown keys are never cached.

import crypto from 'crypto';
import fs from 'fs';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_LENGTH = 62; // sgnk_ + 57 base62 characters
const HEADER_BYTES = 64;
const RECORD_BYTES = 384;
const HEADER = '{"format":"signet-keys/1","record_bytes":384,"keys":[';
const FOOTER = ']}\n';
const ID_OFFSET = 8; // a record line starts with ' ' or ',' then {"id":"

// Built once when nginx loads the module, not per request.
const crcTable = [];
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  crcTable.push(c >>> 0);
}

function crc32(text) {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = crcTable[(crc ^ text.charCodeAt(i)) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function base62(n) {
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  while (out.length < 6) out = `0${out}`;
  return out;
}

/**
 * sgnk_ followed by 57 base62 characters. A loop, not a RegExp: a module-level RegExp
 * used in a request's VM measured ~30 µs per request in njs; this loop costs a few.
 */
function wellFormed(key) {
  if (key.length !== KEY_LENGTH || key.slice(0, 5) !== 'sgnk_') return false;
  for (let i = 5; i < KEY_LENGTH; i++) {
    const c = key.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

/** Compares two equal-length digests without an early exit. */
function sameDigest(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function readAt(fd, length, position) {
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, position);
  return n === length ? buf.toString() : null;
}

/**
 * The record for `id`, null when the store has no such key, or undefined when the store
 * cannot be used (unreadable, truncated, not a signet-keys/1 store): fail closed.
 */
function findRecord(r, id) {
  const path = r.variables.signet_key_store;
  let fd;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    r.error(`signet auth: key store ${path} cannot be read (${e.message}); refusing every request`);
    return undefined;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const count = (size - HEADER_BYTES - FOOTER.length) / RECORD_BYTES;
    const header = size >= HEADER_BYTES + FOOTER.length ? readAt(fd, HEADER_BYTES, 0) : null;
    if (
      !Number.isInteger(count) ||
      count < 0 ||
      header === null ||
      header.slice(0, HEADER.length) !== HEADER ||
      readAt(fd, FOOTER.length, size - FOOTER.length) !== FOOTER
    ) {
      r.error(
        `signet auth: key store ${path} is not a whole signet-keys/1 store (truncated, edited by hand, or another file); refusing every request`,
      );
      return undefined;
    }
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = readAt(fd, 8, HEADER_BYTES + mid * RECORD_BYTES + ID_OFFSET);
      if (at === null) return undefined;
      if (at === id) {
        const line = readAt(fd, RECORD_BYTES, HEADER_BYTES + mid * RECORD_BYTES);
        return line === null ? undefined : JSON.parse(line.slice(1));
      }
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  } catch (e) {
    r.error(`signet auth: key store ${path} cannot be parsed (${e.message}); refusing every request`);
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The shared dict of earlier decisions, when njs and the configuration provide one. */
function decisionCache() {
  return typeof ngx !== 'undefined' && ngx.shared ? ngx.shared.signet_keys : undefined;
}

/** Identity of the store file as it is now; undefined when it cannot be stat'ed (fail closed). */
function storeStamp(r) {
  const path = r.variables.signet_key_store;
  try {
    const st = fs.statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch (e) {
    r.error(`signet auth: key store ${path} cannot be read (${e.message}); refusing every request`);
    return undefined;
  }
}

/** The verdict for a key whose record matched: revoked and expiry times in ms (0: none). */
function decide(r, id, revokedAt, expiresAt) {
  const now = Date.now();
  if (revokedAt && revokedAt <= now) return 'revoked';
  if (expiresAt && expiresAt <= now) return 'expired';
  r.variables.signet_key_id = id;
  return 'ok';
}

function check(r) {
  r.variables.signet_key_id = '';
  const header = r.headersIn.Authorization;
  if (header === undefined) return 'missing';
  if (typeof header !== 'string' || header.slice(0, 7) !== 'Bearer ') return 'malformed';
  const key = header.slice(7);
  if (!wellFormed(key)) return 'malformed';
  // Typos and truncations stop here, without touching the store.
  if (base62(crc32(key.slice(5, 56))) !== key.slice(56)) return 'checksum';

  const id = key.slice(5, 13);
  const digest = `sha256:${crypto.createHash('sha256').update(key).digest('hex')}`;
  const cache = decisionCache();
  let stamp;
  if (cache) {
    stamp = storeStamp(r);
    if (stamp === undefined) return 'unavailable';
    const hit = cache.get(digest);
    if (hit) {
      const c = JSON.parse(hit);
      if (c.stamp === stamp && c.id === id) return decide(r, id, c.revoked, c.expires);
    }
  }
  const record = findRecord(r, id);
  if (record === undefined) return 'unavailable';
  if (record === null || record.id !== id || typeof record.hash !== 'string') return 'unknown';
  if (!sameDigest(digest, record.hash)) return 'unknown';
  const revoked = record.revoked_at ? Date.parse(record.revoked_at) : 0;
  const expires = record.expires_at ? Date.parse(record.expires_at) : 0;
  if (cache) cache.set(digest, JSON.stringify({ stamp, id, revoked, expires }));
  return decide(r, id, revoked, expires);
}

export default { check };
