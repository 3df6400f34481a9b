import { canonicalJson, canonicalObject, PreCanonical } from './canonical.js';
import type { DoctrineFooter, OutputBody, SignedOutput } from './format.js';
import { sha256Tagged, type Signer } from './signer.js';

export interface SignedPayload {
  /** Exactly JCS(structured): the text content of the tool result, and the signed bytes. */
  readonly text: string;
  /** structuredContent: the signed output, keys in canonical order (parsed from `text` on first use). */
  readonly structured: SignedOutput;
}

/** The doctrine footer's canonical members, computed once per footer object. */
const footerMembers = new WeakMap<DoctrineFooter, [string, string][]>();

function membersOf(footer: DoctrineFooter): [string, string][] {
  let members = footerMembers.get(footer);
  if (!members) footerMembers.set(footer, (members = Object.entries(footer).map(([k, v]) => [k, canonicalJson(v)])));
  return members;
}

/**
 * The one place where tool outputs are signed. The body is canonicalised member by member
 * once; the unsigned and the signed text differ only in the footer, so both are assembled
 * from the same canonical pieces. A result the tool already canonicalised (PreCanonical)
 * is used as is.
 */
export function signOutput(body: OutputBody, doctrineFooter: DoctrineFooter, signer: Signer): SignedPayload {
  const members: [string, string][] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'footer' || value === undefined) continue;
    members.push([key, value instanceof PreCanonical ? value.json : canonicalJson(value)]);
  }
  const footer = membersOf(doctrineFooter);
  const outputHash = sha256Tagged(canonicalObject([...members, ['footer', canonicalObject(footer)]]));
  const signedFooter = canonicalObject([
    ...footer,
    ['output_hash', JSON.stringify(outputHash)],
    ['output_signature', JSON.stringify(signer.sign(outputHash))],
  ]);
  const text = canonicalObject([...members, ['footer', signedFooter]]);
  let structured: SignedOutput | undefined;
  return {
    text,
    // Re-read the canonical text so structuredContent serialises in the same key order.
    get structured() {
      return (structured ??= JSON.parse(text) as SignedOutput);
    },
  };
}
