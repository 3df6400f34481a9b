import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * One Ajv instance for the whole process; compiled validators are cached per schema
 * object. Strict mode rejects unknown keywords, bad types and keywords without their
 * type at compile time. Validating a schema against the 2020-12 meta-schema costs
 * ~50 ms of cold start (a third of the budget), so it is not done on every compile:
 * `signet doctrine check` runs it on a doctrine's facts schema explicitly.
 */
export const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateSchema: false });

/** Full meta-schema validation of an untrusted schema; error messages, empty when valid. */
export function metaSchemaErrors(schema: unknown): string[] {
  const strictAjv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  if (strictAjv.validateSchema(schema as object)) return [];
  return (strictAjv.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'invalid'}`);
}
