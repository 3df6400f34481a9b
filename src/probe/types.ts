// The shapes `signet probe` hands to its callers (`signet check --probe` merges the facts with
// collected ones and signs the evidence into its attestation; docs/checking.md). Every object is
// built in a fixed key order and every list in the order the checks ran, so two probes of an
// unchanged endpoint differ only where its answers do.
import type { FactSource } from '../collect/types.js';

/** What the probe holds to get past the endpoint's authentication: sent as `Authorization: Bearer`. */
export interface ProbeCredential {
  /** `key`: an API key or static token; `token`: an OAuth access token. Both are bearer credentials. */
  kind: 'key' | 'token';
  value: string;
}

export interface ProbeOptions {
  credential?: ProbeCredential | undefined;
  /** PEM certificates to trust besides the system's (a private CA). */
  ca?: string | undefined;
  /** Longest wait for one exchange, in milliseconds (default 10,000). */
  timeoutMs?: number | undefined;
  /** Longest the whole probe may take, in milliseconds (default 90,000). */
  deadlineMs?: number | undefined;
  /** Most connections the probe may open (default 60). */
  maxRequests?: number | undefined;
  /** Also send what would spend a rate limit: up to 100 refused credentials (default false). */
  exerciseRateLimit?: boolean | undefined;
}

/** One header as it was sent or received, lower-case name first. A credential is never shown. */
export type ProbeHeader = [name: string, value: string];

/** One HTTP request the probe sent and what came back. */
export interface ProbeHttpEvidence {
  /** Stable name of this exchange, unique in the probe: what `FactSource.probe` points at. */
  id: string;
  kind: 'http';
  /** What the exchange tests, in one sentence. */
  purpose: string;
  request: {
    method: string;
    /** Credentials in the query are shown as `[credential]`. */
    url: string;
    headers: ProbeHeader[];
    body_bytes: number;
    /** The body's start, or how a synthetic body was built (`…` + 1048577 spaces). */
    body_excerpt: string;
  };
  /** null when no answer came (`error` says why). */
  response: {
    status: number;
    /** Only the headers that bear on a fact (authentication, CORS, HSTS, sessions, limits). */
    headers: ProbeHeader[];
    /** Bytes read: at most the bound the exchange had, see `truncated`. */
    body_bytes: number;
    body_excerpt: string;
    truncated: boolean;
  } | null;
  /** The address the connection reached, when one was made. */
  peer_address: string | null;
  error: string | null;
  /** When the exchange was sent several times (a rate-limit run): how often and the statuses seen. */
  repeated?: { count: number; statuses: Record<string, number> };
}

/** One TLS handshake offering exactly one protocol version. */
export interface ProbeTlsEvidence {
  id: string;
  kind: 'tls';
  purpose: string;
  host: string;
  port: number;
  offered: '1.0' | '1.1' | '1.2' | '1.3';
  /** accepted; refused by the server; not_offerable: this machine's TLS library cannot offer it; error: no answer. */
  outcome: 'accepted' | 'refused' | 'not_offerable' | 'error';
  negotiated: string | null;
  cipher: string | null;
  error: string | null;
  peer_address: string | null;
  certificate: ProbeCertificate | null;
}

export interface ProbeCertificate {
  subject: string;
  issuer: string;
  subject_alt_names: string[];
  valid_from: string;
  valid_to: string;
  sha256_fingerprint: string;
  /** Verified against the system's CAs and `ca`, for the URL's host name. */
  verified: boolean;
  verify_error: string | null;
}

export type ProbeEvidence = ProbeHttpEvidence | ProbeTlsEvidence;

/** Something the answers show that the facts schema cannot say (e.g. only a lower bound). */
export interface ProbeInexpressible {
  what: string;
  facts: string[];
  probe: string;
}

export interface ProbeResult {
  format: 'signet-probe/1';
  /** The URL probed, as given (without userinfo or fragment). */
  target: string;
  credential: 'none' | 'key' | 'token';
  /** Nested facts, valid against the doctrine's facts schema. */
  facts: Record<string, unknown>;
  /** Dotted fact path → the exchanges that decided it. */
  sources: Record<string, FactSource[]>;
  /** Dotted paths the probe looks at but its answers did not decide: never guessed. */
  undecided: string[];
  /** Dotted path of an undecided fact → why it stayed undecided. */
  notes: Record<string, string>;
  inexpressible: ProbeInexpressible[];
  evidence: ProbeEvidence[];
}
