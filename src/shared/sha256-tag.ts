// The one spelling of a Signet hash: `sha256:` + 64 lowercase hex digits. Portable (no Node
// built-ins): the browser verifier uses it too.
export const SHA256_PREFIX = 'sha256:';
/** For JSON Schemas. */
export const SHA256_TAG_PATTERN = '^sha256:[0-9a-f]{64}$';
const SHA256_TAG = new RegExp(SHA256_TAG_PATTERN);

export function isSha256Tag(value: unknown): value is string {
  return typeof value === 'string' && SHA256_TAG.test(value);
}
