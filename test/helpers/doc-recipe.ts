import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** The fenced block of docs/`page` between <!-- recipe:NAME --> and <!-- /recipe -->: what a reader runs. */
export function docRecipe(page: string, name: string): string {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  const start = text.indexOf(`<!-- recipe:${name} -->`);
  if (start < 0) throw new Error(`docs/${page} has no recipe ${name}`);
  const block = text.slice(start, text.indexOf('<!-- /recipe -->', start));
  return block.slice(block.indexOf('\n', block.indexOf('```')) + 1, block.lastIndexOf('```'));
}
