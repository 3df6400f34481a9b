// Trust files (`signet-trust/1`): which signers a consumer accepts, and optionally which
// doctrines. Portable (no Node built-ins): the CLI, the server and the browser page share it.
// The contract is docs/schemas/trust.schema.json; a test keeps the two in agreement.
import { sha256 } from '@noble/hashes/sha2.js';
import { isObject } from '../shared/json.js';
import { base64ToBytes, bytesToBase64, isSha256Tag, rawKeyFromSpkiBase64 } from './encoding.js';
import { isBytes, parseStrictJson } from './strict-json.js';
import { weakPublicKey } from './weak-key.js';

export const TRUST_FORMAT = 'signet-trust/1';
export const KEY_STATUSES = ['active', 'retired', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

export interface TrustedKey {
  /** A name for people ("signet-prod-2026"); not checked against anything. */
  name: string;
  /** base64 DER SPKI of the Ed25519 key, as in `doctrine_public_key`. */
  public_key: string;
  /** active: signs now, or is published to sign next; retired: signed before, its outputs stay valid; revoked: refused. */
  status: KeyStatus;
  /** Free text: why retired or revoked, when. */
  note?: string;
}

export interface TrustFile {
  format: typeof TRUST_FORMAT;
  keys: TrustedKey[];
  /** When present, only outputs over one of these doctrines are accepted. */
  doctrine_hashes?: string[];
}

/** What a verification checks a signer against: keys by SPKI, optional doctrine pins. */
export interface TrustSet {
  keys: Map<string, { name: string; status: KeyStatus }>;
  doctrineHashes: Set<string> | null;
}

export class TrustFileError extends Error {
  override readonly name = 'TrustFileError';
}

const KEY_MEMBERS = new Set(['name', 'public_key', 'status', 'note']);
const FILE_MEMBERS = new Set(['format', 'keys', 'doctrine_hashes']);

/** Why a pinned key is unusable (not base64 DER SPKI Ed25519, not a point, small order), or null. */
function keyProblem(spkiB64: unknown): string | null {
  const raw = typeof spkiB64 === 'string' ? rawKeyFromSpkiBase64(spkiB64) : null;
  if (!raw) return 'must be the base64 DER SPKI of an Ed25519 key';
  const weak = weakPublicKey(raw);
  return weak ? `${weak}: it cannot be pinned` : null;
}

/** SHA256:<unpadded base64 of SHA-256 over the DER SPKI>, the way OpenSSH prints key fingerprints. */
export function fingerprint(spkiB64: string): string {
  const der = base64ToBytes(spkiB64);
  if (!der) return 'SHA256:?';
  return `SHA256:${bytesToBase64(sha256(der)).replace(/=+$/, '')}`;
}

/**
 * Reads a trust file (its JSON text, or the parsed object) and refuses anything that is not
 * exactly `signet-trust/1`: unknown members, duplicate members, malformed or repeated keys.
 */
export function parseTrustFile(input: string | unknown, source = 'trust file'): TrustFile {
  let value = input;
  if (typeof input === 'string' || isBytes(input)) {
    const parsed = parseStrictJson(input);
    if (!parsed.ok) throw new TrustFileError(`${source}: ${parsed.message}`);
    value = parsed.value;
  }
  const fail = (message: string): never => {
    throw new TrustFileError(`${source}: ${message}`);
  };
  if (!isObject(value)) return fail('must be a JSON object');
  for (const k of Object.keys(value)) if (!FILE_MEMBERS.has(k)) fail(`unknown member "${k.slice(0, 40)}"`);
  if (value['format'] !== TRUST_FORMAT) fail(`format must be "${TRUST_FORMAT}"`);
  const keys = value['keys'];
  if (!Array.isArray(keys)) return fail('keys must be an array');
  const seen = new Set<string>();
  const out: TrustedKey[] = keys.map((k: unknown, i) => {
    const where = `keys[${i}]`;
    if (!isObject(k)) return fail(`${where} must be an object`);
    for (const m of Object.keys(k)) if (!KEY_MEMBERS.has(m)) fail(`${where}: unknown member "${m.slice(0, 40)}"`);
    const { name, public_key: publicKey, status, note } = k;
    if (typeof name !== 'string' || name.length === 0 || name.length > 100) fail(`${where}.name must be a string of 1 to 100 characters`);
    const problem = keyProblem(publicKey);
    if (problem) fail(`${where}.public_key ${problem}`);
    if (!KEY_STATUSES.includes(status as KeyStatus)) fail(`${where}.status must be one of ${KEY_STATUSES.join(', ')}`);
    if (note !== undefined && (typeof note !== 'string' || note.length > 500))
      fail(`${where}.note must be a string of at most 500 characters`);
    if (seen.has(publicKey as string)) fail(`${where}: the same public key is listed twice`);
    seen.add(publicKey as string);
    return { name, public_key: publicKey, status, ...(note === undefined ? {} : { note }) } as TrustedKey;
  });
  const file: TrustFile = { format: TRUST_FORMAT, keys: out };
  const hashes = value['doctrine_hashes'];
  if (hashes !== undefined) {
    if (!Array.isArray(hashes) || !hashes.every(isSha256Tag)) fail('doctrine_hashes must be an array of sha256:<64 lowercase hex>');
    // An empty list would pin nothing while looking like a pin (pen test L3): refused, as OpenSSH
    // refuses an empty principals list in a certificate option rather than reading it as "any".
    if ((hashes as unknown[]).length === 0) fail('doctrine_hashes must list at least one hash; omit the member to pin no doctrine');
    file.doctrine_hashes = [...(hashes as string[])];
  }
  return file;
}

/**
 * One set from trust files and loose pins. A key listed twice keeps its strongest
 * verdict (revoked over retired over active), so merging never un-revokes a key.
 */
export function trustSet(
  sources: { files?: TrustFile[]; publicKeys?: string[]; doctrineHashes?: string[] },
  /** How errors name the loose pins: CLI options by default, tool arguments for verify_output. */
  names = { publicKeys: '--public-key', doctrineHashes: '--doctrine-hash' },
): TrustSet {
  const rank: Record<KeyStatus, number> = { active: 0, retired: 1, revoked: 2 };
  const keys: TrustSet['keys'] = new Map();
  const add = (publicKey: string, name: string, status: KeyStatus) => {
    const known = keys.get(publicKey);
    if (!known || rank[status] > rank[known.status]) keys.set(publicKey, { name: known?.name ?? name, status });
  };
  let hashes: Set<string> | null = null;
  for (const f of sources.files ?? []) {
    for (const k of f.keys) add(k.public_key, k.name, k.status);
    if (f.doctrine_hashes) for (const h of f.doctrine_hashes) (hashes ??= new Set()).add(h);
  }
  for (const k of sources.publicKeys ?? []) {
    const problem = keyProblem(k);
    if (problem) throw new TrustFileError(`${names.publicKeys}: ${JSON.stringify(String(k).slice(0, 80))} ${problem}`);
    add(k, 'pinned', 'active');
  }
  for (const h of sources.doctrineHashes ?? []) {
    if (!isSha256Tag(h))
      throw new TrustFileError(`${names.doctrineHashes}: ${JSON.stringify(String(h).slice(0, 80))} is not sha256:<64 lowercase hex>`);
    (hashes ??= new Set()).add(h);
  }
  return { keys, doctrineHashes: hashes };
}
