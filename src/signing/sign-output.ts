import { canonicalJson } from './canonical.js';
import type { DoctrineFooter, OutputBody, SignedOutput } from './format.js';
import { sha256Tagged, type Signer } from './signer.js';

export interface SignedPayload {
  /** structuredContent: the signed output, keys in canonical order. */
  structured: SignedOutput;
  /** Exactly JCS(structured): the text content of the tool result. */
  text: string;
}

/**
 * JCS of the output with a given (already canonical) footer. An object's canonical form
 * is its members sorted by key, each value canonical, so the body members are
 * canonicalised once and reused for both the unsigned and the signed text.
 */
function assemble(members: [string, string][], footerCanonical: string): string {
  const all: [string, string][] = [...members, ['footer', footerCanonical]];
  // Top-level keys are fixed ASCII names: plain sort is UTF-16 order, as JCS requires.
  all.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return '{' + all.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',') + '}';
}

/** The one place where tool outputs are signed. */
export function signOutput(body: OutputBody, doctrineFooter: DoctrineFooter, signer: Signer): SignedPayload {
  const members: [string, string][] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'footer' && value !== undefined) members.push([key, canonicalJson(value)]);
  }
  const outputHash = sha256Tagged(assemble(members, canonicalJson(doctrineFooter)));
  const footer = { ...doctrineFooter, output_hash: outputHash, output_signature: signer.sign(outputHash) };
  const text = assemble(members, canonicalJson(footer));
  // Re-read the canonical text so structuredContent serialises in the same key order.
  return { structured: JSON.parse(text) as SignedOutput, text };
}
