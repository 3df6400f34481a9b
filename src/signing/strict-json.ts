// JSON with exactly one reading. JSON.parse keeps the last of two members with the same
// name while other parsers keep the first (RFC 8259 §4 leaves it open), so a signed output
// with a duplicate member could mean one thing to the verifier and another to its reader.
// momoa (a strict JSON parser that keeps every member in its syntax tree) finds them.
import { parse as parseTree } from '@humanwhocodes/momoa';

type Node = ReturnType<typeof parseTree>['body'];

export type StrictParse = { ok: true; value: unknown } | { ok: false; code: 'not_json' | 'duplicate_member'; message: string };

function firstDuplicate(root: Node): string | null {
  const stack: [Node, string][] = [[root, '$']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        const at = `${path}.${JSON.stringify(name)}`;
        if (seen.has(name)) return at;
        seen.add(name);
        stack.push([member.value, at]);
      }
    } else if (node.type === 'Array') {
      node.elements.forEach((element, i) => stack.push([element.value, `${path}[${i}]`]));
    }
  }
  return null;
}

/** Parses JSON text, refusing it when any object at any depth names a member twice. */
export function parseStrictJson(text: string): StrictParse {
  let tree: ReturnType<typeof parseTree>;
  try {
    tree = parseTree(text, { mode: 'json' });
  } catch (err) {
    return { ok: false, code: 'not_json', message: `input is not JSON (${(err as Error).message.slice(0, 120)})` };
  }
  const duplicate = firstDuplicate(tree.body);
  if (duplicate !== null) return { ok: false, code: 'duplicate_member', message: `member ${duplicate} appears more than once` };
  // The grammar is checked; JSON.parse builds the value (own properties, __proto__ included).
  return { ok: true, value: JSON.parse(text) as unknown };
}
