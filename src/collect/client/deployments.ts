// MCP client configurations: Claude Desktop (claude_desktop_config.json), Claude Code
// (.mcp.json), Cursor (.cursor/mcp.json), Windsurf (mcp_config.json), VS Code (.vscode/mcp.json,
// JSONC with `servers` and `inputs`) and Codex (config.toml `[mcp_servers.*]`). Each server entry
// is one deployment; what the configuration says about the client itself (it launches stdio
// servers, the least-fixed release among them, secrets written in it) is on every one of them.
// How each format writes its entries is read in entries.ts.

import type { Context } from '../context.js';
import type { TextFile } from '../inputs.js';
import { type At, FactSheet } from '../sheet.js';
import { agentSecrets } from './agent-secrets.js';
import { type Entry, jsonEntries, type Obj, tomlEntries, URL_KEY, yamlEntries } from './entries.js';
import { bridgeFacts, clientEntryFacts, stdioFacts } from './entry-facts.js';
import { composeMountOf, gatewayImageOf } from './hosted.js';
import { type Read, readEntry } from './read.js';
import { remoteFacts } from './remote.js';

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
    // A Windows program (`wsl.exe`, `cmd`: phamhung075/4genthub's template, in a directory an image
    // copies whole) runs on a Windows host, not in a Linux image.
    const windows = /(^|[\\/])([^\\/]+\.exe|cmd)$/i.test(String(r.e.spec['command'] ?? ''));
    if (image && r.stdio && !r.launch?.docker && !windows) {
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
      const c = r.launch?.container;
      const hosting = c ? ctx.composeContainers.get(c.name) : undefined;
      if (c && hosting) runsInComposeContainer(sheet, hosting, c.user, r.e.at('args'));
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
 * The container a `docker exec -i NAME` or `docker compose run SERVICE` entry runs its server in,
 * where a Compose server among the files is that container (stonediggity/unified-docker-mcps'
 * `exec -i mcp-puppeteer`, its `container_name`): its container, egress and supply-chain facts are
 * the entry's too, where the entry does not decide them itself; its user unless the entry sets one.
 */
function runsInComposeContainer(sheet: FactSheet, hosting: FactSheet, user: string | null, at: At): void {
  const lent = (path: string) =>
    /^(container|egress|supply_chain)\./.test(path) && !sheet.has(path) && !(path === 'container.runs_as_root' && user !== null);
  if (user !== null && user.includes('$'))
    sheet.undecided('container.runs_as_root', `the entry runs the server as the user ${user} (-u), a value set where it runs`);
  else if (user !== null)
    sheet.set('container.runs_as_root', /^(root|0)(:|$)/.test(user), at, `the entry runs the server as the user ${user} (-u)`);
  for (const [path, why] of hosting.openFacts()) if (lent(path) && !sheet.looked(path)) sheet.undecided(path, why);
  for (const d of hosting.decisions()) {
    if (!lent(d.path)) continue;
    sheet.adopt(d.path, d.value, d.sources);
    // The program the client launches is that container's: its release is the entry's.
    if (d.path === 'supply_chain.deployed_release' && !sheet.has('client.stdio_servers_release'))
      sheet.adopt('client.stdio_servers_release', d.value, d.sources);
  }
  sheet.reopen(
    'client.stdio_servers_sandboxed',
    `the server runs in the container of ${hosting.name}: whether that sandboxes it is its settings' question, read there`,
  );
}
