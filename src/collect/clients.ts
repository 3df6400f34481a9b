// MCP client configurations: Claude Desktop (claude_desktop_config.json), Claude Code
// (.mcp.json), Cursor (.cursor/mcp.json), Windsurf (mcp_config.json), VS Code (.vscode/mcp.json,
// JSONC with `servers` and `inputs`) and Codex (config.toml `[mcp_servers.*]`). Each server entry
// is one deployment; what the configuration says about the client itself (it launches stdio
// servers, the least-fixed release among them, secrets written in it) is on every one of them.
// How each format writes its entries is read in client-entries.ts.

import { isIP } from 'node:net';
import { posix } from 'node:path';
import { addressClass, isUnspecified } from '../shared/ip-address.js';
import { dockerfileFacts } from './build-facts.js';
import {
  type Entry,
  GEMINI,
  isObj,
  isScalar,
  jsonEntries,
  type Obj,
  SSE_BY_CLIENT,
  tomlEntries,
  URL_KEY,
  yamlEntries,
} from './client-entries.js';
import type { Context } from './context.js';
import { DAEMON_NNP, HOST_NETWORK, imageMayHoldSecrets } from './docker-defaults.js';
import { isHostPath, volumeParts, worstHostPaths } from './host-paths.js';
import { dirOf, normalise, type TextFile } from './inputs.js';
import { analyseLaunch, type Launch } from './launch.js';
import { contextOfDockerfile } from './packages.js';
import { publishedHere } from './published-here.js';
import { AUTH_SCHEME, argumentValues, holdsSecret, isPlaceholder, passwordInUrl, SECRET_MANAGER_REF, SECRET_NAME } from './secrets.js';
import { startsNetworkServer, turnsOffTls } from './server-args.js';
import { type At, FactSheet } from './sheet.js';
import { commandsOf } from './shell.js';
import { readYaml } from './yaml-lines.js';

/** Client configurations a project keeps with its files (Claude Code's project scope, the editors' and agents' workspace files). */
const PROJECT_CONFIG =
  /(^|\/)(\.mcp\.json|\.(vscode|cursor|roo|amazonq)\/mcp\.json|\.kiro\/settings\/mcp\.json|\.(vscode|zed|gemini)\/settings\.json|\.continue\/(config|mcpServers\/[^/]+)\.ya?ml)$/;

/** Names that resolve only inside a network: mDNS, cloud-internal and cluster DNS. */
const INTERNAL_NAME = /\.(internal|local|svc|cluster\.local)$/;

/** A tool named for what changes things: writing, deleting, running (not get_, list_, search_). */
// The verb leads the name: `get_commit` and `get_workflow_run` read.
const WRITING_TOOL =
  /^(execute|exec|run|apply|write|create|update|delete|remove|drop|insert|upsert|push|merge|deploy|send|post|put|patch|set|kill|move|rename|commit|install|upload|edit)([_-]|$)/i;

/** A file's path, absolute, from home or the project, with no spaces: where a secret is kept, not the secret. */
const FILE_PATH =
  /^(\/|~\/|\.{1,2}\/|\$\{?(HOME|workspaceFolder|CLAUDE_PROJECT_DIR)\}?\/|%USERPROFILE%\\|[A-Za-z]:\\)[^\s]*[/\\][^\s]*\.[A-Za-z0-9]{2,5}$/;
/**
 * A value that refers to a secret kept elsewhere, after an auth scheme or none: ${input:x}, ${env:X},
 * ${X}, $X, OpenCode's {env:X} and {file:path}, Continue's ${{ secrets.X }}, an MCP Bundle's ${user_config.x},
 * a Gemini CLI extension's ${settings.x},
 * LibreChat's {{GITHUB_PAT}} (a customUserVars value each user enters), a Go template's
 * {{ env "X" }} (AmoyLab/Unla's gateway configurations).
 */
const REFERENCE = new RegExp(
  String.raw`^\s*${AUTH_SCHEME}(\$\{(input|env):[^}]+\}|\$\{(user_config|settings)\.[\w.-]+\}|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{(env|file):[^}]+\}|\$\{\{\s*(secrets|inputs)\.[\w.-]+\s*\}\}|\{\{\s*[A-Za-z_][\w.]*\s*\}\}|\{\{\s*(env|getenv)\s+"[A-Za-z_][A-Za-z0-9_]*"\s*\}\}|\{\{\s*\.Env\.[A-Za-z_][A-Za-z0-9_]*\s*\}\})\s*$`,
  'i',
);
/** `${VAR:-default}` (or `${VAR-default}`) as Claude Code expands it: the default is a value written in the file. */
const DEFAULTED = new RegExp(String.raw`^\s*${AUTH_SCHEME}\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}]*)\}\s*$`, 'i');
/** A reference, or `${VAR:-}`: a value that is only ever the variable's. */
const refersElsewhere = (v: string) => REFERENCE.test(v) || DEFAULTED.exec(v)?.[3]?.trim() === '';

interface Read {
  e: Entry;
  stdio: boolean;
  launch: Launch | null;
  secrets: { kind: 'plaintext' | 'placeholder' | 'reference'; at: At; why: string }[];
  tlsOff: (At & { what: string }) | null;
}

/**
 * A launch whose server the entry does not show: a wrapper script (`github-mcp.bat`, `bash
 * dev/netbox-mcp.sh`), which may start it in a container or on the host, Docker's MCP gateway
 * (`docker mcp gateway run`), which starts each server in a container of its own, or a program in
 * a dev container's workspace (`/workspaces/…`), which runs in that container.
 */
