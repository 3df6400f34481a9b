import { canonicalJson } from './canonical.js';
import type { DoctrineFooter, OutputBody, SignedOutput } from './format.js';
import { sha256Tagged, type Signer } from './signer.js';

export interface SignedPayload {
  /** structuredContent: the signed output, keys in canonical order. */
  structured: SignedOutput;
  /** Exactly JCS(structured): the text content of the tool result. */
  text: string;
}

/** The one place where tool outputs are signed. */
export function signOutput(body: OutputBody, doctrineFooter: DoctrineFooter, signer: Signer): SignedPayload {
  const unsigned = { ...body, footer: { ...doctrineFooter } };
  const outputHash = sha256Tagged(canonicalJson(unsigned));
  const signed = { ...unsigned, footer: { ...doctrineFooter, output_hash: outputHash, output_signature: signer.sign(outputHash) } };
  const text = canonicalJson(signed);
  // Re-read the canonical text so structuredContent serialises in the same key order.
  return { structured: JSON.parse(text) as SignedOutput, text };
}
