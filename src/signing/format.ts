// The signed-output contract. Anything here is part of the public format: changing it
// means a new SIGNATURE_FORMAT.

/** What this version signs. */
export const SIGNATURE_FORMAT = 'signet-output/2';
/** What this version verifies: /1 (before domain separation) stays readable for outputs already signed. */
export const SIGNATURE_FORMATS = ['signet-output/1', 'signet-output/2'] as const;
export type SignatureFormat = (typeof SIGNATURE_FORMATS)[number];
export { SHA256_PREFIX } from '../shared/sha256-tag.js';
export const ED25519_PREFIX = 'ed25519:';

/**
 * The bytes each signature is over (their UTF-8), by format. From /2 on, each kind of signature
 * names its kind first, so no signature of one kind verifies as another (domain separation, as
 * SSHSIG's namespace and DSSE's payload type do): under /1 all three signed a bare
 * "sha256:<hex>", and a resource's signature did not bind its URI or media type.
 * docs/output-format.md, "Which bytes are signed".
 */
export const SIGNED_MESSAGE = {
  output: (format: string, outputHash: string): string => (format === 'signet-output/1' ? outputHash : `signet-output/2\n${outputHash}`),
  /** The doctrine signature of a footer of this (output or resource) format. */
  doctrine: (format: string, doctrineHash: string): string =>
    format === 'signet-output/1' || format === 'signet-resource/1' ? doctrineHash : `signet-doctrine/2\n${doctrineHash}`,
  resource: (format: string, uri: string, mimeType: string, contentHash: string): string =>
    format === 'signet-resource/1' ? contentHash : `signet-resource/2\n${uri}\n${mimeType}\n${contentHash}`,
};

/** Fields every signed output carries under `footer`. */
export interface Footer {
  signature_format: string;
  doctrine_name: string;
  doctrine_version: string;
  doctrine_hash: string;
  /** ed25519:<base64> over SIGNED_MESSAGE.doctrine(signature_format, doctrine_hash). */
  doctrine_signature: string;
  /** base64 of the 44-byte DER SPKI Ed25519 public key. */
  doctrine_public_key: string;
  /** sha256:<hex> of JCS(structuredContent without footer.output_hash / footer.output_signature). */
  output_hash: string;
  /** ed25519:<base64> over SIGNED_MESSAGE.output(signature_format, output_hash). */
  output_signature: string;
}

/** The footer's members, in the order the format lists them (the verifier and the output schema use this list). */
export const FOOTER_MEMBERS = [
  'signature_format',
  'doctrine_name',
  'doctrine_version',
  'doctrine_hash',
  'doctrine_signature',
  'doctrine_public_key',
  'output_hash',
  'output_signature',
] as const satisfies readonly (keyof Footer)[];

/** The doctrine part of a footer: fixed for a given doctrine and key, computed once. */
export type DoctrineFooter = Pick<
  Footer,
  'signature_format' | 'doctrine_name' | 'doctrine_version' | 'doctrine_hash' | 'doctrine_signature' | 'doctrine_public_key'
>;

/** The structuredContent of every tools/call result, before signing. */
export interface OutputBody {
  tool: string;
  input_hash: string | null;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string; details: { where?: string; message: string }[] };
}

export type SignedOutput = OutputBody & { footer: Footer };

/** The copy of a signed output that output_hash covers. */
export function unsignedView(output: Record<string, unknown>): Record<string, unknown> {
  const footer = output['footer'];
  if (footer === null || typeof footer !== 'object' || Array.isArray(footer)) return output;
  const { output_hash: _h, output_signature: _s, ...rest } = footer as Record<string, unknown>;
  return { ...output, footer: rest };
}
