import { hash } from 'node:crypto';
import { SHA256_PREFIX } from './sha256-tag.js';

/** `sha256:<hex>` of UTF-8 text or bytes, with node:crypto (one-shot: no Hash object, measurably cheaper per call). */
export function sha256Tag(data: string | Uint8Array): string {
  return SHA256_PREFIX + hash('sha256', data, 'hex');
}
