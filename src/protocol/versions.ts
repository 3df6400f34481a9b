// MCP protocol revisions Signet speaks. Revision ids are ISO dates, so string order is
// chronological: everything from 2026-07-28 on is the modern (stateless) era.

/** The 2025-era revisions, newest first: what `initialize` negotiates (the v1 SDK's list). */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];
/** Modern revisions: negotiated per request through the `_meta` envelope and `server/discover`. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const FIRST_MODERN_VERSION = '2026-07-28';

/** Revisions before this one accept JSON-RPC batches (2025-06-18 removed them). */
const LAST_BATCH_VERSION = '2025-03-26';

export function isModernVersion(version: string): boolean {
  return version >= FIRST_MODERN_VERSION;
}

export function isLegacyVersion(version: string): boolean {
  return (LEGACY_VERSIONS as readonly string[]).includes(version);
}

/**
 * A legacy HTTP request with no MCP-Protocol-Version header is 2025-03-26 (the
 * revision that introduced Streamable HTTP), which allowed batches; later ones did not.
 */
export function allowsBatches(headerVersion: string | undefined): boolean {
  return headerVersion === undefined || headerVersion <= LAST_BATCH_VERSION;
}

/** Every method Signet answers in either era: the only method names metrics ever carry. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'notifications/initialized',
  'notifications/cancelled',
]);

/** A metric label for a JSON-RPC method: a known method, "batch", "unparsed" or "other" (a fixed set). */
export function methodLabel(method: string | null): string {
  if (method === null) return 'unparsed';
  if (method === 'batch' || KNOWN_METHODS.has(method)) return method;
  return 'other';
}
