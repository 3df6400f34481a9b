import { sign as edSign, type KeyObject } from 'node:crypto';
import { ED25519_PREFIX } from './format.js';
import { spkiOf } from './spki.js';

/**
 * Holds the private key and signs with node:crypto (~10x faster than a pure-JS Ed25519).
 * The KeyObject never leaves this object; nothing here serialises it.
 */
export class Signer {
  readonly publicKeySpki: string;
  readonly #key: KeyObject;
  /** Told about every signature made (metrics). */
  onSign: (() => void) | null = null;

  constructor(privateKey: KeyObject) {
    if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
      throw new TypeError('Signer needs an Ed25519 private key');
    }
    this.#key = privateKey;
    this.publicKeySpki = spkiOf(privateKey);
  }

  /** ed25519:<base64> over the UTF-8 bytes of `text`. */
  sign(text: string): string {
    this.onSign?.();
    return ED25519_PREFIX + edSign(null, Buffer.from(text, 'utf8'), this.#key).toString('base64');
  }

  /** Raw Ed25519 signature (64 bytes) over `data`: DSSE envelopes carry it in their own encoding. */
  signBytes(data: Uint8Array): Uint8Array {
    this.onSign?.();
    return new Uint8Array(edSign(null, data, this.#key));
  }

  // Keep the key out of console.log, util.inspect and JSON.stringify.
  toJSON(): { publicKeySpki: string } {
    return { publicKeySpki: this.publicKeySpki };
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Signer(${this.publicKeySpki})`;
  }
}
