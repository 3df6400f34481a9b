// The 2026-07-28 per-request `_meta` envelope: which revision, which client, what it can do.
// Problems are reported the way the TypeScript SDK v2 reports them (key, then problem), so
// clients see the same message from Signet as from an SDK server.

import { isObject, type Json } from './jsonrpc.js';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY } from './meta-keys.js';

/** clientInfo is optional (but checked when present); version and capabilities are required. */
const REQUIRED = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY] as const;
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export interface EnvelopeIssue {
  key: string;
  problem: string;
}

/** zod's wording for a type mismatch, which the SDKs put on the wire. */
function received(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
const expected = (type: string, v: unknown) => `Invalid input: expected ${type}, received ${received(v)}`;

/** The envelope `_meta` of a message's params, when params and _meta are objects. */
export function envelopeOf(params: unknown): Json | undefined {
  if (!isObject(params)) return undefined;
  const meta = params['_meta'];
  return isObject(meta) ? meta : undefined;
}

/** Whether the message claims the modern era: its `_meta` names a protocol version key. */
export function hasClaim(params: unknown): boolean {
  const meta = envelopeOf(params);
  return meta !== undefined && PROTOCOL_VERSION_KEY in meta;
}

export function claimedVersion(params: unknown): string | undefined {
  const v = envelopeOf(params)?.[PROTOCOL_VERSION_KEY];
  return typeof v === 'string' ? v : undefined;
}

/** Missing keys first, then wrong types, in a stable order; empty when the envelope is valid. */
export function envelopeIssues(meta: Json): EnvelopeIssue[] {
  const issues: EnvelopeIssue[] = [];
  for (const key of REQUIRED) if (!(key in meta)) issues.push({ key, problem: 'missing' });
  const present = (key: string) => key in meta;
  const version = meta[PROTOCOL_VERSION_KEY];
  if (present(PROTOCOL_VERSION_KEY) && typeof version !== 'string')
    issues.push({ key: PROTOCOL_VERSION_KEY, problem: expected('string', version) });
  const info = meta[CLIENT_INFO_KEY];
  if (present(CLIENT_INFO_KEY)) {
    if (!isObject(info)) issues.push({ key: CLIENT_INFO_KEY, problem: expected('object', info) });
    else {
      for (const field of ['name', 'version']) {
        if (typeof info[field] !== 'string') issues.push({ key: `${CLIENT_INFO_KEY}.${field}`, problem: expected('string', info[field]) });
      }
    }
  }
  const caps = meta[CLIENT_CAPABILITIES_KEY];
  if (present(CLIENT_CAPABILITIES_KEY) && !isObject(caps)) issues.push({ key: CLIENT_CAPABILITIES_KEY, problem: expected('object', caps) });
  const level = meta[LOG_LEVEL_KEY];
  if (present(LOG_LEVEL_KEY) && !(typeof level === 'string' && LOG_LEVELS.includes(level))) {
    issues.push({ key: LOG_LEVEL_KEY, problem: `Invalid option: expected one of ${LOG_LEVELS.map((l) => JSON.stringify(l)).join('|')}` });
  }
  return issues;
}
