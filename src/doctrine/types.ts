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