function hiddenLaunch(r: Read): string | null {
  const command = String(r.e.spec['command']);
  const args = Array.isArray(r.e.spec['args']) ? (r.e.spec['args'] as unknown[]).map(String) : [];
  const runner = r.launch?.runner ?? '';
  if (runner === 'docker' && args[0] === 'mcp')
    return 'docker mcp gateway starts each server in a container of its own, with the settings of its catalogue, which are not in this file';
  const script = /\.(sh|bash|bat|cmd|ps1)$/i;
  // npm's Windows shims (`npx.cmd`, `pnpm.cmd`) start the runner they are named for, read as that runner.
  const shim = /(^|[\\/])(npx|npm|pnpm|yarn|bunx|corepack)\.cmd$/i.test(command);
  const wrapper =
    script.test(command) && !shim
      ? command
      : /^(ba|z|da)?sh$|^(powershell|pwsh)(\.exe)?$/i.test(runner)
        ? args.find((a) => script.test(a))
        : undefined;
  if (wrapper) return `${wrapper} is a script: what it starts, and whether in a container, is in the script, not in this file`;
  // 23min/FlowTime's `"cwd": "/workspaces/flowtime-vnext/tools/mcp-server"`: a dev container's (or
  // Codespaces') workspace, where VS Code attached to the container runs the server.
  const devContainer = [r.e.spec['cwd'], command, ...args].find((x) => typeof x === 'string' && /^\/workspaces\//.test(x));
  return devContainer
    ? `${String(devContainer)} is a dev container's workspace path: the editor attached to that container runs the server in it`
    : null;
}

function readEntry(e: Entry, inputIds: Set<string>): Read {
  const command = typeof e.spec['command'] === 'string' && e.spec['command'] !== '' ? e.spec['command'] : null;
  // The clients take text (numbers and booleans as their text); anything else is no argument or value of theirs.
  const written = Array.isArray(e.spec['args']) ? (e.spec['args'] as unknown[]).filter(isScalar).map(String) : [];
  // A whole command line in `command` with no `args` (Bzcasper/n8n-mcp-server's `docker run --rm … n8n-mcp-server`),
  // as a client that runs it through a shell reads it; a path with spaces (`C:\Program Files\…`) is no command line.
  const line =
    command && !written.length && /\s/.test(command.trim()) && !/[\\/]/.test(command.trim().split(/\s+/)[0]!)
      ? (commandsOf(command)[0] ?? [])
      : null;
  const args = line ? line.slice(1) : written;
  const launch = command ? (line?.length ? analyseLaunch(line[0]!, args) : analyseLaunch(command, args)) : null;
  const secrets: Read['secrets'] = [];
  let tlsOff: (At & { what: string }) | null = null;
  const look = (key: string, value: string, at: At, where: string) => {
    if (turnsOffTls(key, value)) tlsOff = { ...at, what: `${key}=${value.trim()}` };
    // A flag is named as a variable is: `--access-token` as ACCESS_TOKEN, `--figma-api-key` as FIGMA_API_KEY.
    if (!holdsSecret(key, value) || value.trim() === '') return;
    // Claude Code's `${VAR:-default}`: the variable, or the default written here when it is unset.
    const fallback = DEFAULTED.exec(value);
    if (fallback) {
      const [, bearer = '', name, written] = fallback;
      if (written!.trim() === '') secrets.push({ kind: 'reference', at, why: `${where} ${key} refers to \${${name}}, with no default` });
      else look(key, `${bearer}${written}`, at, `${where} (the default of \${${name}})`);
      return;
    }
    // `GOOGLE_OAUTH_CREDENTIALS=${HOME}/.config/google-calendar-mcp/gcp-oauth.keys.json` (phatblat/dotfiles):
    // where the secret is kept, a file outside this one.
    if (FILE_PATH.test(value.trim())) {
      secrets.push({ kind: 'reference', at, why: `${where} ${key} names the file that holds it (${value.trim()})` });
      return;
    }
    if (SECRET_MANAGER_REF.test(value)) {
      secrets.push({ kind: 'reference', at, why: `${where} ${key} refers to ${value.trim()}, a secret manager's item` });
      return;
    }
    if (REFERENCE.test(value)) {
      const m = /\$\{input:([^}]+)\}/.exec(value);
      secrets.push({
        kind: 'reference',
        at,
        why: `${where} ${key} refers to ${m && inputIds.has(m[1]!) ? `the input ${m[1]}` : value.trim()}`,
      });
    } else if (isPlaceholder(value))
      secrets.push({
        kind: 'placeholder',
        at,
        why: `${where} ${key} is a placeholder ("${value.trim().slice(0, 40)}") the user replaces with the secret itself`,
      });
    else secrets.push({ kind: 'plaintext', at, why: `${where} ${key} holds a literal value` });
  };
  // `postgres://app:hunter22@db/shop`: a password in a connection URL, in an argument or a variable.
  const urlPassword = (value: string, at: At, where: string) => {
    const password = passwordInUrl(value);
    if (password !== null) look('URL_PASSWORD', password, at, `${where} (a URL with a password)`);
  };
  for (const field of ['env', 'headers', 'http_headers', 'env_http_headers']) {
    const m = e.spec[field];
    if (isObj(m))
      for (const [k, v] of Object.entries(m).filter(([, x]) => isScalar(x))) {
        look(k, String(v), e.at(field, k), field);
        if (!SECRET_NAME.test(k)) urlPassword(String(v), e.at(field, k), `${field} ${k}`);
      }
  }
  args.forEach((a, i) => {
    urlPassword(a, e.at('args', i), 'argument');
  });
  // docker run -e KEY=value and secrets in args (--api-key value, Authorization headers).
  for (const v of argumentValues(args)) look(v.key, v.value, e.at('args', v.index), v.where);
  return { e, stdio: command !== null, launch, secrets, tlsOff };
}

