import { createPublicKey, type KeyObject } from 'node:crypto';

/** The base64 DER SPKI of a key's public half (a private KeyObject or PEM gives its public key): the one place it is exported. */
export function spkiOf(key: KeyObject | string): string {
  return createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
}
