// DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse, protocol v1): what a
// DSSE signature covers, and the one envelope shape Signet writes and reads. Portable: no Node
// built-ins (the verifier uses it in browsers too).
import { utf8Bytes } from './encoding.js';

/** The payload type of an in-toto Statement (in-toto attestation framework, v1). */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export interface DsseSignature {
  keyid: string;
  /** Standard base64 of the raw signature. */
  sig: string;
}

export interface DsseEnvelope {
  /** Standard base64 of the payload bytes. */
  payload: string;
  payloadType: string;
  signatures: DsseSignature[];
}

/**
 * PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII
 * decimal bytes: the bytes a DSSE signature is made over, never the envelope's JSON.
 */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Uint8Array {
  const type = utf8Bytes(payloadType);
  const head = utf8Bytes(`DSSEv1 ${type.length} ${payloadType} ${payload.length} `);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head, 0);
  out.set(payload, head.length);
  return out;
}
