import { parse } from 'yaml';

export interface FrontMatter {
  data: unknown;
  body: string;
}

/** Splits `---\n<yaml>\n---\n<body>`; null when the file has no front matter block. */
export function splitFrontMatter(text: string): FrontMatter | null {
  const src = text.replace(/\r\n/g, '\n');
  if (!src.startsWith('---\n')) return null;
  const end = src.indexOf('\n---', 3);
  if (end < 0) return null;
  const after = src.indexOf('\n', end + 4);
  const closing = src.slice(end + 1, after < 0 ? undefined : after);
  if (closing.trim() !== '---') return null;
  const yaml = src.slice(4, end + 1);
  // `yaml` with the core schema: no custom tags, bounded alias expansion.
  const data: unknown = parse(yaml, { schema: 'core', maxAliasCount: 10 });
  return { data, body: after < 0 ? '' : src.slice(after + 1).replace(/^\n+/, '') };
}
