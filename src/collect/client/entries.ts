// The ES module build: the UMD one (package main) loads its parts with a dynamic require the bundler cannot follow.
import { findNodeAtLocation, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser/lib/esm/main.js';
import { parse as parseToml } from 'smol-toml';
import { literal } from '../../shared/regexp.js';
import { frontMatter } from '../classify.js';
import type { TextFile } from '../inputs.js';
import type { At } from '../sheet.js';
import { commandsOf } from '../shell.js';
import { readYaml, type YamlDoc } from '../yaml-lines.js';

export interface Entry {
  name: string;
  spec: Record<string, unknown>;
  at(...path: (string | number)[]): At;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Gemini CLI's settings and an extension's manifest, where `url` is SSE and `httpUrl` streamable HTTP. */
export const GEMINI = /(^|\/)(\.gemini\/settings|gemini-extension|[\w.-]*gemini[-_]settings)\.json$/;

export function jsonEntries(file: TextFile): { entries: Entry[]; inputs: Obj[]; ignored?: string | null } | null {
  const errors: ParseError[] = [];
  const root = parseTree(file.text, errors, { allowTrailingComma: true, disallowComments: false });
  const starts = [0];
  for (let i = 0; i < file.text.length; i++) if (file.text[i] === '\n') starts.push(i + 1);
  const lineAt = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  // The parser recovers from errors (a truncated file still yields a tree): any error makes the
  // file unreadable, since what it would have said after the error is unknown.
  const first = errors[0];
  if (first)
    throw new Error(
      `not valid JSON (comments and trailing commas allowed): ${printParseErrorCode(first.error)} at line ${lineAt(first.offset)}`,
    );
  if (!root) return null;
  if (root.type !== 'object')
    throw new Error('not a JSON object: a client configuration is one, its servers under mcpServers (or servers)');
  const value = nodeValue(root) as Obj;
  // The line of the deepest part of `path` then `p` that the file has.
  const atIn =
    (path: (string | number)[]) =>
    (...p: (string | number)[]): At => {
      for (let n = p.length; n >= 0; n--) {
        const found = findNodeAtLocation(root, [...path, ...p.slice(0, n)]);
        if (found) return { file: file.path, line: lineAt(found.parent?.type === 'property' ? found.parent.offset : found.offset) };
      }
      return { file: file.path, line: 1 };
    };
  const containers: (string | number)[][] = [['mcpServers'], ['servers'], ['mcp', 'servers'], ['context_servers']];
  // Claude Code's ~/.claude.json: user-scoped servers at the top, local-scoped ones under each project's path.
  const projects = isObj(value['projects']) ? Object.keys(value['projects']).sort() : [];
  const local = projects.map((p) => ['projects', p, 'mcpServers']);
  const entriesIn = (path: (string | number)[], prefix: string): Entry[] => {
    const node = findNodeAtLocation(root, path);
    if (node?.type !== 'object') return [];
    const servers = nodeValue(node) as Obj;
    return Object.keys(servers)
      .filter((n) => isObj(servers[n]))
      .map((name) => ({
        name: `${prefix}${name}`,
        spec: normalised(servers[name] as Obj, GEMINI.test(file.path)),
        at: atIn([...path, name]),
      }));
  };
  // A Claude Code plugin's .mcp.json, or a Cursor plugin's mcp.json, may hold the servers at its top, without `mcpServers`.
  const flat = /(^|\/)\.?mcp\.json$/.test(file.path) && Object.keys(value).length > 0 && Object.values(value).every(isServerSpec);
  // An MCP Bundle's manifest.json (formerly DXT): one server, how Claude Desktop launches it under server.mcp_config.
  if (isObj(value['server']) && isObj(value['server']['mcp_config'])) {
    return {
      entries: [
        {
          name: typeof value['name'] === 'string' && value['name'] !== '' ? value['name'] : 'server',
          spec: normalised(value['server']['mcp_config'], false),
          at: atIn(['server', 'mcp_config']),
        },
      ],
      inputs: [],
    };
  }
  // OpenCode's opencode.json(c): servers by name under `mcp`, a local one's command line as one list.
  if ((OPENCODE.test(file.path) || namesOpenCodeSchema(value)) && isObj(value['mcp'])) {
    const servers = value['mcp'];
    return {
      entries: Object.keys(servers)
        .filter((n) => isObj(servers[n]))
        .map((name) => {
          const at = atIn(['mcp', name]);
          // Cited where OpenCode writes them: an argument in the command list, a variable under `environment`.
          const where = (...p: (string | number)[]): At =>
            p[0] === 'args'
              ? at('command', ...(typeof p[1] === 'number' ? [p[1] + 1] : []))
              : p[0] === 'env'
                ? at('environment', ...p.slice(1))
                : at(...p);
          return { name, spec: { ...openCode(servers[name] as Obj), [BY_OPENCODE]: true }, at: where };
        }),
      inputs: [],
    };
  }
  // VS Code reads `servers` from .vscode/mcp.json: a `mcpServers` block beside it is never started (cape-connect's).
  const vscode = /(^|\/)\.vscode\/mcp\.json$/.test(file.path);
  const present = containers.filter((path) => findNodeAtLocation(root, path)?.type === 'object');
  const top = flat ? [] : vscode && present.some((p) => p[0] === 'servers') ? ['servers'] : present[0];
  const ignored = vscode && top?.[0] === 'servers' && present.some((p) => p[0] === 'mcpServers') ? 'mcpServers' : null;
  // A Claude Code plugin marketplace (perplexityai/modelcontextprotocol's .claude-plugin/marketplace.json):
  // a plugin listed with its servers inline, named `PLUGIN:SERVER`; one whose source is elsewhere holds none here.
  const plugins = /(^|\/)\.claude-plugin\/marketplace\.json$/.test(file.path) && Array.isArray(value['plugins']) ? value['plugins'] : [];
  const listed = plugins.flatMap((p, i) =>
    isObj(p) && isObj(p['mcpServers']) ? [{ path: ['plugins', i, 'mcpServers'], prefix: `${String(p['name'] ?? i)}:` }] : [],
  );
  const entries = [
    ...(top ? entriesIn(top, '') : []),
    ...local.flatMap((path) => entriesIn(path, `${path[1]}:`)),
    ...listed.flatMap((l) => entriesIn(l.path, l.prefix)),
  ];
  const inputs = Array.isArray(value['inputs']) ? (value['inputs'] as Obj[]) : [];
  return { entries, inputs, ignored };
}

export const isScalar = (v: unknown): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v);

/** An object that reads as a server entry: what to start or where to connect. */
const isServerSpec = (v: unknown) => isObj(v) && ['command', 'url', 'httpUrl', 'serverUrl', 'baseUrl', 'type'].some((k) => k in v);

/**
 * One shape for every client's entry: Zed's older `"command": {"path", "args", "env"}` as
 * command, args and env; the remote URL under `url`, whatever the client calls it (Windsurf's
 * `serverUrl`, Gemini CLI's `httpUrl` for streamable HTTP, where its `url` is SSE, MCPorter's `baseUrl`).
 */
function normalised(spec: Obj, gemini: boolean): Obj {
  const out: Obj = { ...spec };
  const c = spec['command'];
  // Continue keeps a remote server's headers under requestOptions.
  const requestOptions = spec['requestOptions'];
  if (out['headers'] === undefined && isObj(requestOptions) && isObj(requestOptions['headers'])) out['headers'] = requestOptions['headers'];
  if (isObj(c) && typeof c['path'] === 'string') {
    out['command'] = c['path'];
    if (out['args'] === undefined && Array.isArray(c['args'])) out['args'] = c['args'];
    if (out['env'] === undefined && isObj(c['env'])) out['env'] = c['env'];
  }
  if (out['url'] === undefined && typeof spec['serverUrl'] === 'string') {
    out['url'] = spec['serverUrl'];
    out[URL_KEY] = 'serverUrl';
  } else if (typeof spec['httpUrl'] === 'string') {
    out['url'] = spec['httpUrl'];
    out[URL_KEY] = 'httpUrl';
  } else if (out['url'] === undefined && typeof spec['baseUrl'] === 'string') {
    out['url'] = spec['baseUrl'];
    out[URL_KEY] = 'baseUrl';
  } else if (gemini && typeof spec['url'] === 'string' && spec['type'] !== 'http')
    // Unless `"type": "http"` says Streamable HTTP, as current Gemini CLI reads it (jmagar/synapse-rmcp's extension).
    out[SSE_BY_CLIENT] = "Gemini CLI's url is its SSE transport (httpUrl is streamable HTTP)";
  return out;
}
/** OpenCode's configuration, in a project or the user's ~/.config/opencode/. */
export const OPENCODE = /(^|\/)opencode\.jsonc?$/;
/** Under any other name, a file whose `$schema` is OpenCode's (CowboyLogic/ai-dev's sample configurations). */
export const namesOpenCodeSchema = (value: Obj): boolean =>
  typeof value['$schema'] === 'string' && /^https?:\/\/opencode\.ai\/config\.json$/.test(value['$schema']);
/** Set on the spec of an entry read from OpenCode's configuration. */
export const BY_OPENCODE = '\u0000opencode';

/**
 * An OpenCode entry in the common shape: `"type": "local"` with its command line as one list
 * (`["npx", "-y", "pkg"]`) and `environment`; `"type": "remote"` with `url` and `headers`.
 */
function openCode(spec: Obj): Obj {
  const out: Obj = { ...spec };
  const line = spec['command'];
  if (Array.isArray(line)) {
    out['command'] = line[0];
    out['args'] = line.slice(1);
  }
  if (out['env'] === undefined && isObj(spec['environment'])) out['env'] = spec['environment'];
  return out;
}

/** The key the entry writes its URL under, where it is not `url`. */
export const URL_KEY = '\u0000urlKey';
/** Why the client speaks the deprecated HTTP+SSE transport to this URL, where its own format says so. */
export const SSE_BY_CLIENT = '\u0000sse';

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries(
        (node.children ?? []).map((p) => [String(p.children?.[0]?.value), p.children?.[1] ? nodeValue(p.children[1]) : null]),
      );
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/**
 * Continue's YAML (`config.yaml`, or a block in `.continue/mcpServers/`): `mcpServers` is a list
 * of entries that carry their own `name`, with `command`/`args`/`env` or `type` and `url`.
 */
export function yamlEntries(file: TextFile): Entry[] {
  const doc = readYaml(file.path.endsWith('.md') ? frontMatter(file.text) : file.text)[0];
  if (doc && isObj(doc.value) && isObj(doc.value['extensions'])) return gooseEntries(doc.value['extensions'], doc, file);
  // A Goose recipe lists its extensions, each with its name.
  if (doc && isObj(doc.value) && Array.isArray(doc.value['extensions']))
    return gooseEntries(doc.value['extensions'] as unknown[], doc, file);
  const mcp = doc && isObj(doc.value) ? doc.value['mcp'] : undefined;
  if (doc && isObj(mcp) && isObj(mcp['servers'])) return agentEntries(mcp['servers'], doc, file);
  // GitHub Copilot's custom agents write `mcp-servers:`, by name, `type: local` for a command;
  // Hermes Agent's config.yaml `mcp_servers:` (edmundmiller/dotfiles' config/hermes/config.yml).
  const key =
    doc && isObj(doc.value) ? (['mcp-servers', 'mcp_servers'].find((k) => isObj((doc.value as Obj)[k])) ?? 'mcpServers') : 'mcpServers';
  const list = doc && isObj(doc.value) ? doc.value[key] : undefined;
  // LibreChat's librechat.yaml (and kubectl-mcp-server's evals/mcp-config.yaml): servers keyed by
  // name, `type: stdio | sse | streamable-http`, as the JSON clients write them.
  if (doc && isObj(list))
    return Object.keys(list)
      .filter((name) => isObj(list[name]))
      .map((name) => {
        const x = list[name] as Obj;
        const t = String(x['type'] ?? '');
        return {
          name,
          spec: normalised(t === 'streamable-http' || t === 'streamable_http' ? { ...x, type: 'http' } : x, false),
          at: (...p: (string | number)[]) => ({ file: file.path, line: doc.line([key, name, ...p]) }),
        };
      });
  if (!doc || !Array.isArray(list)) return [];
  return list.flatMap((item, i): Entry[] =>
    isObj(item)
      ? [
          {
            name: typeof item['name'] === 'string' && item['name'] !== '' ? item['name'] : `#${i + 1}`,
            spec: normalised(item, false),
            at: (...p) => ({ file: file.path, line: doc.line(['mcpServers', i, ...p]) }),
          },
        ]
      : [],
  );
}

/**
 * mcp-agent's `mcp_agent.config.yaml` and fast-agent's `fastagent.config.yaml`: `mcp.servers` by
 * name, `command`/`args`/`env` or `url`/`headers`, and a `transport` (`stdio`, `sse`,
 * `streamable_http` or `http`) where the clients' JSON says `type`.
 */
function agentEntries(servers: Obj, doc: YamlDoc, file: TextFile): Entry[] {
  return Object.keys(servers)
    .filter((k) => isObj(servers[k]))
    .map((name) => {
      const x = servers[name] as Obj;
      const t = String(x['transport'] ?? '');
      const spec: Obj = { ...x };
      if (t === 'sse' || t === 'stdio') spec['type'] = t;
      else if (t === 'streamable_http' || t === 'http') spec['type'] = 'http';
      // fast-agent's `target:` shorthand, as it reads it: a URL, a package npx runs
      // (`@scope/pkg`), or a command line (`npx -y pkg`, `uvx pkg`, `docker run …`).
      const target = typeof x['target'] === 'string' && x['command'] === undefined && x['url'] === undefined ? x['target'] : null;
      const words = target === null ? [] : (commandsOf(target)[0] ?? []);
      if (/^https?:\/\//i.test(words[0] ?? '')) spec['url'] = words[0];
      else if (words[0]?.startsWith('@')) Object.assign(spec, { command: 'npx', args: words });
      else if (words.length) Object.assign(spec, { command: words[0], args: words.slice(1) });
      // What the target gives is cited at its line.
      const inTarget = (p: (string | number)[]) => words.length > 0 && ['command', 'args', 'url'].includes(String(p[0]));
      return {
        name,
        spec: normalised(spec, false),
        at: (...p) => ({ file: file.path, line: doc.line(['mcp', 'servers', name, ...(inTarget(p) ? ['target'] : p)]) }),
      };
    });
}

/**
 * Goose's config.yaml: `extensions` by key (a recipe's: a list, each with its `name`), `cmd`/`args`/`envs` for `type: stdio`, `uri` for
 * `sse` and `streamable_http`; `builtin` and `platform` extensions are Goose's own code, no MCP server.
 */
function gooseEntries(extensions: Obj | unknown[], doc: YamlDoc, file: TextFile): Entry[] {
  const list = Array.isArray(extensions);
  return Object.keys(extensions)
    .filter((k) => {
      const x = (extensions as Obj)[k];
      return isObj(x) && ['stdio', 'sse', 'streamable_http'].includes(String(x['type']));
    })
    .map((k) => {
      const x = (extensions as Obj)[k] as Obj;
      const name = list ? (typeof x['name'] === 'string' && x['name'] !== '' ? x['name'] : `#${Number(k) + 1}`) : k;
      const key0 = list ? Number(k) : k;
      const spec: Obj = { ...x, type: x['type'] === 'streamable_http' ? 'http' : x['type'] };
      if (x['cmd'] !== undefined) spec['command'] = x['cmd'];
      if (x['envs'] !== undefined) spec['env'] = x['envs'];
      if (x['uri'] !== undefined) spec['url'] = x['uri'];
      // Goose's own key names, where the facts cite a field.
      const key: Record<string, string> = { command: 'cmd', env: 'envs', url: 'uri' };
      return {
        name,
        spec: normalised(spec, false),
        at: (...p) => ({ file: file.path, line: doc.line(['extensions', key0, ...p.map((q, i) => (i === 0 ? (key[q] ?? q) : q))]) }),
      };
    });
}

export function tomlEntries(file: TextFile): Entry[] {
  const t = parseToml(file.text) as Obj;
  const servers = isObj(t['mcp_servers']) ? t['mcp_servers'] : {};
  const rows = file.text.split('\n');
  return Object.keys(servers)
    .filter((n) => isObj(servers[n]))
    .map((name) => {
      const header = rows.findIndex((r) => new RegExp(`^\\s*\\[mcp_servers\\.("?)${literal(name)}\\1\\]`).test(r));
      return {
        name,
        spec: servers[name] as Obj,
        at: (...p) => {
          // A key of the entry's table, or of a sub-table `[mcp_servers.NAME.FIELD]` (env, http_headers).
          const keyLine = (from: number, key: string) => {
            for (let i = from + 1; i < rows.length && !/^\s*\[/.test(rows[i]!); i++)
              if (new RegExp(`^\\s*"?${literal(key)}"?\\s*=`).test(rows[i]!)) return i + 1;
            return 0;
          };
          const [field, key] = p.map(String);
          if (field && key) {
            const sub = rows.findIndex((r) => new RegExp(`^\\s*\\[mcp_servers\\.("?)${literal(name)}\\1\\.${literal(field)}\\]`).test(r));
            const line = sub >= 0 ? keyLine(sub, key) : 0;
            if (line) return { file: file.path, line };
          }
          const line = field && header >= 0 ? keyLine(header, field) : 0;
          return { file: file.path, line: line || header + 1 || 1 };
        },
      };
    });
}
