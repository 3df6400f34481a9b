// Rule conditions are JSON Logic data. Only side-effect-free operators that read facts
// by absolute path are allowed: no `method` (calls host methods), no `log`, and no
// iteration operators whose `var` would refer to loop items instead of facts.
export const ALLOWED_OPERATORS = new Set([
  'var',
  'missing',
  'missing_some',
  'if',
  '?:',
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '>',
  '>=',
  '<',
  '<=',
  'in',
  'cat',
  'substr',
  '+',
  '-',
  '*',
  '/',
  '%',
  'min',
  'max',
  'merge',
]);

export interface LogicScan {
  /** Facts whose values the expression reads. */
  vars: string[];
  /** Facts whose presence alone it tests (`missing`, `missing_some`): always known, so never unknown. */
  presence: string[];
  errors: string[];
}

/** Walks a JSON Logic expression: collects `var` paths and reports disallowed shapes. */
export function scanLogic(logic: unknown, at = ''): LogicScan {
  const vars = new Set<string>();
  const presence = new Set<string>();
  const errors: string[] = [];
  const stack: { node: unknown; at: string }[] = [{ node: logic, at }];
  while (stack.length > 0) {
    const { node, at: here } = stack.pop()!;
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) stack.push({ node: child, at: `${here}[${i}]` });
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const keys = Object.keys(node);
    if (keys.length !== 1) {
      errors.push(`${here || '.'}: an operation is an object with exactly one operator key, found ${keys.length}`);
      continue;
    }
    const op = keys[0]!;
    const args = (node as Record<string, unknown>)[op];
    if (!ALLOWED_OPERATORS.has(op)) {
      errors.push(`${here || '.'}: operator "${op}" is not allowed`);
      continue;
    }
    if (op === 'var') {
      const path = Array.isArray(args) ? args[0] : args;
      if (typeof path !== 'string' || path === '' || (Array.isArray(args) && args.length > 1)) {
        errors.push(`${here}.var: must be a non-empty fact path string without a default`);
      } else vars.add(path);
      continue;
    }
    if (op === 'missing' || op === 'missing_some') {
      const list = op === 'missing_some' && Array.isArray(args) ? args[1] : args;
      for (const p of Array.isArray(list) ? list : [list]) if (typeof p === 'string') presence.add(p);
    }
    stack.push({ node: args, at: `${here}.${op}` });
  }
  return { vars: [...vars].sort(), presence: [...presence].sort(), errors };
}
