// What the checks decided, each fact with the exchanges that decided it, and why the others
// stayed open. A fact is decided once: a later check may not overwrite it (the checks are
// ordered so that the first to decide has the strongest evidence).
import type { FactSource } from '../collect/types.js';

/** Every fact a check of the probe can decide: the rest of the schema is out of its reach. */
export const PROBE_FACTS = [
  'authentication.keys_in_query_string',
  'authentication.method',
  'authentication.oauth_client_id_metadata_documents',
  'authentication.oauth_endpoints_https',
  'authentication.oauth_iss_in_authorization_response',
  'authentication.oauth_pkce_s256_required',
  'authentication.required',
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
  'http.protected_resource_metadata_discoverable',
  'http.session_ids_used_for_auth',
  'rate_limit.enabled',
  'rate_limit.ratelimit_headers',
  'rate_limit.retry_after_header',
  'rate_limit.unauthenticated_limited',
  'tls.enabled',
  'tls.hsts',
  'tls.min_version',
  'tools.input_schemas_strict',
  'tools.output_schemas_declared',
  'tools.read_only_annotations',
  'tools.sensitive_params_as_headers',
  'transport.kind',
  'transport.legacy_sse',
  'transport.protocol_revisions',
] as const;

export type ProbeFact = (typeof PROBE_FACTS)[number];

/** A probe's FactSource: the id of an evidence record and why it decides. */
export type ProbeSource = Extract<FactSource, { probe: string }>;

export class Findings {
  readonly #decided = new Map<ProbeFact, { value: unknown; sources: ProbeSource[] }>();
  readonly #notes = new Map<ProbeFact, string>();

  /** Records a decided fact; a fact already decided keeps its first value. */
  decide(path: ProbeFact, value: unknown, ...sources: ProbeSource[]): void {
    if (this.#decided.has(path)) return;
    if (sources.length === 0) throw new Error(`probe: ${path} decided without evidence`);
    this.#decided.set(path, { value, sources });
    this.#notes.delete(path);
  }

  /** Says why a fact stays undecided (the first reason stands; a decision later removes it). */
  leave(path: ProbeFact, why: string): void {
    if (!this.#decided.has(path) && !this.#notes.has(path)) this.#notes.set(path, why);
  }

  has(path: ProbeFact): boolean {
    return this.#decided.has(path);
  }

  value(path: ProbeFact): unknown {
    return this.#decided.get(path)?.value;
  }

  /** Nested facts, their sources and the undecided rest, each in sorted key order. */
  build(): { facts: Record<string, unknown>; sources: Record<string, FactSource[]>; undecided: string[]; notes: Record<string, string> } {
    const facts: Record<string, Record<string, unknown>> = {};
    const sources: Record<string, FactSource[]> = {};
    const undecided: string[] = [];
    const notes: Record<string, string> = {};
    for (const path of [...PROBE_FACTS].sort()) {
      const decided = this.#decided.get(path);
      if (decided) {
        const [group, name] = path.split('.') as [string, string];
        facts[group] ??= {};
        facts[group][name] = decided.value;
        sources[path] = decided.sources.map((s) => ({ probe: s.probe, why: s.why }));
      } else {
        undecided.push(path);
        notes[path] = this.#notes.get(path) ?? 'no exchange of this probe bears on it';
      }
    }
    return { facts, sources, undecided, notes };
  }
}
