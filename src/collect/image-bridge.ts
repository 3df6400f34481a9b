// An image whose command is a bridge to a remote MCP server (PostHog/mcp's Dockerfile:
// `mcp-remote "${POSTHOG_REMOTE_MCP_URL}"` with that URL in its ENV): as for the same bridge in a
// client entry, the remote server is what the image reaches, over HTTP, and its release is its
// operator's; the image fixes only the adapter.

import type { DockerfileInfo } from './dockerfile/read.js';
import { analyseLaunch, npmSpec } from './launch.js';
import type { FactSheet } from './sheet.js';
import { unwrap } from './shell.js';

/** Decides the bridge's facts and says whether the image is one. */
export function imageBridge(sheet: FactSheet, df: DockerfileInfo): boolean {
  if (!df.commandAt) return false;
  const launch = analyseLaunch(df.entrypoint[0] ?? '', df.entrypoint.slice(1));
  if (!launch.bridgeUrl) return false;
  // A URL the image's ENV gives (a variable set nowhere stays what it is: undecided below).
  const url = launch.bridgeUrl.replace(/^\$\{?([A-Za-z_]\w*)\}?$/, (m, n: string) => df.env.get(n) ?? m);
  const at = df.commandAt;
  sheet.set('transport.kind', 'http', at, `the image runs a bridge to the remote server at ${url}: that server speaks HTTP`);
  if (/^https:\/\//i.test(url)) sheet.set('tls.enabled', true, at, `the bridge reaches ${url} over HTTPS`);
  else if (/^http:\/\//i.test(url)) sheet.set('tls.enabled', false, at, `the bridge reaches ${url} in plain HTTP`);
  else sheet.undecided('tls.enabled', `the bridge's URL (${url}) is set where the files do not show`);
  if (/\/sse\/?$/.test(url)) sheet.set('transport.legacy_sse', true, at, 'the URL is an /sse endpoint');
  const why = 'the remote server runs a release its operator chose; the image fixes only the adapter';
  if (sheet.has('supply_chain.deployed_release')) sheet.reopen('supply_chain.deployed_release', why);
  else sheet.undecided('supply_chain.deployed_release', why);
  return true;
}

/**
 * An image that starts a bridge with no words of its own (mcp-cloud-collection/mcp-hn's
 * `ENTRYPOINT ["mcp-proxy"]`, the server its child named at `docker run`): what the bridge speaks
 * is its own, not the child's a smithery.yaml describes. npm's mcp-proxy only serves HTTP; Python's
 * mcp-proxy and supergateway are clients on stdio when the run hands them a URL. Says whether it
 * decided or left the transport open.
 */
export function bareBridge(sheet: FactSheet, df: DockerfileInfo): boolean {
  const words = unwrap(df.entrypoint);
  const program = (words[0] ?? '').split('/').pop()!;
  if (!df.commandAt || words.length !== 1 || !/^(mcp-proxy|supergateway)$/.test(program)) return false;
  const npm = df.installs.some((i) => i.tool === 'npm' && (i.packages ?? []).some((p) => npmSpec(p).name === 'mcp-proxy'));
  if (program === 'mcp-proxy' && npm)
    sheet.set(
      'transport.kind',
      'http',
      df.commandAt,
      "the image starts npm's mcp-proxy, which serves the stdio server it is given over HTTP",
    );
  else
    sheet.undecided(
      'transport.kind',
      `the image starts ${program} with the words of \`docker run\`: given a command it serves HTTP, given a server's URL it is a client on stdio`,
    );
  return true;
}
