import { generateKeyPairSync } from 'node:crypto';
import { type DoctrineFooter, SIGNATURE_FORMAT, SIGNED_MESSAGE } from '../../src/signing/format.js';
import { Signer } from '../../src/signing/signer.js';

export function testSigner(): Signer {
  return new Signer(generateKeyPairSync('ed25519').privateKey);
}

/** A doctrine footer of this format (by default the one this version signs; /1 for outputs signed before /2). */
export function testFooter(signer: Signer, hash = `sha256:${'ab'.repeat(32)}`, format: string = SIGNATURE_FORMAT): DoctrineFooter {
  return {
    signature_format: format,
    doctrine_name: 'test',
    doctrine_version: '1.0.0',
    doctrine_hash: hash,
    doctrine_signature: signer.sign(SIGNED_MESSAGE.doctrine(format, hash)),
    doctrine_public_key: signer.publicKeySpki,
  };
}