export function clientDeployments(ctx: Context, file: TextFile): FactSheet[] {
  let entries: Entry[];
  let inputs: Obj[] = [];
  if (file.path.endsWith('.toml')) entries = tomlEntries(file);
  else if (/\.(ya?ml|md)$/.test(file.path)) entries = yamlEntries(file);
  else {
    const r = jsonEntries(file);
    if (!r) throw new Error('not a JSON object');
    entries = r.entries;
    inputs = r.inputs;
    if (r.ignored)
      ctx.note(file.path, `VS Code starts the servers under "servers"; the "${r.ignored}" block beside them is not read by it, nor here`);
  }
  if (!entries.length) {
    ctx.note(file.path, 'an MCP client configuration with no server entries');
    return [];
  }
  const inputIds = new Set(inputs.map((i) => String(i['id'])));
  const reads = entries.map((e) => readEntry(e, inputIds));
  const wanted = ctx.options.servers ?? [];
  // An entry switched off (`"disabled": true` in Cline, Roo Code and Kiro; `enabled = false` in
  // Codex) is never started: no deployment, unless named with --server.
  // Claude Code and Claude Desktop document no such key: Claude Code has been seen starting such
  // entries all the same (anthropics/claude-code#33958, #32119), so they are reviewed, with a note.
  const claude = /(^|\/)(\.mcp\.json|\.claude\.json|claude_desktop_config\.json)$/.test(file.path);
  const off = (r: (typeof reads)[number]) => !claude && (r.e.spec['disabled'] === true || r.e.spec['enabled'] === false);
  for (const r of reads)
    if (claude && r.e.spec['disabled'] === true)
      ctx.note(
        file.path,
        `server entry "${r.e.name}" says "disabled": true, a key Claude's clients do not document (Claude Code turns servers off in its settings or /mcp): reviewed as one it starts`,
      );
    else if (off(r) && !wanted.includes(r.e.name))
      ctx.note(
        file.path,
        `server entry "${r.e.name}" is switched off (${r.e.spec['disabled'] === true ? '"disabled": true' : 'enabled = false'}): the client does not start it`,
      );
  // Neither a program to start nor a URL, as text: the client cannot use the entry, and nothing is guessed.
  const unusable = (r: (typeof reads)[number]) => !r.stdio && !(typeof r.e.spec['url'] === 'string' && r.e.spec['url'] !== '');
  for (const r of reads.filter(unusable))
    ctx.note(file.path, `server entry "${r.e.name}" names neither a command nor a URL as text: no client can start it, and it is not read`);
  const chosen = (wanted.length ? reads.filter((r) => wanted.includes(r.e.name)) : reads.filter((r) => !off(r))).filter(
    (r) => !unusable(r),
  );
  const image = gatewayImageOf(ctx, file.path);
  const mounted = image ? null : composeMountOf(ctx, file.path);
  // One deployment per server entry: the client facts describe that entry (doctrine 1.3,
  // client.launches_stdio_servers and the facts after it), client.reviewed the whole file.
  return chosen.map((r) => {
    const sheet = new FactSheet(`client:${file.path}:${r.e.name}`);
    sheet.set('client.reviewed', true, { file: file.path, line: 1 }, 'the client configuration is among the files reviewed');
    clientEntryFacts(sheet, r);
    if (r.stdio && r.launch?.bridgeUrl) bridgeFacts(sheet, r);
    else if (r.stdio) stdioFacts(ctx, sheet, r);
    else remoteFacts(sheet, r, String(r.e.spec['url'] ?? ''), r.e.at(String(r.e.spec[URL_KEY] ?? 'url')));
    if (image && r.stdio && !r.launch?.docker) {
      const why = `${image} copies ${file.path} into its image: the gateway that reads it there launches ${String(r.e.spec['command'])} in that container, and how the image is run is not in this file`;
      sheet.reopen('container.used', why);
      sheet.reopen('client.stdio_servers_sandboxed', why);
    } else if (mounted && r.stdio && !r.launch?.docker) {
      const why = `${mounted} bind-mounts ${file.path} into its container: a program there that reads it (a gateway) launches ${String(r.e.spec['command'])} in that container, while a client on the host would launch it directly`;
      sheet.reopen('container.used', why);
      sheet.reopen('client.stdio_servers_sandboxed', why);
    }
    const inside = r.stdio ? r.launch?.inContainer : undefined;
    if (inside) {
      const why = `${inside}: that container's settings (user, mounts, network, image) are where it is defined, not in this entry`;
      sheet.set('container.used', true, r.e.at('args'), `the server runs by ${inside}`);
      sheet.set('container.orchestrator', 'docker', r.e.at('args'), inside);
      sheet.reopen('client.stdio_servers_sandboxed', why);
      if (!r.launch?.release) {
        sheet.reopen('supply_chain.deployed_release', why);
        sheet.reopen('client.stdio_servers_release', why);
      }
    }
    const hidden = r.stdio ? hiddenLaunch(r) : null;
    if (hidden) {
      sheet.reopen('container.used', hidden);
      sheet.reopen('client.stdio_servers_sandboxed', hidden);
    }
    if (sheet.get('client.config_secrets_plaintext') === false) agentSecrets(ctx, sheet, file.path, r.e.name);
    return sheet;
  });
}

