import { generateKeyPairSync } from 'node:crypto';
import { type DoctrineFooter, SIGNATURE_FORMAT } from '../../src/signing/format.js';
import { Signer } from '../../src/signing/signer.js';

export function testSigner(): Signer {
  return new Signer(generateKeyPairSync('ed25519').privateKey);
}

export function testFooter(signer: Signer, hash = `sha256:${'ab'.repeat(32)}`): DoctrineFooter {
  return {
    signature_format: SIGNATURE_FORMAT,
    doctrine_name: 'test',
    doctrine_version: '1.0.0',
    doctrine_hash: hash,
    doctrine_signature: signer.sign(hash),
    doctrine_public_key: signer.publicKeySpki,
  };
}
