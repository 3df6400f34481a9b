// The README's first screen, as a newcomer runs it in a fresh clone: the check line runs exactly
// as written at the root of a copy of the repository's files (with this build's dist/, which
// `npm ci && npm test` leaves there), and its exit code is its verdict. The first line is the
// tour's first step (a compose stack); the second is what CI runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/clean-env.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const lines = docRecipe('../README.md', 'first-screen')
  .split('\n')
  .map((l) => l.replace(/\s+#.*$/, '').trim())
  .filter(Boolean);
const EXIT: Record<string, number> = { pass: 0, fail: 1, incomplete: 3, limited_scope: 3 };

describe("the README's first screen", () => {
  it('has the three commands, the second being what CI runs', () => {
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('npm ci && npm test');
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^(?:\S+=\S+ )*npm test$/m);
  });

  it('the check line runs as written at the root of a clone, writes SARIF and exits with its verdict', () => {
    const clone = tempDir('signet-readme-');
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const file of tracked) if (existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(clone, file), { recursive: true });
    symlinkSync(join(ROOT, 'dist'), join(clone, 'dist'));
    const r = spawnSync('sh', ['-c', lines[2]!], { cwd: clone, env: cleanEnv(), encoding: 'utf8', timeout: 120_000 });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^signet check: [a-z_ ]+ \(sarif written to signet\.sarif\)\n$/);
    const sarif = JSON.parse(readFileSync(join(clone, 'signet.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    const run = sarif.runs[0];
    expect(run.tool.driver.name).toBe('Signet');
    expect(run.tool.driver.rules.length).toBeGreaterThan(100);
    // Signet's own compose file is among what the clone's root describes.
    expect(run.properties.deployments.map((d: { name: string }) => d.name)).toContain('compose:docker-compose.yml:signet');
    expect(r.status, r.stderr).toBe(EXIT[run.properties.verdict]);
    // Results point at files of the clone.
    for (const result of run.results) {
      const uri = result.locations[0]?.physicalLocation.artifactLocation.uri;
      if (uri) expect(existsSync(join(clone, decodeURI(uri))), uri).toBe(true);
    }
  }, 120_000);
});
