// The signed-output contract. Anything here is part of the public format: changing it
// means a new SIGNATURE_FORMAT.

export const SIGNATURE_FORMAT = 'signet-output/1';
export { SHA256_PREFIX } from '../shared/sha256-tag.js';
export const ED25519_PREFIX = 'ed25519:';

/** Fields every signed output carries under `footer`. */
export interface Footer {
  signature_format: string;
  doctrine_name: string;
  doctrine_version: string;
  doctrine_hash: string;
  /** ed25519:<base64> over the UTF-8 bytes of doctrine_hash. */
  doctrine_signature: string;
  /** base64 of the 44-byte DER SPKI Ed25519 public key. */
  doctrine_public_key: string;
  /** sha256:<hex> of JCS(structuredContent without footer.output_hash / footer.output_signature). */
  output_hash: string;
  /** ed25519:<base64> over the UTF-8 bytes of output_hash. */
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
