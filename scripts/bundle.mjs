// Bundles the compiled CLI (dist/cli/index.js) into dist/bundle/: what `signet`, the image
// and the tests run. Why: Node's ESM loader resolves and links each of the hundreds of files of the
// dependencies one by one; a few chunks start about a quarter faster (bench/RESULTS.md,
// cold start). Code splitting keeps lazily imported parts (HTTP, Redis, search, keys) out of
// the stdio start.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: start from empty folders so stale chunks never pile up.
rmSync('dist/bundle', { recursive: true, force: true });
rmSync('dist/verify', { recursive: true, force: true });

await build({
  entryPoints: { signet: 'dist/cli/index.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.12',
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
  // CommonJS dependencies call require() for Node built-ins; ESM output has none to offer.
  banner: { js: "import { createRequire as __signetRequire } from 'node:module'; const require = __signetRequire(import.meta.url);" },
});

// The portable verifier (`signet/verify`): one self-contained ES module with no Node
// built-ins, for browsers, Deno and edge runtimes, and for the verification page.
await build({
  entryPoints: { 'signet-verify': 'dist/signing/portable.js' },
  outdir: 'dist/verify',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
});

// The verification page: its script (the portable verifier and the page's own code, for
// browsers), with the HTML and CSS beside it (src/verify-page/assets.ts reads them).
{
  const { cpSync, mkdirSync } = await import('node:fs');
  rmSync('dist/verify-page/verify.js', { force: true });
  await build({
    entryPoints: { verify: 'dist/verify-page/page.js' },
    outdir: 'dist/verify-page',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  mkdirSync('dist/verify-page', { recursive: true });
  for (const f of ['page.html', 'page.css']) cpSync(`src/verify-page/${f}`, `dist/verify-page/${f}`);
}
