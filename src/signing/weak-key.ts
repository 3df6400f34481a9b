// Ed25519 public keys that vouch for nothing. A key of small order (the identity and the
// other seven torsion points) admits signatures that verify for any message under the
// cofactored equation, and verifiers disagree on them: OpenSSL 3.0 accepts one, OpenSSL 3.5
// and @noble/ed25519 (strict) refuse it. Refusing them up front keeps every path in agreement.
import * as ed from '@noble/ed25519';

/** Why a raw 32-byte Ed25519 public key is unusable, or null when it is a proper key. */
export function weakPublicKey(raw: Uint8Array): string | null {
  let point: ed.Point;
  try {
    point = ed.Point.fromBytes(raw, false);
  } catch {
    return 'is not a point on the Ed25519 curve';
  }
  return point.isSmallOrder() ? 'is a point of small order, which a signature can match for any message' : null;
}
