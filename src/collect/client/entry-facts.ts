// What one entry says about the client (the program it launches, its release, secrets written in
// it, TLS verification, tools run without asking) and about a stdio server it starts.

import type { Context } from '../context.js';
import { publishedHere } from '../published-here.js';
import { startsNetworkServer } from '../server-args.js';
import type { At, FactSheet } from '../sheet.js';
import { dockerFacts } from './docker.js';
import { GEMINI } from './entries.js';
import type { Read } from './read.js';
import { remoteFacts } from './remote.js';

/** A tool named for what changes things: writing, deleting, running (not get_, list_, search_). */
// The verb leads the name: `get_commit` and `get_workflow_run` read.
const WRITING_TOOL =
  /^(execute|exec|run|apply|write|create|update|delete|remove|drop|insert|upsert|push|merge|deploy|send|post|put|patch|set|kill|move|rename|commit|install|upload|edit)([_-]|$)/i;

const MCP_REMOTE_FIXED = [0, 1, 16];
const older = (v: string, than: number[]) => {
  const parts = v.split(/[.-]/).slice(0, 3).map(Number);
  for (let i = 0; i < 3; i++) if ((parts[i] ?? 0) !== than[i]) return (parts[i] ?? 0) < than[i]!;
  return false;
};

/** Where the launched release is written: the argument naming it (`pkg@1.2.3`), else the `args` list. */
function releaseAt(r: Read): At {
  const args = r.e.spec['args'];
  const i =
    Array.isArray(args) && r.launch?.target ? args.findIndex((a) => a === r.launch!.target || a === `--package=${r.launch!.target}`) : -1;
  return i >= 0 ? r.e.at('args', i) : r.e.at('args');
}

/** What this entry says about the client: the local program it launches, secrets written in it, TLS verification. */
export function clientEntryFacts(sheet: FactSheet, r: Read): void {
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
  // Only the clients that read these keys: Roo Code, Kilo Code, Kiro and Cline.
  const approves = /(^|\/)(\.roo|\.kilocode|\.kiro\/settings)\/|(^|\/)(cline_mcp_settings|mcp_settings)\.json$/.test(r.e.at().file);
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
export function bridgeFacts(sheet: FactSheet, r: Read): void {
  remoteFacts(sheet, r, r.launch!.bridgeUrl!, r.e.at('args'));
  sheet.undecided(
    'supply_chain.deployed_release',
    'the remote server runs a release its operator chose; the entry fixes only the adapter (client.stdio_servers_release)',
  );
}

export function stdioFacts(ctx: Context, sheet: FactSheet, r: Read): void {
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
