// Microsoft's SARIF Multitool, the independent SARIF validator, as a file the tests may run. Its
// npm package ships a self-contained Linux binary without the execute bit (npm here blocks
// install scripts, so the package's own chmod never ran): the tests run a copy made executable
// in a temporary directory and never change a file under node_modules.
import { chmodSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tempDir } from './tmp-doctrine.js';

/** The path of an executable copy of Sarif.Multitool, removed after the suite. Call at a suite's top level. */
export function sarifMultitool(): string {
  const from = join(dirname(createRequire(import.meta.url).resolve('@microsoft/sarif-multitool-linux/package.json')), 'Sarif.Multitool');
  const to = join(tempDir('signet-sarif-multitool-'), 'Sarif.Multitool');
  copyFileSync(from, to);
  chmodSync(to, 0o755);
  return to;
}
