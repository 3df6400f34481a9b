#!/usr/bin/env node
// The entry point of `signet` (dist/bundle/signet.js) and of the verifier package's bin: refuses
// a Node.js the program does not support, saying which one it needs, before loading any code
// that would fail on it with a SyntaxError or a missing export (a desktop MCP client may find
// an old Node first on PATH). Bundled for an old target (scripts/bundle.mjs) so this file itself
// parses on any Node that loads ES modules; ENTRY comes from the package's engines.node, the
// one place the range is written, and the program proper is ./index.js beside it.

import * as nodeModule from 'node:module';

declare const ENTRY: { program: string; range: string; major: number; minor: number; hint: string };

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < ENTRY.major || (major === ENTRY.major && minor < ENTRY.minor)) {
  process.stderr.write(
    `${ENTRY.program}: needs Node.js ${ENTRY.range}, but this is Node.js ${process.version} (${process.execPath}).\n${ENTRY.hint}`,
  );
  process.exitCode = 1;
} else {
  // Cache V8 bytecode of everything the CLI loads (NODE_COMPILE_CACHE picks the folder; default:
  // the OS temp dir): about a third off cold start (bench/RESULTS.md). Enabled here, before the
  // CLI's modules load, so they are all cached; a namespace import, since old Nodes lack the export.
  try {
    nodeModule.enableCompileCache?.();
  } catch {
    /* read-only or missing temp dir: start without the cache */
  }
  void import('./index.js');
}
