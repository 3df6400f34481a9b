// The shapes `signet facts collect`, `signet probe` and `signet check` share (docs/checking.md).
// Every list is sorted and every object built in a fixed key order, so the same files give the
// same bytes: a collection is signed inside a check's attestation and compared byte for byte
// between the CLI and the MCP tool.

/** What a file was read as. `other` files are hashed (they are subjects) but decide nothing. */
export type FileKind =
  | 'compose'
  | 'dotenv'
  | 'kubernetes'
  | 'kustomization'
  | 'dockerfile'
  | 'nginx'
  | 'caddyfile'
  | 'traefik'
  | 'mcp_client_config'
  | 'npm_manifest'
  | 'npm_lockfile'
  | 'pnpm_lockfile'
  | 'yarn_lockfile'
  | 'python_manifest'
  | 'python_lockfile'
  | 'go_module'
  | 'go_sum'
  | 'cargo_manifest'
  | 'cargo_lockfile'
  /** Bun's lockfile: `bun.lock` (text since Bun 1.2) or `bun.lockb` (binary, its presence is what counts). */
  | 'bun_lockfile'
  /** A template of a Helm chart (`templates/` beside a `Chart.yaml`): not YAML until `helm template` renders it. */
  | 'helm_template'
  | 'other';

/** One input file: its path relative to the root it was collected under (POSIX separators). */
export interface CollectedFile {
  path: string;
  kind: FileKind;
  /** `sha256:<hex>` of the file's bytes. */
  sha256: string;
}

/**
 * Why a fact has its value. A file and a 1-based line; a profile of a server the collector
 * recognised (what that server does by design, in the version the profile describes: no file
 * line shows it); a probe exchange (the id of an entry of the probe's `evidence`); or a
 * declared-facts file, for facts a person stated.
 */
export type FactSource =
  | { file: string; line: number; why: string }
  | { profile: string; version: string; why: string }
  | { probe: string; why: string }
  | { declared: string; why: string };

/** Something the files show that the doctrine's facts schema has no way to say. */
export interface Inexpressible {
  file: string;
  line: number;
  what: string;
  /** Dotted fact paths it bears on, if any. */
  facts: string[];
}

/** One MCP server the files describe, with the facts they decide about it. */
export interface CollectedDeployment {
  /** Unique within a collection: e.g. `compose:signet`, `client:.mcp.json:github`. */
  name: string;
  /** Nested facts, valid against the doctrine's facts schema. */
  facts: Record<string, unknown>;
  /** Dotted leaf path → where its value comes from (at least one source per decided fact). */
  sources: Record<string, FactSource[]>;
  /** Dotted leaf paths of the doctrine's schema the files do not decide: never guessed. */
  undecided: string[];
  /** For the undecided facts a collector looked at: why the files cannot decide them. */
  reasons?: Record<string, string>;
  inexpressible: Inexpressible[];
}

/** A file read but not used, and why: binary, too large, malformed, or not a kind collected. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** Something about the collection as a whole: how a kustomization was read, a service left out. */
export interface CollectionNote {
  file: string;
  what: string;
}

export interface Collection {
  format: 'signet-facts/1';
  files: CollectedFile[];
  deployments: CollectedDeployment[];
  /** Files hashed but not read for facts, with the reason (sorted by path). */
  skipped?: SkippedFile[];
  /** How the files were read where it matters (sorted by file, then text). */
  notes?: CollectionNote[];
}

/** What `collect()` returns: a Collection with every optional part present. */
export interface CollectionOut extends Collection {
  deployments: (CollectedDeployment & { reasons: Record<string, string> })[];
  skipped: SkippedFile[];
  notes: CollectionNote[];
}
