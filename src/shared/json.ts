// A JSON object as the code reads one: every layer's one definition (portable: no Node built-ins).
export type Json = Record<string, unknown>;

/** A plain object: not null, not an array. */
export function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
