import { generateSigningKeyPem, writeNewKeyFile } from '../signing/signing-key.js';
import { spkiOf } from '../signing/spki.js';

/** `signet keygen --out FILE`: a new Ed25519 PKCS#8 PEM (mode 0600); prints only the public key. */
export function keygen(out: string): number {
  const pem = generateSigningKeyPem();
  writeNewKeyFile(out, pem);
  const spki = spkiOf(pem);
  process.stdout.write(`wrote ${out}\npublic key: ${spki}\n`);
  return 0;
}
