// Bundles the compiled CLI (dist/cli/index.js) into dist/bundle/, behind its entry point
// dist/bundle/signet.js: what `signet`, the image, the packages and the tests run. Why a
// bundle: Node's ESM loader resolves and links each of the hundreds of files of the
// dependencies one by one; a few chunks start about a quarter faster (bench/RESULTS.md,
// cold start). Code splitting keeps lazily imported parts (HTTP, Redis, search, keys) out of
// the stdio start.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// jsonc-parser's package.json points Node at its UMD build, whose require() calls esbuild cannot
// follow in ESM output; its ES module build is the same code (browser builds pick it already).
// (An exact match: esbuild's alias option rewrites every path under the name too.)
const esmJsonc = {
  name: 'jsonc-parser-esm',
  setup(b) {
    b.onResolve({ filter: /^jsonc-parser$/ }, (args) =>
      b.resolve('jsonc-parser/lib/esm/main.js', { kind: args.kind, resolveDir: args.resolveDir }),
    );
  },
};
const plugins = [esmJsonc];

// Chunk names carry content hashes: start from empty folders so stale chunks never pile up.
rmSync('dist/bundle', { recursive: true, force: true });
rmSync('dist/verify', { recursive: true, force: true });

await build({
  entryPoints: { index: 'dist/cli/index.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  plugins,
  target: 'node22.12',
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
  // CommonJS dependencies call require() for Node built-ins; ESM output has none to offer.
  banner: { js: "import { createRequire as __signetRequire } from 'node:module'; const require = __signetRequire(import.meta.url);" },
});

// An entry point (src/cli/start.ts) in front of each program: it checks the Node.js version,
// then loads ./index.js. Built for Node 14 (the oldest that runs ES modules with import())
// so that its own syntax parses on every Node it must refuse; esbuild fails the build if the
// source needs anything newer. The range is the package's engines.node.
async function entryPoint(outfile, program, manifest, hint) {
  const { engines } = JSON.parse(readFileSync(manifest, 'utf8'));
  const m = /^>=(\d+)\.(\d+)$/.exec(engines?.node ?? '');
  if (!m) throw new Error(`${manifest}: engines.node must read ">=MAJOR.MINOR", not ${JSON.stringify(engines?.node)}`);
  await build({
    entryPoints: ['dist/cli/start.js'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    plugins,
    target: 'node14',
    external: ['./index.js'],
    define: { ENTRY: JSON.stringify({ program, range: engines.node, major: Number(m[1]), minor: Number(m[2]), hint }) },
    logLevel: 'warning',
  });
}
await entryPoint(
  'dist/bundle/signet.js',
  'signet',
  'package.json',
  '  Put a newer Node.js first on PATH, or give your MCP client the absolute path of one as its "command"\n' +
    '  (docs/deployment.md#client-configuration).\n',
);

// The portable verifier (the signet-mcp-verify package's library): one self-contained ES module with no Node
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

// The verifier package's bin (src/cli/verify-bin.ts): one file with the verifier inside and
// nothing to install, behind the same entry point as `signet`.
await build({
  entryPoints: { index: 'dist/cli/verify-bin.js' },
  outdir: 'dist/verify/bin',
  bundle: true,
  format: 'esm',
  platform: 'node',
  plugins,
  target: 'node20',
  legalComments: 'linked',
  logLevel: 'warning',
});
await entryPoint(
  'dist/verify/bin/signet-mcp-verify.js',
  'signet-mcp-verify',
  'packages/signet-mcp-verify/package.json',
  '  Put a newer Node.js first on PATH (npx runs the first one it finds).\n',
);

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
