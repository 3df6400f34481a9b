// The client configurations docs/deployment.md recommends are read here as the doctrine's CLIENT
// rules would read them: no secret written into them (CLIENT-013), no floating launcher such as
// `npx pkg` (CLIENT-009), every local program in a sandbox with limits (CLIENT-006, CONT-010), and
// no known-vulnerable mcp-remote (CLIENT-017, CVE-2025-6514). Under doctrine 1.2.0 the page
// recommended a literal key in `headers` and an unversioned `npx mcp-remote`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/paths.js';

interface Entry {
  command?: string;
  args?: string[];
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
}

const page = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
const configs = [...page.matchAll(/<!-- client-config -->\n```json\n([\s\S]*?)```/g)].map(
  (m) => JSON.parse(m[1]!) as { mcpServers: Record<string, Entry> },
);
const entries = configs.flatMap((c) => Object.entries(c.mcpServers));
/** A value written into the configuration rather than a reference the client resolves at start. */
const literalSecret = (v: string) => /sgnk_[A-Za-z0-9]|Bearer [A-Za-z0-9]/.test(v.replace(/\$\{[^}]+\}/g, ''));

describe('the client configurations in docs/deployment.md meet the doctrine the server ships', () => {
  it('has the three configurations the page describes', () => {
    expect(entries.map(([, e]) => e.command ?? 'url')).toEqual(['docker', 'url', 'docker']);
  });

  it('writes no secret into a configuration: every credential is a reference (CLIENT-013)', () => {
    for (const [name, e] of entries) {
      for (const v of [...Object.values(e.headers ?? {}), ...Object.values(e.env ?? {}), ...(e.args ?? [])]) {
        expect(literalSecret(v), `${name}: ${v}`).toBe(false);
      }
      for (const v of Object.values(e.headers ?? {})) expect(v, name).toMatch(/\$\{/);
    }
  });

  it('launches nothing that floats, and every local program in a sandbox with limits (CLIENT-009, CLIENT-006)', () => {
    for (const [name, e] of entries.filter(([, x]) => x.command)) {
      expect(['npx', 'uvx', 'pipx', 'bunx'], name).not.toContain(e.command);
      expect(e.command, name).toBe('docker');
      const args = e.args!;
      for (const flag of ['--read-only', '--memory', '--cpus', '--pids-limit']) expect(args, `${name}: ${flag}`).toContain(flag);
      expect(args.join(' '), name).toContain('--cap-drop ALL');
      expect(args.join(' '), name).toContain('--security-opt no-new-privileges');
      const network = args[args.indexOf('--network') + 1];
      // No network unless it needs one: only the adapter that forwards to the stack does.
      expect(network, name).toBe(args.some((a) => a.startsWith('http')) ? 'host' : 'none');
      // An image the page tells the reader to build from the lockfile, or one pinned by digest.
      const image = args.find((a) => a === 'signet-mcp' || a.includes('@sha256:'));
      expect(image, `${name}: image`).toBeDefined();
    }
  });

  it('installs mcp-remote at an exact version later than the last vulnerable one (CLIENT-017)', () => {
    const version = /mcp-remote@(\d+)\.(\d+)\.(\d+)/.exec(page);
    expect(version).not.toBeNull();
    const [major, minor, patch] = version!.slice(1).map(Number) as [number, number, number];
    // CVE-2025-6514: fixed in 0.1.16.
    expect(major > 0 || minor > 1 || (minor === 1 && patch >= 16)).toBe(true);
    expect(page).toMatch(/npm install --save-exact --ignore-scripts mcp-remote@/);
  });
});
