// Reproducible verification: re-run the tool that produced a signed output, on a local copy
// of the doctrine and with no key, and compare byte for byte. A consumer who holds the
// doctrine then needs to trust neither the server's honesty nor its key for the result.
import type { AttestationSigner } from '../check/attestation.js';
import { DoctrineSearch } from '../doctrine/search.js';
import type { Doctrine } from '../doctrine/types.js';
import { SignetError } from '../errors.js';
import type { Json } from '../shared/json.js';
import { acceptPublicKey } from '../signing/acceptance.js';
import { canonicalJson } from '../signing/canonical.js';
import { base64ToBytes } from '../signing/encoding.js';
import { type DoctrineFooter, SIGNATURE_FORMAT, SIGNATURE_FORMATS } from '../signing/format.js';
import type { SigningKeyInfo } from '../signing/keyring.js';
import { nodePrimitives } from '../signing/node-primitives.js';
import { canonicalBody } from '../signing/sign-output.js';
import { fingerprint } from '../signing/trust.js';
import type { VerifyReason } from '../signing/verify.js';
import { ToolRunner } from './runner.js';
import type { ToolContext } from './types.js';

/** Tools whose result depends on more than (doctrine, arguments). */
const NOT_RECOMPUTABLE: Record<string, string> = {
  verify_output: "verify_output's result depends on the keys the server trusted when it ran",
};

/**
 * A deployment_check result carries a DSSE signature, which no one can recompute without the
 * key: the recomputation takes the one the output carries, but only when it verifies over the
 * recomputed statement with the key the footer names (else 64 zero bytes, and a mismatch).
 */
function carriedSignature(output: Json, publicKey: string): AttestationSigner {
  const result = output['result'] as Json | undefined;
  const envelope = result?.['attestation'] as { signatures?: { sig?: unknown }[] } | undefined;
  const carried = typeof envelope?.signatures?.[0]?.sig === 'string' ? base64ToBytes(envelope.signatures[0].sig) : null;
  const key = acceptPublicKey(publicKey);
  return {
    publicKey,
    keyid: fingerprint(publicKey),
    sign: (pae) => (carried && key instanceof Uint8Array && nodePrimitives.ed25519Verify(carried, pae, key) ? carried : new Uint8Array(64)),
  };
}

/**
 * Recomputes `output` (a signed structuredContent) from `args` on `doctrine`. Returns the
 * reasons it does not match; empty when the signed body is exactly what the doctrine gives.
 * An output whose result depends on more than (doctrine, arguments) gives recompute_unsupported.
 */
export function recompute(
  doctrine: Doctrine,
  output: Json,
  args: unknown,
  limits = { maxArgumentBytes: 256 * 1024, maxArgumentDepth: 32 },
): VerifyReason[] {
  const tool = String(output['tool']);
  if (NOT_RECOMPUTABLE[tool]) return [{ code: 'recompute_unsupported', message: `cannot recompute: ${NOT_RECOMPUTABLE[tool]}` }];
  const footer = output['footer'] as Json;
  // The footer's doctrine fields are the local doctrine's, or the output is over another one.
  // Any format this version reads: the format decides which bytes are signed, not the result.
  const format = (SIGNATURE_FORMATS as readonly unknown[]).includes(footer['signature_format'])
    ? String(footer['signature_format'])
    : SIGNATURE_FORMAT;
  const local: Record<string, string> = {
    signature_format: format,
    doctrine_name: doctrine.meta.name,
    doctrine_version: doctrine.meta.version,
    doctrine_hash: doctrine.hash,
  };
  const differing = Object.keys(local).filter((k) => footer[k] !== local[k]);
  if (differing.length > 0) {
    const said = differing.map((k) => `${k} ${JSON.stringify(footer[k])} (local: ${JSON.stringify(local[k])})`).join(', ');
    return [{ code: 'recompute_doctrine_mismatch', message: `the output was signed over another doctrine than the local one: ${said}` }];
  }
  // What describes the signer (doctrine_info shows it) comes from the output itself: the
  // signatures and the trust check vouch for it, the recomputation for everything else.
  const result = output['result'] as Json | undefined;
  const signingKeys =
    tool === 'doctrine_info' && Array.isArray(result?.['signing_keys']) ? (result['signing_keys'] as SigningKeyInfo[]) : [];
  const doctrineFooter: DoctrineFooter = {
    ...(local as Pick<DoctrineFooter, 'signature_format' | 'doctrine_name' | 'doctrine_version' | 'doctrine_hash'>),
    doctrine_signature: String(footer['doctrine_signature']),
    doctrine_public_key: String(footer['doctrine_public_key']),
  };
  const ctx: ToolContext = {
    doctrine,
    search: new DoctrineSearch(doctrine),
    footer: doctrineFooter,
    signingKeys,
    trust: { keys: new Map(), doctrineHashes: null },
    verify: () => {
      throw new SignetError('internal_error', 'verify is not available while recomputing');
    },
    attestationSigner: carriedSignature(output, String(footer['doctrine_public_key'])),
  };
  const runner = new ToolRunner(ctx, limits);
  if (!runner.has(tool))
    return [
      {
        code: 'recompute_unsupported',
        message: `cannot recompute: this version of Signet has no tool ${JSON.stringify(tool.slice(0, 60))}`,
      },
    ];
  const body = runner.body(tool, args);
  const reasons: VerifyReason[] = [];
  if (body.input_hash !== output['input_hash']) {
    reasons.push({
      code: 'recompute_input_hash_mismatch',
      message: 'input_hash does not match these arguments: the output answers a different call',
    });
  }
  const { footer: _f, ...signedBody } = output;
  if (canonicalBody(body) !== canonicalJson(signedBody)) {
    reasons.push({ code: 'recompute_mismatch', message: 'the signed result differs from what the doctrine gives for these arguments' });
  }
  return reasons;
}
