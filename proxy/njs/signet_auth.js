// Signet reference proxy, key-store mode: is this request's bearer key an active key of
// the store? Runs in nginx's njs (0.7.9+): no Node APIs, no state kept between requests.
//
//   $signet_auth    "ok", or why not: missing, malformed, checksum, unknown, revoked,
//                   expired, unavailable (the store cannot be read: fail closed)
//   $signet_key_id  the key's id when ok (never the key), for the upstream and the log
//
// The store (written by `signet keys`) holds sha256 of each key, never a key. It is read
// on every request, so a revocation applies to the next request, and is never cached in
// a form that could outlive a failed read.
import fs from 'fs';
import crypto from 'crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY = /^sgnk_[0-9A-Za-z]{57}$/;

let crcTable = null;
function crc32(text) {
  if (crcTable === null) {
    crcTable = [];
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable.push(c >>> 0);
    }
  }
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
  while (out.length < 6) out = '0' + out;
  return out;
}

/** Compares two equal-length hex digests without an early exit. */
function sameDigest(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function readStore(r) {
  const path = r.variables.signet_key_store;
  let data;
  try {
    data = JSON.parse(fs.readFileSync(path).toString());
  } catch (e) {
    r.error(`signet auth: key store ${path} cannot be read or parsed (${e.message}); refusing every request`);
    return null;
  }
  if (!data || data.format !== 'signet-keys/1' || !Array.isArray(data.keys)) {
    r.error(`signet auth: key store ${path} is not a signet-keys/1 store; refusing every request`);
    return null;
  }
  return data.keys;
}

function check(r) {
  r.variables.signet_key_id = '';
  const header = r.headersIn.Authorization;
  if (header === undefined) return 'missing';
  if (typeof header !== 'string' || header.slice(0, 7) !== 'Bearer ') return 'malformed';
  const key = header.slice(7);
  if (!KEY.test(key)) return 'malformed';
  // Typos and truncations stop here, without touching the store.
  if (base62(crc32(key.slice(5, 56))) !== key.slice(56)) return 'checksum';

  const keys = readStore(r);
  if (keys === null) return 'unavailable';
  const id = key.slice(5, 13);
  let record = null;
  for (let i = 0; i < keys.length; i++) if (keys[i] && keys[i].id === id) record = keys[i];
  if (record === null || typeof record.hash !== 'string') return 'unknown';
  const digest = 'sha256:' + crypto.createHash('sha256').update(key).digest('hex');
  if (!sameDigest(digest, record.hash)) return 'unknown';
  const now = Date.now();
  if (record.revoked_at && Date.parse(record.revoked_at) <= now) return 'revoked';
  if (record.expires_at && Date.parse(record.expires_at) <= now) return 'expired';
  r.variables.signet_key_id = id;
  return 'ok';
}

export default { check };
