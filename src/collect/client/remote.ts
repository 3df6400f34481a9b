// A remote server's entry (a URL): transport, TLS, where the address is and credentials in the URL.

import { isIP } from 'node:net';
import { addressClass, isUnspecified } from '../../shared/ip-address.js';
import type { At, FactSheet } from '../sheet.js';
import { BY_OPENCODE, GEMINI, isObj, SSE_BY_CLIENT } from './entries.js';
import type { Read } from './read.js';

/** Names that resolve only inside a network: mDNS, cloud-internal and cluster DNS. */
const INTERNAL_NAME = /\.(internal|local|svc|cluster\.local)$/;
/**
 * A container's name for the host it runs on (Kuadrant/mcp-envoy-wasm's `host.docker.internal`): the
 * client reaches a server on its own host, as on loopback, whatever interfaces that server listens on.
 */
const HOST_FROM_CONTAINER = /^(host|gateway)\.(docker|containers)\.internal$/;

export function remoteFacts(sheet: FactSheet, r: Read, url: string, uAt: At): void {
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
  // OpenCode's `oauth` on a remote server (theherk/commons): an object (a client id, scopes) runs
  // the authorization code flow itself; false turns its OAuth off for the server.
  const oauth = r.e.spec['oauth'];
  if (r.e.spec[BY_OPENCODE] === true && (oauth === false || isObj(oauth)))
    sheet.set(
      'client.uses_oauth',
      oauth !== false,
      r.e.at('oauth'),
      oauth === false ? "oauth: false turns OpenCode's OAuth off for the server" : 'oauth: OpenCode runs the OAuth flow for the server',
    );
  // Gemini CLI's `"oauth": {"enabled": true}` (stripe/agent-toolkit's gemini-extension.json).
  else if (GEMINI.test(r.e.at().file) && isObj(oauth) && typeof oauth['enabled'] === 'boolean')
    sheet.set(
      'client.uses_oauth',
      oauth['enabled'],
      r.e.at('oauth', 'enabled'),
      `oauth.enabled: ${String(oauth['enabled'])}: Gemini CLI ${oauth['enabled'] ? 'runs' : 'does not run'} the OAuth flow for the server`,
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
    : host === 'localhost' || HOST_FROM_CONTAINER.test(host)
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
