import { createHash } from 'node:crypto';
import { sha256Tag } from '../shared/hash.js';
import type { DoctrineFile } from './files.js';

/**
 * The doctrine manifest, in `sha256sum` format so coreutils can reproduce it:
 *
 *   for each file, sorted by relative path (bytewise, POSIX separators):
 *     <lowercase hex SHA-256 of the file with CRLF turned into LF>  <relative path>\n
 *
 *   doctrine_hash = "sha256:" + hex SHA-256 of the UTF-8 manifest text.
 *
 * CRLF is normalised so a checkout with Windows line endings hashes the same.
 */
export interface Manifest {
  entries: { path: string; sha256: string }[];
  text: string;
  hash: string;
}

const CR = 0x0d;
const LF = 0x0a;

export function normaliseLineEndings(bytes: Buffer): Buffer {
  if (!bytes.includes(CR)) return bytes;
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === CR && bytes[i + 1] === LF) continue;
    out[n++] = bytes[i]!;
  }
  return out.subarray(0, n);
}

export function buildManifest(files: DoctrineFile[]): Manifest {
  const entries = files.map((f) => ({
    path: f.path,
    sha256: createHash('sha256').update(normaliseLineEndings(f.bytes)).digest('hex'),
  }));
  const text = entries.map((e) => `${e.sha256}  ${e.path}\n`).join('');
  return { entries, text, hash: sha256Tag(text) };
}
