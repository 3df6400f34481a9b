// Package manifests and lockfiles where the server is built: whether the code is an MCP server
// (an MCP SDK among its dependencies, or the MCP registry's `mcpName`) and which lockfile a build can install from.
import { parse as parseToml } from 'smol-toml';
import type { Inputs, TextFile } from './inputs.js';
import type { At } from './sheet.js';

const NPM_SDKS =
  /^(@modelcontextprotocol\/(sdk|server|server-[\w-]+)|fastmcp|mcp-framework|@mastra\/mcp|mcp-proxy|supergateway|@cloudflare\/mcp-agent|agents|xmcp)$/;
const PY_SDKS = /^(mcp|fastmcp|mcp-proxy|mcpo)(\[.*\])?$/i;
/** rmcp: the official Rust SDK; rust-mcp-sdk: its main alternative. */
const RUST_SDKS = /^(rmcp|rust-mcp-sdk)$/;
const GO_SDKS = /^(github\.com\/mark3labs\/mcp-go|github\.com\/modelcontextprotocol\/go-sdk|github\.com\/metoro-io\/mcp-golang)$/;

const lineOf = (text: string, needle: string): number => {
  const i = text.indexOf(needle);
  return i < 0 ? 1 : text.slice(0, i).split('\n').length;
};

/**
 * A registry package that is an MCP server, SDK or bridge by its name: a known one, or one whose
 * name has `mcp` as a word of its own (`mongodb-mcp-server`, `@playwright/mcp`, `mcp_server_time`).
 */
export function isMcpPackage(name: string): boolean {
  return NPM_SDKS.test(name) || PY_SDKS.test(name) || /(^|[-_/@.])mcp([-_.]|$)/i.test(name);
}

/** An MCP SDK or framework among the dependencies this manifest declares. */
export function mcpDependency(file: TextFile): { at: At; name: string } | null {
  const base = file.path.split('/').pop()!.toLowerCase();
  try {
    if (base === 'package.json') {
      const pkg = JSON.parse(file.text) as Record<string, Record<string, string> | undefined>;
      // The MCP registry's own field: the package says it is the server published under that name.
      const registered = (pkg as Record<string, unknown>)['mcpName'];
      if (typeof registered === 'string' && registered !== '')
        return { at: { file: file.path, line: lineOf(file.text, '"mcpName"') }, name: `mcpName ${registered}` };
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const name of Object.keys(pkg[field] ?? {}).sort())
          if (NPM_SDKS.test(name)) return { at: { file: file.path, line: lineOf(file.text, `"${name}"`) }, name };
      }
      return null;
    }
    if (base === 'pyproject.toml') {
      const t = parseToml(file.text) as {
        project?: { dependencies?: string[] };
        tool?: { poetry?: { dependencies?: Record<string, unknown> } };
      };
      const deps = [...(t.project?.dependencies ?? []), ...Object.keys(t.tool?.poetry?.dependencies ?? {})];
      for (const d of deps) {
        const name = /^[A-Za-z0-9_.-]+(\[[^\]]*\])?/.exec(d.trim())?.[0] ?? '';
        if (PY_SDKS.test(name)) return { at: { file: file.path, line: lineOf(file.text, d) }, name };
      }
      return null;
    }
    if (/^requirements.*\.(txt|in)$/.test(base)) {
      const rows = file.text.split('\n');
      for (let i = 0; i < rows.length; i++) {
        const name = /^[A-Za-z0-9_.-]+(\[[^\]]*\])?/.exec(rows[i]!.trim())?.[0] ?? '';
        if (PY_SDKS.test(name)) return { at: { file: file.path, line: i + 1 }, name };
      }
      return null;
    }
    if (file.path.split('/').pop() === 'Cargo.toml') {
      const t = parseToml(file.text) as {
        dependencies?: Record<string, unknown>;
        workspace?: { dependencies?: Record<string, unknown> };
      };
      for (const name of [...Object.keys(t.dependencies ?? {}), ...Object.keys(t.workspace?.dependencies ?? {})].sort())
        if (RUST_SDKS.test(name)) {
          // `rmcp = { version = … }` under [dependencies], or a table of its own, `[dependencies.rmcp]`.
          const rows = file.text.split('\n');
          const i = rows.findIndex((r) => new RegExp(`^\\s*(${name}\\s*=|\\[(workspace\\.)?dependencies\\.${name}\\])`).test(r));
          return { at: { file: file.path, line: i + 1 || 1 }, name };
        }
      return null;
    }
    if (base === 'go.mod') {
      const rows = file.text.split('\n');
      for (let i = 0; i < rows.length; i++) {
        const mod =
          rows[i]!.trim()
            .replace(/^require\s+/, '')
            .split(/\s+/)[0] ?? '';
        if (GO_SDKS.test(mod)) return { at: { file: file.path, line: i + 1 }, name: mod };
      }
    }
  } catch {
    return null;
  }
  return null;
}

/** The manifests and lockfiles directly in `dir` (a build context). */
export function buildContext(inputs: Inputs, dir: string): { manifests: TextFile[]; lockfiles: TextFile[] } {
  const inDir = inputs
    .all()
    .filter((f) => (dir ? f.path.startsWith(`${dir}/`) : true) && !f.path.slice(dir ? dir.length + 1 : 0).includes('/'));
  const names = (f: TextFile) => f.path.split('/').pop()!.toLowerCase();
  return {
    manifests: inDir.filter((f) => /^(package\.json|pyproject\.toml|go\.mod|cargo\.toml)$|^requirements.*\.(txt|in)$/.test(names(f))),
    lockfiles: inDir.filter((f) =>
      /^(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|uv\.lock|poetry\.lock|go\.sum|bun\.lockb?|cargo\.lock)$/.test(
        names(f),
      ),
    ),
  };
}

/** The MCP SDK evidence of a build context, if any. */
export function mcpEvidenceIn(inputs: Inputs, dir: string): { at: At; name: string } | null {
  for (const m of buildContext(inputs, dir).manifests) {
    const found = mcpDependency(m);
    if (found) return found;
  }
  return null;
}
