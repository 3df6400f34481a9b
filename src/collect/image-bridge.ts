// An image whose command is a bridge to a remote MCP server (PostHog/mcp's Dockerfile:
// `mcp-remote "${POSTHOG_REMOTE_MCP_URL}"` with that URL in its ENV): as for the same bridge in a
// client entry, the remote server is what the image reaches, over HTTP, and its release is its
// operator's; the image fixes only the adapter.

import type { DockerfileInfo } from './dockerfile/read.js';
import { analyseLaunch } from './launch.js';
import type { FactSheet } from './sheet.js';

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
