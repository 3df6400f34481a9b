import type { AttestationSigner } from '../check/attestation.js';
import type { DoctrineSearch } from '../doctrine/search.js';
import type { Doctrine } from '../doctrine/types.js';
import type { DoctrineFooter } from '../signing/format.js';
import type { SigningKeyInfo } from '../signing/keyring.js';
import type { TrustSet } from '../signing/trust.js';
import type { VerifyReport } from '../signing/verify.js';

/** What a tool handler may read. Immutable, built once per doctrine + key. */
export interface ToolContext {
  doctrine: Doctrine;
  search: DoctrineSearch;
  footer: DoctrineFooter;
  /** This server's signing keys: current (active) first, then retired and revoked ones. */
  signingKeys: SigningKeyInfo[];
  /** What verify_output trusts by default: this server's current and retired keys (revoked ones refused). */
  trust: TrustSet;
  /** Verifies an output against `trust` with node:crypto. */
  verify(output: unknown, trust: TrustSet): VerifyReport;
  /** Signs deployment_check's attestations: the server's key (in a recomputation, the signature the output carries, if it verifies). */
  attestationSigner: AttestationSigner;
}

export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition<Input = Record<string, unknown>> {
  name: string;
  title: string;
  /** What an agent reads to decide when and how to call the tool. */
  description: string;
  /** Advertised in tools/list and enforced before `run` is called. */
  inputSchema: (doctrine: Doctrine) => JsonSchema;
  /**
   * What the dispatcher compiles to enforce inputSchema, when the tool checks part of it
   * itself (doctrine_evaluate validates facts with the doctrine's own compiled validator
   * rather than compiling the facts schema a second time).
   */
  validationSchema?: (doctrine: Doctrine) => JsonSchema;
  /** Schema of `structuredContent.result` on success. */
  resultSchema: JsonSchema;
  /** Pure: (context, validated input) → result. Throws SignetError for a user-facing failure. */
  run(ctx: ToolContext, input: Input): unknown;
}

export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
