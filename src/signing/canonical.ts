import canonicalize from 'canonicalize';
import { SignetError } from '../errors.js';

/** RFC 8785 (JCS) canonical JSON. Throws for values JSON cannot represent (NaN, lone surrogates...). */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (err) {
    throw new SignetError('invalid_arguments', `Value cannot be canonicalised as JSON: ${(err as Error).message}`);
  }
  if (text === undefined) throw new SignetError('invalid_arguments', 'Value has no JSON representation');
  return text;
}
