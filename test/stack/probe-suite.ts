import { describe, expect, it } from 'vitest';
import { probe } from '../../src/probe/probe.js';
import type { ProbeHttpEvidence, ProbeResult } from '../../src/probe/types.js';
import { evidence, expectWellFormed, fact } from '../helpers/probe.js';
import { signetDeployment } from '../helpers/signet-deployments.js';

export interface ProbeStackTarget {
  /** The proxy's /mcp. */
  url: string;
  key: string;
}

// Signet's compose deployment as `signet check` states it: collected from the files, plus deploy/facts/compose.json.
const documented = signetDeployment('compose').facts as Record<string, Record<string, unknown>>;

/** Facts the probe decided that the documented set also states, with both values. */
function disagreements(r: ProbeResult): string[] {
  const out: string[] = [];
  for (const path of Object.keys(r.sources)) {
    const [group, name] = path.split('.') as [string, string];
    const stated = documented[group]?.[name];
    if (stated !== undefined && JSON.stringify(stated) !== JSON.stringify(fact(r, path))) {
      out.push(`${path}: probe ${JSON.stringify(fact(r, path))}, documented ${JSON.stringify(stated)}`);
    }
  }
  return out;
}

/** What a probe with the stack's key must decide, at the values the documented facts give. */
export const DECIDED_WITH_KEY = [
  'authentication.required',
  'authentication.keys_in_query_string',
  'exposure.endpoint_address_class',
  'http.allowed_hosts_configured',
  'http.cors_allow_any_origin',
  'http.error_details_exposed',
  'http.issues_session_ids',
  'http.list_cache_scope',
  'http.max_body_bytes',
  'http.mcp_headers_validated',
  'http.oauth_discovery_endpoints',
  'http.origin_validation',
  'rate_limit.enabled',
  'rate_limit.ratelimit_headers',
  'tools.input_schemas_strict',
  'tools.output_schemas_declared',
  'tools.read_only_annotations',
  'tools.sensitive_params_as_headers',
  'transport.kind',
  'transport.legacy_sse',
  'transport.protocol_revisions',
];

export function defineProbeSuite(name: string, start: () => Promise<ProbeStackTarget>): void {
  describe(`probe: ${name}`, () => {
    it('without a key: authentication, Origin, CORS and discovery decided at the proxy, the rest left open with the reason', async () => {
      const t = await start();
      const r = await probe(t.url);
      expectWellFormed(r);
      expect(disagreements(r)).toEqual([]);
      expect(fact(r, 'authentication.required')).toBe(true);
      expect((evidence(r, 'auth.no-credential') as ProbeHttpEvidence).response?.headers).toContainEqual([
        'www-authenticate',
        'Bearer realm="signet"',
      ]);
      // The proxy refuses a foreign origin before it looks for a key (docs/proxy.md, browser clients).
      expect(fact(r, 'http.origin_validation')).toBe(true);
      expect(fact(r, 'http.cors_allow_any_origin')).toBe(false);
      expect(fact(r, 'http.oauth_discovery_endpoints')).toBe('not_found');
      expect(r.undecided).toEqual(
        expect.arrayContaining(['transport.protocol_revisions', 'http.allowed_hosts_configured', 'tools.input_schemas_strict']),
      );
      expect(r.notes['transport.protocol_revisions']).toMatch(/401.*a credential \(--key or --token\) would let the probe in/);
    });

    it('with a key: every fact it decides is the one deploy/facts/compose.json states, and none is sent in the clear', async () => {
      const t = await start();
      const started = performance.now();
      const r = await probe(t.url, { credential: { kind: 'key', value: t.key } });
      const ms = performance.now() - started;
      expectWellFormed(r, { secret: t.key });
      expect(disagreements(r)).toEqual([]);
      const missing = DECIDED_WITH_KEY.filter((p) => !(p in r.sources));
      expect(missing, JSON.stringify(Object.fromEntries(missing.map((p) => [p, r.notes[p]])))).toEqual([]);
      // The proxy answers any query string with 400: the key there is refused, never accepted.
      expect(r.sources['authentication.keys_in_query_string']!.map((s) => s.why)).toEqual([
        'refused with 400',
        'refused with 400',
        'refused with 400',
      ]);
      // The proxy's client_max_body_size and the server's limit are both 1 MiB; nginx refuses one byte more.
      expect(fact(r, 'http.max_body_bytes')).toBe(1_048_576);
      process.stderr.write(`probe ${name}: ${r.evidence.length} exchanges in ${Math.round(ms)} ms\n`);
    });
  });
}
