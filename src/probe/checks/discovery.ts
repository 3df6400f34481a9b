// OAuth discovery on the endpoint's origin (RFC 9728 §3, RFC 8414 §3): the protected resource
// metadata at the path-aware and the root well-known URL, the one a 401 names in
// `resource_metadata` when it is on this origin, and the authorization server metadata. The
// authorization servers the metadata lists are on other origins: named in the evidence, never
// fetched.
import type { Check } from '../check.js';
import type { Exchange } from '../exchange.js';
import { isRecord } from '../mcp.js';
import { sameOrigin } from '../target.js';

type Answer = 'metadata' | 'unauthorized' | 'other' | 'not_found';
/** Worst first: a metadata document claims OAuth; not_found only when every URL answered 404. */
const WORST: Answer[] = ['metadata', 'unauthorized', 'other', 'not_found'];

function classify(e: Exchange): Answer | undefined {
  if (e.status === null) return undefined;
  if (e.status === 200 && isRecord(json(e.body))) return 'metadata';
  if (e.status === 401) return 'unauthorized';
  if (e.status === 404) return 'not_found';
  return 'other';
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `resource_metadata="…"` of a Bearer challenge (RFC 9728 §5.1). */
export function resourceMetadataOf(challenge: string | undefined): string | undefined {
  return challenge ? /resource_metadata="([^"]*)"/i.exec(challenge)?.[1] : undefined;
}

/** RFC 9728 §3.3: the resource must be the URL clients use; a trailing slash is not a different resource here. */
function sameResource(a: string, b: string): boolean {
  try {
    const strip = (u: string) => new URL(u).href.replace(/\/$/, '');
    return strip(a) === strip(b);
  } catch {
    return false;
  }
}

export const discovery: Check = {
  name: 'discovery',
  facts: ['http.oauth_discovery_endpoints', 'http.protected_resource_metadata_discoverable'],
  async run(ctx) {
    const { target, findings, state } = ctx;
    const path = target.url.pathname.replace(/\/$/, '');
    const get = (id: string, purpose: string, p: string) =>
      ctx.send({ id, purpose, method: 'GET', path: p, headers: [['accept', 'application/json']] });

    const challengeUrl = resourceMetadataOf(state.anonymous?.headers['www-authenticate']);
    const pathAware = `/.well-known/oauth-protected-resource${path}`;
    const root = '/.well-known/oauth-protected-resource';
    const candidates: { url: string; exchange: Exchange | undefined; where: string }[] = [];
    const isKnown = (u: string) => [pathAware, root].some((p) => sameOrigin(target, p) === u);
    if (challengeUrl) {
      let onOrigin = false;
      try {
        onOrigin = new URL(challengeUrl).origin === target.url.origin;
      } catch {
        /* not a URL: named in the evidence only */
      }
      if (onOrigin && !isKnown(challengeUrl)) {
        const u = new URL(challengeUrl);
        const e = await get(
          'discovery.challenge-metadata',
          'the protected resource metadata the 401 challenge names',
          `${u.pathname}${u.search}`,
        );
        candidates.push({ url: challengeUrl, exchange: e, where: 'the URL the 401 challenge names' });
      }
    }
    const prmPath =
      path === ''
        ? undefined
        : await get('discovery.resource-path', 'RFC 9728 protected resource metadata, path-aware well-known URL', pathAware);
    const prmRoot = await get('discovery.resource-root', 'RFC 9728 protected resource metadata, root well-known URL', root);
    const asMeta = await get(
      'discovery.authorization-server',
      'RFC 8414 authorization server metadata on this origin',
      '/.well-known/oauth-authorization-server',
    );
    if (prmPath) candidates.push({ url: sameOrigin(target, pathAware), exchange: prmPath, where: 'the path-aware well-known URL' });
    candidates.push({ url: sameOrigin(target, root), exchange: prmRoot, where: 'the root well-known URL' });

    // http.oauth_discovery_endpoints: the worst answer of the three URLs the fact names.
    const three = [prmPath, prmRoot, asMeta].filter((e): e is Exchange => e !== undefined);
    const answers = three.map((e) => ({ e, a: classify(e) }));
    const unanswered = answers.find((x) => x.a === undefined);
    if (unanswered) {
      findings.leave('http.oauth_discovery_endpoints', `${unanswered.e.id} got no answer (${unanswered.e.error})`);
    } else {
      const worst = WORST.find((w) => answers.some((x) => x.a === w))!;
      const decisive = worst === 'not_found' ? answers : answers.filter((x) => x.a === worst);
      findings.decide(
        'http.oauth_discovery_endpoints',
        worst,
        ...decisive.map((x) => ({ probe: x.e.id, why: `answered ${x.e.status} (${x.a})` })),
      );
    }

    // http.protected_resource_metadata_discoverable: the first document that names this resource and an authorization server.
    const resource = target.url.href;
    const found: { id: string; why: string }[] = [];
    for (const c of candidates) {
      const doc = c.exchange && c.exchange.status === 200 ? json(c.exchange.body) : undefined;
      if (!c.exchange || !isRecord(doc)) continue;
      const servers = doc['authorization_servers'];
      const listed = Array.isArray(servers) && servers.length > 0 && servers.every((s) => typeof s === 'string');
      const names = typeof doc['resource'] === 'string' && sameResource(doc['resource'], resource);
      if (names && listed) {
        findings.decide('http.protected_resource_metadata_discoverable', true, {
          probe: c.exchange.id,
          why: `${c.where} serves metadata for ${resource} listing ${(servers as string[]).join(', ')}`,
        });
        return;
      }
      found.push({
        id: c.exchange.id,
        why: names
          ? `${c.where} serves metadata that lists no authorization server`
          : `${c.where} serves metadata for another resource (${String(doc['resource'])})`,
      });
    }
    const missing = candidates.find((c) => c.exchange?.status === null);
    const offOrigin = challengeUrl !== undefined && !candidates.some((c) => c.url === challengeUrl) && !isKnown(challengeUrl);
    if (missing) {
      findings.leave('http.protected_resource_metadata_discoverable', `${missing.exchange?.id} got no answer`);
    } else if (offOrigin) {
      findings.leave(
        'http.protected_resource_metadata_discoverable',
        `the 401 names metadata on another origin (${challengeUrl}), which the probe does not fetch`,
      );
    } else if (found.length > 0) {
      findings.decide('http.protected_resource_metadata_discoverable', false, ...found.map((f) => ({ probe: f.id, why: f.why })));
    } else {
      findings.decide(
        'http.protected_resource_metadata_discoverable',
        false,
        ...(state.anonymous ? [{ probe: state.anonymous.id, why: 'no 401 names resource_metadata' }] : []),
        ...candidates.map((c) => ({ probe: c.exchange!.id, why: `${c.where} answered ${c.exchange!.status}, no metadata` })),
      );
    }
  },
};
