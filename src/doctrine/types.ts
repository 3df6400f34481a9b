import type { ValidateFunction } from 'ajv';
import type { Manifest } from './manifest.js';

export const DOCTRINE_FORMAT = 'signet-doctrine/1';
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export type JsonLogic = unknown;

export interface DoctrineMeta {
  format: string;
  name: string;
  title: string;
  version: string;
  description: string;
  facts_schema: Record<string, unknown>;
  scope?: { areas: Omit<ScopeArea, 'facts'>[] };
  consistency?: Omit<FactsConstraint, 'facts'>[];
  deployments?: DeploymentsDefinition;
}

/**
 * How a review of several deployments (one per MCP server) reads: which facts describe the
 * clients, which of those describe one server's entry in a client configuration, and the order
 * in which the worst verdict of the deployments is the review's.
 */
export interface DeploymentsDefinition {
  description: string;
  /** Fact groups or paths that describe the clients rather than the server. */
  client_facts: string[];
  /** Client facts that describe the client configuration's entry for one server. */
  per_server_client_facts: string[];
  /** Worst first. */
  verdict_order: readonly ['fail', 'incomplete', 'limited_scope', 'pass'];
}

/**
 * An area of the doctrine (a rule category) that facts can declare out of scope, and the
 * deployments whose minimum scope includes it. A verdict is `pass` only when no area of the
 * minimum scope was declared out of scope.
 */
export interface ScopeArea {
  /** A rule category. */
  id: string;
  title: string;
  /** JSON Logic: true when the facts declare the area out of scope. */
  out_of_scope: JsonLogic;
  /** JSON Logic: true when this deployment's minimum scope includes the area. */
  required: JsonLogic;
  /** Why the area belongs to that minimum scope. */
  rationale: string;
  /** Fact paths both conditions read, sorted. */
  facts: string[];
}

/** Facts that cannot all be true of one deployment: `check` must not be false. */
export interface FactsConstraint {
  id: string;
  message: string;
  check: JsonLogic;
  /** Fact paths `check` reads, sorted. */
  facts: string[];
}

export interface DoctrineDocument {
  id: string;
  title: string;
  tags: string[];
  /** Relative path inside the doctrine folder. */
  path: string;
  /** Markdown body without front matter. */
  body: string;
  /** The whole file as hashed in the manifest (UTF-8, LF line endings). */
  source: string;
}

export interface Rule {
  id: string;
  title: string;
  severity: Severity;
  category: string;
  when?: JsonLogic;
  check: JsonLogic;
  rationale: string;
  remediation: string;
  references: string[];
  /** Words readers search for that the rule's text may not use (the specification's terms): indexed for doctrine_search. */
  keywords?: string[];
  /**
   * An extra or a draft, not a baseline requirement: evaluated and reported like any rule,
   * but its failure or undetermined status never changes the verdict.
   */
  advisory: boolean;
  path: string;
  /** Fact paths the rule reads (from `when` and `check`), sorted. */
  facts: string[];
}

/** A pre-signature shipped in the doctrine folder as `doctrine.sig`. */
export interface DoctrinePublisherSignature {
  doctrine_hash: string;
  signature: string;
  public_key: string;
}

export interface Doctrine {
  meta: DoctrineMeta;
  /** Sorted by id. */
  documents: DoctrineDocument[];
  /** Sorted by id. */
  rules: Rule[];
  manifest: Manifest;
  hash: string;
  /** Areas that facts may declare out of scope, from doctrine.json's scope (may be empty). */
  areas: ScopeArea[];
  /** Consistency constraints over the facts, from doctrine.json (may be empty). */
  constraints: FactsConstraint[];
  /** Every dotted path declared in facts_schema (groups and leaves). */
  factPaths: string[];
  /** Compiled once at load (which also checks the schema); doctrine_evaluate reuses it. */
  readonly validateFacts: ValidateFunction;
  publisher: DoctrinePublisherSignature | null;
}

export interface Problem {
  /** `file: field` naming where the problem is. */
  where: string;
  message: string;
}
