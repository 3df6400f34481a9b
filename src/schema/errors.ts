// Ajv errors as Signet's error details: one place that turns a JSON pointer into a dotted
// path under a root name and words the common keywords, for tool arguments, facts and
// doctrine files alike. Names a caller chose are quoted back bounded.
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../errors.js';

const quote = (name: string) => (name.length > 100 ? `${name.slice(0, 100)}…` : name);

/**
 * `root` is what the pointer is relative to ("arguments", "facts", "doctrine.json: "); the
 * path joins it with a dot unless it ends with a space. `unknown` names what an unknown
 * property is ("property", "fact").
 */
export function ajvDetails(
  root: string,
  errors: ErrorObject[] | null | undefined,
  options: { unknown?: string; limit?: number } = {},
): ErrorDetail[] {
  return (errors ?? []).slice(0, options.limit ?? 20).map((e) => {
    const path = e.instancePath.slice(1).replace(/\//g, '.');
    const where = root.endsWith(' ') ? `${root}${path || '(root)'}` : path ? `${root}.${path}` : root;
    if (e.keyword === 'additionalProperties') {
      return { where, message: `unknown ${options.unknown ?? 'property'} "${quote(String(e.params['additionalProperty']))}"` };
    }
    if (e.keyword === 'enum') return { where, message: `must be one of ${JSON.stringify(e.params['allowedValues'])}` };
    return { where, message: e.message ?? 'invalid' };
  });
}