/**
 * mcp-agent and fast-agent merge a secrets file beside their configuration into it
 * (`mcp_agent.secrets.yaml`, `fastagent.secrets.yaml`, kept out of git): an entry with no secret
 * of its own may get one there, written in plain text. Read where the files hold it; else open.
 */
function agentSecrets(ctx: Context, sheet: FactSheet, path: string, server: string): void {
  const m = /(^|\/)(mcp_agent|fastagent)\.config\.ya?ml$/.exec(path);
  if (!m) return;
  const tool = m[2] === 'mcp_agent' ? 'mcp-agent' : 'fast-agent';
  const secretsPath = path.replace(/\.config\.(ya?ml)$/, '.secrets.$1');
  const file = ctx.inputs.get(secretsPath) ?? ctx.inputs.get(secretsPath.replace(/\.ya?ml$/, (e) => (e === '.yaml' ? '.yml' : '.yaml')));
  if (!file) {
    sheet.reopen(
      'client.config_secrets_plaintext',
      `${tool} merges ${posix.basename(secretsPath)} (not among the files) into this configuration: a secret for ${server} may be written there`,
    );
    return;
  }
  const doc = readYaml(file.text)[0];
  const servers = (doc?.value as Obj | undefined)?.['mcp'];
  const spec = isObj(servers) && isObj(servers['servers']) ? servers['servers'][server] : undefined;
  if (!isObj(spec)) return;
  for (const key of ['env', 'headers'])
    for (const [name, value] of Object.entries(isObj(spec[key]) ? spec[key] : {})) {
      const v = String(value ?? '');
      if (
        v &&
        !/\$\{|^\$[A-Za-z_]/.test(v) &&
        !isPlaceholder(v) &&
        (SECRET_NAME.test(name) || /^(Bearer|Token|Basic)\s+\S{8,}$/i.test(v))
      ) {
        sheet.set(
          'client.config_secrets_plaintext',
          true,
          { file: file.path, line: doc!.line(['mcp', 'servers', server, key, name]) },
          `${name} is written in ${file.path}, which ${tool} merges into the entry`,
        );
        return;
      }
    }
}

/** A client's own configuration file, by name: what a desktop client, an editor or an agent reads on the user's machine. */
const CLIENT_OWN_FILE =
  /(^|\/)((claude[\w-]*|gemini-extension|manifest|plugin|settings|\.claude|mcp|\.mcp)\.json|opencode\.jsonc?|[^/]+\.(toml|ya?ml))$/;

/**
 * The Dockerfile among the files that copies a gateway's configuration into its image
 * (samanhappy/mcphub's mcp_settings.json, with `COPY . .`): the gateway in that container
 * launches the servers it lists there, not on a user's host. A client's own file is not read so.
 */
function gatewayImageOf(ctx: Context, path: string): string | null {
  // An example or a sample is written for a user's own client, whatever an image copies with it.
  if (PROJECT_CONFIG.test(path) || CLIENT_OWN_FILE.test(path) || /(^|[/_.-])(examples?|samples?)([/_.-]|$)/i.test(path)) return null;
  for (const f of ctx.inputs.all()) {
    if (ctx.kinds.get(f.path) !== 'dockerfile') continue;
    const df = ctx.dockerfile(f.path);
    if (!df) continue;
    const dir = contextOfDockerfile(ctx.inputs, f.path, df.copied);
    const rel = posix.relative(dir || '.', path);
    if (rel.startsWith('..')) continue;
    // In the final image: a builder stage's copy stays there (carlosjperez/SOLARIA-DFO's
    // mcp-config.json, copied for the build, out of the image that takes only dist/).
    const copies = df.finalCopied.some((src) => {
      const n = normalise(src);
      return n === '' || n === rel || rel.startsWith(`${n}/`);
    });
    if (copies) return f.path;
  }
  return null;
}

/**
 * The Compose service among the files that bind-mounts this configuration into its container
 * (WebSurfinMurf/mcp's `./config.json:/config/config.json:ro` for ghcr.io/tbxark/mcp-proxy), as
 * `FILE service NAME`; null when none does. Sources with variables are not resolved here.
 */
function composeMountOf(ctx: Context, path: string): string | null {
  for (const f of ctx.inputs.all()) {
    if (ctx.kinds.get(f.path) !== 'compose') continue;
    let services: unknown;
    try {
      services = (readYaml(f.text)[0]?.value as Record<string, unknown> | undefined)?.['services'];
    } catch {
      continue;
    }
    if (!services || typeof services !== 'object') continue;
    for (const [name, spec] of Object.entries(services as Record<string, unknown>)) {
      const volumes = (spec as Record<string, unknown> | null)?.['volumes'];
      for (const v of Array.isArray(volumes) ? volumes : []) {
        const source =
          typeof v === 'string'
            ? volumeParts(v).source
            : v && typeof v === 'object' && (v as Record<string, unknown>)['type'] === 'bind'
              ? String((v as Record<string, unknown>)['source'] ?? '')
              : '';
        if (!/^\.{1,2}\//.test(source)) continue;
        const mounted = ctx.inputs.resolve(f.path, source).replace(/\/+$/, '');
        if (mounted === path) return `${f.path} service ${name}`;
        // The directory that holds it (drejom/webui-mcpo's `./mcpo:/opt/mcpo`, whose start.sh runs
        // `mcpo --config /opt/mcpo/config.json`), unless the file is a client's own or the
        // directory is the whole project, which a dev container mounts whatever it holds.
        const own = PROJECT_CONFIG.test(path) || CLIENT_OWN_FILE.test(path);
        if (!own && mounted !== '' && mounted !== '.' && mounted !== dirOf(f.path) && path.startsWith(`${mounted}/`))
          return `${f.path} service ${name} (its directory ${source})`;
      }
    }
  }
  return null;
}

const MCP_REMOTE_FIXED = [0, 1, 16];
const older = (v: string, than: number[]) => {
  const parts = v.split(/[.-]/).slice(0, 3).map(Number);
  for (let i = 0; i < 3; i++) if ((parts[i] ?? 0) !== than[i]) return (parts[i] ?? 0) < than[i]!;
  return false;
};

/** What this entry says about the client: the local program it launches, secrets written in it, TLS verification. */
/** Where the launched release is written: the argument naming it (`pkg@1.2.3`), else the `args` list. */
function releaseAt(r: Read): At {
  const args = r.e.spec['args'];
  const i =
    Array.isArray(args) && r.launch?.target ? args.findIndex((a) => a === r.launch!.target || a === `--package=${r.launch!.target}`) : -1;
  return i >= 0 ? r.e.at('args', i) : r.e.at('args');
}

function clientEntryFacts(sheet: FactSheet, r: Read): void {
  const cmdAt = r.e.at('command');
  sheet.set(
    'client.launches_stdio_servers',
    r.stdio,
    r.stdio ? cmdAt : r.e.at(),
    r.stdio ? `the entry starts a local program (command ${String(r.e.spec['command'])})` : 'the entry names a URL, no local program',
  );
  // Gemini CLI's `"trust": true` (0xc1x/fudi's settings) bypasses every tool call confirmation for the server.
  if (r.e.spec['trust'] === true && GEMINI.test(r.e.at().file))
    sheet.set(
      'client.destructive_calls_confirmed',
      false,
      r.e.at('trust'),
      'trust: true: Gemini CLI runs every tool of this server without asking for confirmation',
    );
  // Roo Code's `alwaysAllow` and Cline's `autoApprove` (seanchatmangpt/erlmcp's .roo/mcp.json lists
  // execute_sql and apply_migration): the listed tools run without asking. A name that writes,
  // deletes or runs decides; one that only reads (get_, list_) may be read-only.
  // Only the clients that read these keys: Roo Code, Kilo Code and Cline.
  const approves = /(^|\/)(\.roo|\.kilocode)\/|(^|\/)(cline_mcp_settings|mcp_settings)\.json$/.test(r.e.at().file);
  for (const key of approves ? ['alwaysAllow', 'autoApprove'] : []) {
    const list = r.e.spec[key];
    if (!Array.isArray(list)) continue;
    const writes = list.map(String).find((t) => t === '*' || WRITING_TOOL.test(t.replace(/([a-z])([A-Z])/g, '$1_$2')));
    if (writes)
      sheet.set(
        'client.destructive_calls_confirmed',
        false,
        r.e.at(key),
        `${key} lists ${writes === '*' ? 'every tool' : writes}, which the client then runs without asking`,
      );
  }
  if (r.stdio) {
    const l = r.launch;
    if (l?.release) sheet.set('client.stdio_servers_release', l.release, releaseAt(r), l.releaseWhy);
    else
      sheet.undecided(
        'client.stdio_servers_release',
        l?.docker
          ? l.releaseWhy
          : `${String(r.e.spec['command'])} runs a local program: how it is fixed depends on where it was installed from`,
      );
    if (!l?.docker)
      sheet.set(
        'client.stdio_servers_sandboxed',
        false,
        cmdAt,
        `${l?.runner ?? String(r.e.spec['command'])} runs directly on the host with the user's rights`,
      );
    else
      sheet.undecided(
        'client.stdio_servers_sandboxed',
        'the server runs in a container; whether it sees only what it needs is not decided by the flags alone',
      );
    // mcp-remote before 0.1.16: CVE-2025-6514 (CVSS 9.6), named by the doctrine's own fact.
    const version = l?.target ? /^(?:@modelcontextprotocol\/)?mcp-remote@(\d+\.\d+\.\d+)$/.exec(l.target)?.[1] : undefined;
    if (version)
      sheet.set(
        'client.stdio_servers_vulnerable',
        older(version, MCP_REMOTE_FIXED),
        r.e.at('args'),
        older(version, MCP_REMOTE_FIXED)
          ? `mcp-remote ${version} is before 0.1.16 (CVE-2025-6514)`
          : `mcp-remote ${version} has the fix for CVE-2025-6514`,
      );
    else if (l?.target && /^(?:@modelcontextprotocol\/)?mcp-remote(@|$)/.test(l.target))
      sheet.undecided(
        'client.stdio_servers_vulnerable',
        'mcp-remote without an exact version: the version that runs is whatever the registry serves at launch',
      );
  }
  const plaintext = r.secrets.find((s) => s.kind === 'plaintext');
  if (plaintext) sheet.set('client.config_secrets_plaintext', true, plaintext.at, plaintext.why);
  else {
    const placeholder = r.secrets.find((s) => s.kind === 'placeholder');
    sheet.set(
      'client.config_secrets_plaintext',
      false,
      placeholder?.at ?? r.e.at(),
      placeholder
        ? `${placeholder.why}: a documented placeholder is no secret`
        : r.secrets.length
          ? 'every secret is a reference resolved at start (inputs or environment)'
          : 'no secret is written in the entry',
    );
  }
  if (r.tlsOff) {
    // In an adapter's entry it is the client's own connection; in a server's entry, that server's outbound calls.
    if (r.launch?.bridgeUrl)
      sheet.set(
        'client.tls_verification_disabled',
        true,
        { file: r.tlsOff.file, line: r.tlsOff.line },
        `${r.tlsOff.what} in the adapter that connects to the server`,
      );
    else if (r.stdio)
      sheet.set(
        'egress.tls_verification_disabled',
        true,
        { file: r.tlsOff.file, line: r.tlsOff.line },
        `${r.tlsOff.what} turns off the server's certificate verification`,
      );
  }
}

/** `npx mcp-remote https://host/mcp`: the server is the remote one; the adapter is the client's local program. */
function bridgeFacts(sheet: FactSheet, r: Read): void {
  remoteFacts(sheet, r, r.launch!.bridgeUrl!, r.e.at('args'));
  sheet.undecided(
    'supply_chain.deployed_release',
    'the remote server runs a release its operator chose; the entry fixes only the adapter (client.stdio_servers_release)',
  );
}

function stdioFacts(ctx: Context, sheet: FactSheet, r: Read): void {
  const l = r.launch;
  // A launch line that starts an HTTP server (270aldo/nexus.core's `python -m uvicorn main:create_app`)
  // serves no stdio, whatever the client expects of it.
  const network = l?.exposesPort
    ? null
    : startsNetworkServer([
        ...String(r.e.spec['command'] ?? '').split(/\s+/),
        ...(Array.isArray(r.e.spec['args']) ? (r.e.spec['args'] as unknown[]).map(String) : []),
      ]);
  // datacline/secure-mcp-gateway's vscode-mcp-config.json: `"command": "node", "args": []` beside
  // `"url": "http://localhost:8000/mcp"`: which one the client uses is the client's choice.
  const url = typeof r.e.spec['url'] === 'string' && r.e.spec['url'] !== '' ? r.e.spec['url'] : null;
  if (l?.exposesPort) sheet.set('transport.kind', 'http', r.e.at('args'), `${l.target} serves the stdio server over HTTP`);
  else if (url)
    sheet.undecided(
      'transport.kind',
      `the entry writes both a command (${String(r.e.spec['command'])}) and a URL (${url}): which one the client uses is the client's choice`,
    );
  else if (network)
    sheet.undecided(
      'transport.kind',
      `the client launches it to speak stdio, but ${network}: which transport the program speaks is in its code`,
    );
  else sheet.set('transport.kind', 'stdio', r.e.at('command'), `command ${String(r.e.spec['command'])}: the client launches the server`);
  sheet.set('deployment.replicas', 1, r.e.at('command'), 'one stdio process per client');
  if (l?.release) {
    sheet.set('supply_chain.deployed_release', l.release, releaseAt(r), l.releaseWhy);
    const own = publishedHere(ctx, l);
    if (own)
      sheet.undecided(
        'supply_chain.builds_server',
        `the client runs the published ${l.target}, and ${own.why} (${own.at.file}:${own.at.line}): whether the release pulled is this team's own build is not in the files`,
      );
    else sheet.set('supply_chain.builds_server', false, r.e.at('args'), `the client runs the published ${l.target}`);
  } else if (l?.docker) {
    sheet.undecided('supply_chain.deployed_release', l.releaseWhy);
    sheet.undecided('supply_chain.builds_server', l.releaseWhy);
  } else
    sheet.undecided(
      'supply_chain.deployed_release',
      `${String(r.e.spec['command'])} runs a local program: how it is fixed depends on where it was installed from`,
    );
  // No bridge in the launch line leaves the program itself: grafana/loki-mcp's server also listens on
  // HTTP whenever it serves stdio, which only its listeners (ss -ltnp) show.
  if (l?.exposesPort) sheet.set('transport.stdio_bridged_to_network', true, r.e.at('args'), `${l.target} re-exposes the server on a port`);
  else
    sheet.undecided(
      'transport.stdio_bridged_to_network',
      'no bridge in the launch line; whether the program also listens on a port of its own (ss -ltnp, lsof -iTCP -sTCP:LISTEN while it runs) is not in the files',
    );
  if (l?.docker) dockerFacts(ctx, sheet, r, l);
  else if (l) sheet.set('container.used', false, r.e.at('command'), `${l.runner} runs the server on the host`);
}

function dockerFacts(ctx: Context, sheet: FactSheet, r: Read, l: Launch): void {
  const d = l.docker!;
  // A tag a Compose file among the files builds: docker run starts that build.
  const built = ctx.localBuildOf(d.image);
  const f = (k: string) => d.flags.get(k) ?? [];
  const at = r.e.at('args');
  sheet.set('container.used', true, at, `${l.runner} run ${d.image}`);
  sheet.set('container.orchestrator', 'docker', at, `${l.runner} run`);
  sheet.set('container.image_pinned_by_digest', l.release === 'digest', at, `image ${d.image}`);
  sheet.set('container.read_only_root_fs', f('--read-only').length > 0, at, f('--read-only').length ? '--read-only' : 'no --read-only');
  const dropAll = f('--cap-drop').some((c) => /^(CAP_)?ALL$/i.test(c)) && !f('--cap-add').length;
  sheet.set('container.capabilities_dropped', dropAll, at, dropAll ? '--cap-drop ALL' : 'no --cap-drop ALL');
  const secOpt = f('--security-opt');
  const nnp = secOpt.find((o) => /^no-new-privileges([:=](true|false))?$/.test(o));
  if (nnp) sheet.set('container.no_new_privileges', !/false$/.test(nnp), at, `--security-opt ${nnp}`);
  else sheet.undecided('container.no_new_privileges', DAEMON_NNP);
  const privileged = f('--privileged').length > 0;
  sheet.set('container.privileged', privileged, at, privileged ? '--privileged' : 'not --privileged');
  sheet.set(
    'container.seccomp',
    privileged || secOpt.includes('seccomp=unconfined')
      ? 'unconfined'
      : secOpt.some((o) => o.startsWith('seccomp='))
        ? 'custom'
        : 'runtime_default',
    at,
    'docker run seccomp',
  );
  const vols = [...f('--volume'), ...f('--mount')];
  // `--use-api-socket` (Docker 28.1) mounts the engine's socket, as Compose's use_api_socket does.
  const apiSocket = f('--use-api-socket').some((v) => v !== 'false');
  const sock = apiSocket || vols.some((v) => /(docker|containerd|podman)\.sock/.test(v));
  sheet.set(
    'container.docker_socket_mounted',
    sock,
    at,
    apiSocket ? '--use-api-socket mounts the engine socket' : sock ? 'the Docker socket is mounted' : 'no runtime socket mounted',
  );
  const ports = f('--publish');
  sheet.set(
    'container.published_ports',
    ports.length === 0 ? 'none' : ports.every((p) => /^(127\.|\[::1\]|localhost)/.test(p)) ? 'loopback' : 'all_interfaces',
    at,
    ports.length ? `-p ${ports.join(', ')}` : 'no -p',
  );
  const limits = f('--memory').length > 0 && f('--cpus').length > 0 && f('--pids-limit').length > 0;
  sheet.set(
    'container.resource_limits',
    limits,
    at,
    limits ? '--memory, --cpus and --pids-limit' : 'not every one of --memory, --cpus, --pids-limit',
  );
  const user = f('--user')[0];
  if (user) sheet.set('container.runs_as_root', /^(0|root)(:|$)/.test(user), at, `--user ${user}`);
  else if (!built) sheet.undecided('container.runs_as_root', "no --user: the image's default user decides");
  if (built) {
    // The build's USER (unless --user), its supply chain and health check are the image's.
    dockerfileFacts(sheet, built.df, ctx.inputs, built.contextDir, built.at);
    const release = sheet.get('supply_chain.deployed_release');
    if (release !== undefined) sheet.set('client.stdio_servers_release', release, built.at, `${d.image} is built from ${built.df.path}`);
    else sheet.reopen('client.stdio_servers_release', `${d.image} is built from ${built.df.path}, whose release the build decides`);
  }
  const net = f('--network')[0];
  if (net === 'host') sheet.reopen('container.published_ports', HOST_NETWORK('--network host'));
  if (net === 'none') {
    sheet.set('egress.network_restricted', true, at, '--network none');
    sheet.set('egress.cloud_metadata_credentials_reachable', false, at, '--network none');
  } else if (net === 'host')
    sheet.set('egress.network_restricted', false, at, "--network host: the host's own network, open as the host is");
  else if (net === undefined || net === 'bridge' || net === 'default')
    sheet.set('egress.network_restricted', false, at, "Docker's default network lets the container connect anywhere");
  // A user-defined network (book-api-mcp-bundle_default) may be created --internal: outside the files.
  else
    sheet.undecided(
      'egress.network_restricted',
      `--network ${net}: whether that network is internal is set where it is created, not in the files`,
    );
  const shared = [
    net === 'host' && '--network host',
    f('--pid')[0] === 'host' && '--pid host',
    f('--ipc')[0] === 'host' && '--ipc host',
  ].filter(Boolean);
  sheet.set(
    'container.host_namespaces',
    shared.length > 0,
    at,
    shared.length ? shared.join(', ') : 'no host network, PID or IPC namespace',
  );
  // -v SRC:DST (a path, not a volume name) and --mount type=bind,src=SRC.
  const sources = [
    ...f('--volume')
      .map((v) => volumeParts(v).source)
      .filter(isHostPath),
    ...f('--mount')
      .filter((m) => /(^|,)type=bind(,|$)/.test(m))
      .map((m) => /(?:^|,)(?:source|src)=([^,]+)/.exec(m)?.[1] ?? ''),
  ];
  const mounts = worstHostPaths(sources);
  if (mounts)
    sheet.set(
      'container.host_path_mounts',
      mounts,
      at,
      sources.length ? `host paths mounted: ${sources.join(', ')}` : 'no host path mounted',
    );
  else sheet.undecided('container.host_path_mounts', `whether ${sources.join(', ')} belongs to the deployment is not shown`);
  const envs = [...d.env.entries()];
  const literal = envs.filter(([k, v]) => v !== null && SECRET_NAME.test(k) && !refersElsewhere(v) && !isPlaceholder(v));
  const passed = envs.filter(([k, v]) => v === null && SECRET_NAME.test(k));
  // `-e OBSIDIAN_API_KEY=${input:obsidian-api-key}` (15cm/obsidian-rest-mcp): the client resolves it at start.
  const referenced = envs.find(([k, v]) => v !== null && SECRET_NAME.test(k) && refersElsewhere(v));
  if (literal.length)
    sheet.set('container.secrets_source', 'manifest_plaintext', at, `-e ${literal[0]![0]}=... written in the configuration`);
  else if (passed.length) {
    // `-e NAME` takes the client's value (doctrine 1.3): the entry's `env`, or the user's session.
    const name = passed[0]![0];
    const value = isObj(r.e.spec['env']) ? r.e.spec['env'][name] : undefined;
    const file = r.e.at().file;
    const committed = PROJECT_CONFIG.test(file) && typeof value === 'string' && value.trim() !== '' && !refersElsewhere(value);
    // A placeholder (datalayer/jupyter-mcp-server's `"DOCUMENT_TOKEN": "YOUR_TOKEN"`) is no secret yet:
    // what the user puts in its place, and where, is not in the files.
    if (committed && isPlaceholder(value))
      sheet.undecided('container.secrets_source', `-e ${name}: ${file} holds the placeholder ${value}, which the user replaces`);
    else
      sheet.set(
        'container.secrets_source',
        committed ? 'manifest_plaintext' : 'environment',
        at,
        committed
          ? `-e ${name}: its value is written in ${file}, a project's configuration kept with its files`
          : `-e ${name} takes the client's value: ${value === undefined ? "the user's session" : typeof value === 'string' && refersElsewhere(value) ? `the reference ${value}` : `the entry's env in ${file}, a user's configuration outside any project`}`,
      );
  } else if (referenced)
    sheet.set(
      'container.secrets_source',
      'environment',
      at,
      `-e ${referenced[0]}=${String(referenced[1]).trim()}: the client passes the value it resolves at start`,
    );
  else if (f('--env-file').length)
    sheet.undecided(
      'container.secrets_source',
      `--env-file ${f('--env-file')[0]}: what it holds and whether it is committed is not in the files`,
    );
  else if (!built) sheet.undecided('container.secrets_source', imageMayHoldSecrets(d.image));
  else if (!sheet.has('container.secrets_source'))
    sheet.set(
      'container.secrets_source',
      'none',
      built.at,
      `no secret reaches the container from the entry, and ${built.df.path} writes none into the image`,
    );
  sheet.undecided('container.healthcheck', "a stdio server has no health endpoint; only the image's own HEALTHCHECK could say");
}

function remoteFacts(sheet: FactSheet, r: Read, url: string, uAt: At): void {
  const type = String(r.e.spec['type'] ?? r.e.spec['transport'] ?? '');
  sheet.set('transport.kind', 'http', uAt, `a remote server at ${url || '(no url)'}`);
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    u = null;
  }
  // A URL built from references (`https://${input:domain}/mcp`) parses only once resolved, but its
  // scheme and path are written: they decide TLS and the transport; its host stays open.
  const written = u ? null : /^(https?):\/\/[^/?#]*(\/[^?#]*)?/i.exec(url.trim());
  const path = u ? u.pathname : (written?.[2] ?? '');
  if (type === 'sse' || /\/sse\/?$/.test(path) || r.e.spec[SSE_BY_CLIENT])
    sheet.set(
      'transport.legacy_sse',
      true,
      uAt,
      type === 'sse'
        ? `${r.e.spec['type'] !== undefined ? 'type' : 'transport'} "sse": the deprecated HTTP+SSE transport`
        : r.e.spec[SSE_BY_CLIENT]
          ? String(r.e.spec[SSE_BY_CLIENT])
          : 'the URL is an /sse endpoint',
    );
  if (!u) {
    if (written) {
      const scheme = written[1]!.toLowerCase();
      sheet.set('tls.enabled', scheme === 'https', uAt, `${scheme}:// URL`);
      sheet.undecided('exposure.endpoint_address_class', 'the URL names its host through a reference resolved at start');
    }
    return;
  }
  sheet.set('tls.enabled', u.protocol === 'https:', uAt, `${u.protocol}// URL`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const cls = isIP(host)
    ? isUnspecified(host)
      ? null
      : addressClass(host)
    : host === 'localhost'
      ? 'loopback'
      : INTERNAL_NAME.test(host)
        ? 'private'
        : null;
  if (cls === 'loopback') {
    // This client connects on loopback; the doctrine's class is where clients reach it only, and the
    // server (or a port forward to it) may listen on every interface (mcp_agent_mail publishes 8765:8765).
    const why = `this client connects to ${host}; whether the server listens there only, or on every interface too, is in how it is started, not in the client's configuration`;
    sheet.undecided('exposure.endpoint_address_class', why);
    sheet.undecided('exposure.reachable_from_internet', why);
  } else if (cls === 'private')
    sheet.set('exposure.endpoint_address_class', 'private', uAt, `${host} is a private address or internal name`);
  else if (cls === 'public') sheet.set('exposure.endpoint_address_class', 'public', uAt, `${host} is a public address`);
  else if (isIP(host))
    sheet.undecided(
      'exposure.endpoint_address_class',
      `${host} is an address to listen on: the client reaches its own host, and a server listening there answers on every interface, whose addresses the files do not give`,
    );
  else sheet.undecided('exposure.endpoint_address_class', `${host}: what the name resolves to is not in the files`);
  // A tunnel's public name (2716399563/gbd-config's *.trycloudflare.com): the internet reaches the server.
  // A Cloudflare quick tunnel only forwards, with nothing to configure; an ngrok endpoint may carry a policy.
  if (/\.trycloudflare\.com$/i.test(host)) {
    sheet.set('exposure.reachable_from_internet', true, uAt, `${host} is a Cloudflare quick tunnel's public name`);
    sheet.set('exposure.behind_reverse_proxy', false, uAt, 'a quick tunnel (cloudflared tunnel --url) only forwards: no proxy');
  } else if (/\.ngrok(-free)?\.(app|dev|io)$/i.test(host))
    sheet.set('exposure.reachable_from_internet', true, uAt, `${host} is an ngrok endpoint's public name`);
  if ([...u.searchParams.keys()].some((k) => /^(api[_-]?key|key|token|access_token|auth)$/i.test(k)))
    sheet.set('authentication.keys_in_query_string', true, uAt, 'the URL carries a credential in its query string');
}
