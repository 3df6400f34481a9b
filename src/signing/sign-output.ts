import { createHash } from 'node:crypto';
import { byKey, canonicalJson, canonicalObject, PreCanonical } from './canonical.js';
import { type DoctrineFooter, type OutputBody, SHA256_PREFIX, SIGNED_MESSAGE, type SignedOutput } from './format.js';
import type { Signer } from './signer.js';

export interface SignedPayload {
  /** Exactly JCS(structured): the text content of the tool result, and the signed bytes. */
  readonly text: string;
  /** structuredContent: the signed output, keys in canonical order (parsed from `text` on first use). */
  readonly structured: SignedOutput;
}

/** The doctrine footer's canonical members and its canonical JSON, computed once per footer object. */
const footerCache = new WeakMap<DoctrineFooter, { members: [string, string][]; json: string }>();

function footerOf(footer: DoctrineFooter): { members: [string, string][]; json: string } {
  let f = footerCache.get(footer);
  if (!f) {
    const members = Object.entries(footer).map(([k, v]): [string, string] => [k, canonicalJson(v)]);
    footerCache.set(footer, (f = { members, json: canonicalObject(members) }));
  }
  return f;
}

/**
 * sha256:<hex> of canonicalObject(members), fed to the hash piece by piece: the unsigned
 * text is never built, so a large result is not copied into a second string only to be hashed.
 */
function hashCanonicalObject(members: [string, string][]): string {
  const sorted = [...members].sort(byKey);
  const hash = createHash('sha256');
  sorted.forEach(([key, json], i) => {
    hash.update(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`);
    hash.update(json);
  });
  hash.update(sorted.length === 0 ? '{}' : '}');
  return SHA256_PREFIX + hash.digest('hex');
}

/**
 * The one place where tool outputs are signed. The body is canonicalised member by member
 * once; the unsigned and the signed text differ only in the footer, so both are assembled
 * from the same canonical pieces. A result the tool already canonicalised (PreCanonical)
 * is used as is.
 */
function bodyMembers(body: OutputBody): [string, string][] {
  const members: [string, string][] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'footer' || value === undefined) continue;
    members.push([key, value instanceof PreCanonical ? value.json : canonicalJson(value)]);
  }
  return members;
}

/** JCS of an unsigned output body: the bytes a signed output holds besides its footer. */
export function canonicalBody(body: OutputBody): string {
  return canonicalObject(bodyMembers(body));
}

export function signOutput(body: OutputBody, doctrineFooter: DoctrineFooter, signer: Signer): SignedPayload {
  const members = bodyMembers(body);
  const footer = footerOf(doctrineFooter);
  const outputHash = hashCanonicalObject([...members, ['footer', footer.json]]);
  const signedFooter = canonicalObject([
    ...footer.members,
    ['output_hash', JSON.stringify(outputHash)],
    // The footer's format says which bytes (SIGNED_MESSAGE): the server's is SIGNATURE_FORMAT.
    ['output_signature', JSON.stringify(signer.sign(SIGNED_MESSAGE.output(doctrineFooter.signature_format, outputHash)))],
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
