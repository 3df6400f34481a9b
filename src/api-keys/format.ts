// API key format: sgnk_<id:8><secret:43><checksum:6>, all base62.
//   sgnk      Signet's short name + "k", so secret scanners can match the prefix
//   id        8 random base62 characters, not secret: names the key in the store and in logs
//   secret    43 random base62 characters = 256 bits of randomness
//   checksum  CRC32 of id+secret, base62, left-padded to 6: catches typos and truncation
//             offline, before any lookup
// Scanner regex: \bsgnk_[0-9A-Za-z]{57}\b
// The grammar is the edge contract's (shared/edge-contract.ts): the proxy checks the same.
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY } from '../shared/edge-contract.js';

export const KEY_PREFIX = API_KEY.prefix;
export const KEY_ID_LENGTH = API_KEY.idLength;
export const KEY_SECRET_LENGTH = API_KEY.secretLength;
export const KEY_CHECKSUM_LENGTH = API_KEY.checksumLength;
export const KEY_BODY_LENGTH = KEY_ID_LENGTH + KEY_SECRET_LENGTH + KEY_CHECKSUM_LENGTH;
export const KEY_PATTERN = new RegExp(API_KEY.pattern);
export const KEY_SCANNER_REGEX = `\\b${API_KEY.pattern.slice(1, -1)}\\b`;

const BASE62 = API_KEY.base62;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function base62Checksum(text: string): string {
  let n = crc32(text);
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(KEY_CHECKSUM_LENGTH, '0');
}

/** A fresh key. Nothing stores it: the caller shows it once. */
export function newApiKey(): string {
  const idAndSecret = randomBase62(KEY_ID_LENGTH) + randomBase62(KEY_SECRET_LENGTH);
  return KEY_PREFIX + idAndSecret + base62Checksum(idAndSecret);
}

export type KeyCheck = { ok: true; id: string } | { ok: false; reason: string };

/** Offline check of shape and checksum. Never echoes the key. */
export function checkApiKeyFormat(key: string): KeyCheck {
  if (typeof key !== 'string' || !key.startsWith(KEY_PREFIX)) return { ok: false, reason: 'not a Signet key (expected the sgnk_ prefix)' };
  if (!KEY_PATTERN.test(key)) {
    return { ok: false, reason: `malformed key: expected sgnk_ followed by ${KEY_BODY_LENGTH} letters and digits` };
  }
  const body = key.slice(KEY_PREFIX.length);
  const idAndSecret = body.slice(0, KEY_ID_LENGTH + KEY_SECRET_LENGTH);
  if (base62Checksum(idAndSecret) !== body.slice(KEY_ID_LENGTH + KEY_SECRET_LENGTH)) {
    return { ok: false, reason: 'checksum mismatch: the key is mistyped or truncated' };
  }
  return { ok: true, id: body.slice(0, KEY_ID_LENGTH) };
}
