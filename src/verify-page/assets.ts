// The verification page's files, for the server (GET /verify, its script and style as files
// of their own, under a strict CSP) and for `signet verify --html` (one self-contained file,
// script and style inline, allowed by their hashes). Built by scripts/bundle.mjs into
// dist/verify-page/.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PageFiles {
  html: string;
  css: string;
  js: string;
}

/** dist/verify-page, found from here whether this code runs from dist/ or from the bundle. */
function assetDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; ) {
    for (const candidate of [dir, join(dir, 'verify-page'), join(dir, 'dist', 'verify-page')]) {
      if (existsSync(join(candidate, 'page.html')) && existsSync(join(candidate, 'verify.js'))) return candidate;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('the verification page is not built (npm run build)');
    dir = up;
  }
}

let files: PageFiles | null = null;
export function pageFiles(): PageFiles {
  if (!files) {
    const dir = assetDir();
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    files = { html: read('page.html'), css: read('page.css'), js: read('verify.js') };
  }
  return files;
}

/** The CSP the server sends with the page: nothing but its own script and style, no connection anywhere. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page as the server serves it at /verify (script and style at /verify/verify.js and .css). */
export function servedPage(): string {
  return pageFiles()
    .html.replace('<!--csp-->', '')
    .replace('<!--style-->', '<link rel="stylesheet" href="verify/verify.css">')
    .replace('<!--script-->', '<script type="module" src="verify/verify.js"></script>');
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** One file that works opened from disk: the same CSP, with the inline script and style allowed by hash. */
export function standalonePage(): string {
  const { html, css, js } = pageFiles();
  const csp = `default-src 'none'; script-src ${sha256(js)}; style-src ${sha256(css)}; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'`;
  return html
    .replace('<!--csp-->', `<meta http-equiv="Content-Security-Policy" content="${csp}">`)
    .replace('<!--style-->', () => `<style>${css}</style>`)
    .replace('<!--script-->', () => `<script type="module">${js}</script>`);
}
