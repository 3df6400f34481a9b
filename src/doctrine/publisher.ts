import { SignetError } from '../errors.js';
import { checkSignature } from '../signing/acceptance.js';
import { nodePrimitives } from '../signing/node-primitives.js';
import type { Signer } from '../signing/signer.js';
import type { Doctrine, DoctrinePublisherSignature } from './types.js';

/** The content of `doctrine.sig`: the publisher's signature over the doctrine hash. */
export function publisherSignature(doctrineHash: string, signer: Signer): DoctrinePublisherSignature {
  return { doctrine_hash: doctrineHash, signature: signer.sign(doctrineHash), public_key: signer.publicKeySpki };
}

/**
 * A present `doctrine.sig` must match the recomputed hash and verify. With a pinned
 * publisher key, the signature is mandatory and must come from that key.
 */
export function checkPublisher(doctrine: Doctrine, pinnedPublicKey?: string): void {
  const sig = doctrine.publisher;
  if (!sig) {
    if (pinnedPublicKey) {
      throw new SignetError(
        'doctrine_signature_mismatch',
        'SIGNET_DOCTRINE_PUBLISHER_KEY is set but the doctrine has no doctrine.sig; sign it with `signet doctrine sign`',
      );
    }
    return;
  }
  if (sig.doctrine_hash !== doctrine.hash) {
    throw new SignetError(
      'doctrine_signature_mismatch',
      `doctrine.sig was made for ${sig.doctrine_hash} but the doctrine now hashes to ${doctrine.hash}: a file changed after signing. Re-sign it or restore the signed files.`,
    );
  }
  // The same acceptance rule as every other signature Signet checks (signing/acceptance.ts).
  const refused = checkSignature(sig.public_key, sig.doctrine_hash, sig.signature, nodePrimitives.ed25519Verify);
  if (refused?.reason === 'public_key_malformed' || refused?.reason === 'public_key_weak') {
    throw new SignetError('doctrine_signature_mismatch', `doctrine.sig public_key ${refused.detail}`);
  }
  if (refused) throw new SignetError('doctrine_signature_mismatch', `doctrine.sig signature ${refused.detail} over the doctrine hash`);
  if (pinnedPublicKey && pinnedPublicKey !== sig.public_key) {
    throw new SignetError('doctrine_signature_mismatch', 'doctrine.sig is signed by a key other than SIGNET_DOCTRINE_PUBLISHER_KEY');
  }
}

/**
 * A deployment that pins the doctrine hash it approved (SIGNET_DOCTRINE_HASH) refuses any
 * other doctrine: the approval lives in the deployment's configuration, apart from the image.
 */
export function checkPinnedHash(doctrine: Doctrine, pinnedHash?: string): void {
  if (pinnedHash === undefined || pinnedHash === doctrine.hash) return;
  throw new SignetError(
    'doctrine_hash_mismatch',
    `SIGNET_DOCTRINE_HASH pins ${pinnedHash} but the doctrine at hand hashes to ${doctrine.hash} (version ${doctrine.meta.version}): ` +
      'serve the approved doctrine, or review this one and pin its hash.',
  );
}
