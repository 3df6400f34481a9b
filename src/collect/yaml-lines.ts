// YAML read with the line of every key and item, so each fact can name the line it comes from.
// Merge keys (`<<: *anchor`) are resolved as Compose and Kubernetes tools resolve them; the
// lines of merged keys are the anchor's. Aliases are bounded by the yaml library (100 by default).
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseAllDocuments, type Scalar } from 'yaml';

/** A path into parsed YAML: keys and item indexes. */
export type YamlPath = readonly (string | number)[];

export interface YamlDoc {
  value: unknown;
  /** 1-based line of the key or item at `path`, or of its nearest located ancestor. */
  line(path: YamlPath): number;
  /** The key or item at exactly `path` is written in this document. */
  has(path: YamlPath): boolean;
}

const join = (path: YamlPath) => path.join('\u0001');

/** Custom tags Compose defines (2.24+): `!reset` drops an inherited value, `!override` replaces it. */
export const RESET = Symbol('compose !reset');
export class Override {
  readonly value: unknown;
  constructor(value: unknown) {
    this.value = value;
  }
}
const composeTags = [
  { tag: '!reset', collection: 'map' as const, resolve: () => RESET },
  { tag: '!reset', collection: 'seq' as const, resolve: () => RESET },
  { tag: '!reset', resolve: () => RESET },
  { tag: '!override', collection: 'map' as const, resolve: (v: unknown) => new Override(v) },
  { tag: '!override', collection: 'seq' as const, resolve: (v: unknown) => new Override(v) },
];

/** Every document of a YAML stream. Throws the parser's first error (with its line). */
export function readYaml(text: string, options: { composeTags?: boolean } = {}): YamlDoc[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, {
    lineCounter: lc,
    merge: true,
    uniqueKeys: false,
    customTags: options.composeTags ? (composeTags as never) : [],
  });
  if (!Array.isArray(docs)) return [];
  const out: YamlDoc[] = [];
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) throw new Error(`YAML line ${lc.linePos(err.pos[0]).line}: ${err.message.split('\n')[0]}`);
    if (doc.contents === null) continue;
    const lines = new Map<string, number>();
    // The document itself is where its content starts: the second of a multi-document file is not on line 1.
    if (doc.contents.range) lines.set(join([]), lc.linePos(doc.contents.range[0]).line);
    walk(doc, doc.contents as Node, [], lines, lc, 0, { left: MAX_NODES });
    out.push({
      value: doc.toJS({ maxAliasCount: 100 }),
      line(path) {
        for (let n = path.length; n >= 0; n--) {
          const l = lines.get(join(path.slice(0, n)));
          if (l !== undefined) return l;
        }
        return 1;
      },
      has: (path) => lines.has(join(path)),
    });
  }
  return out;
}

/**
 * Nodes one document may have with its aliases followed: a deployment file has a few thousand;
 * the billion laughs (nine aliases of nine aliases...) would have 9^9 and take minutes.
 */
const MAX_NODES = 100_000;

function walk(
  doc: Document,
  node: Node | null,
  path: YamlPath,
  lines: Map<string, number>,
  lc: LineCounter,
  depth: number,
  budget: { left: number },
): void {
  if (!node || depth > 64) return;
  if (--budget.left < 0) throw new Error(`YAML with more than ${MAX_NODES} nodes once its aliases are expanded (an alias bomb?)`);
  if (isAlias(node)) {
    walk(doc, node.resolve(doc) as Node, path, lines, lc, depth + 1, budget);
    return;
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      // A merge key's value is a symbol in yaml 2; its source is `<<`.
      const key = isScalar(keyNode)
        ? typeof keyNode.value === 'symbol'
          ? String(keyNode.source)
          : String(keyNode.value)
        : String(keyNode);
      if (key === '<<') {
        // Merged keys: explicit keys of this map win, so only fill what is not located yet.
        const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
        for (const s of sources) {
          const target = isAlias(s) ? (s.resolve(doc) as Node) : (s as Node);
          if (!isMap(target)) continue;
          for (const p of target.items) {
            const k = isScalar(p.key) ? String((p.key as Scalar).value) : String(p.key);
            const here = join([...path, k]);
            if (!lines.has(here) && (p.key as Node)?.range) lines.set(here, lc.linePos((p.key as Node).range![0]).line);
            walk(doc, p.value as Node, [...path, k], lines, lc, depth + 1, budget);
          }
        }
        continue;
      }
      const here = [...path, key];
      if (keyNode?.range) lines.set(join(here), lc.linePos(keyNode.range[0]).line);
      walk(doc, pair.value as Node, here, lines, lc, depth + 1, budget);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const here = [...path, i];
      const n = item as Node;
      if (n?.range) lines.set(join(here), lc.linePos(n.range[0]).line);
      walk(doc, n, here, lines, lc, depth + 1, budget);
    });
  }
}
