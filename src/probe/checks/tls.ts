// TLS on an https endpoint: one handshake per protocol version (node:tls with min = max = that
// version), newest first, and the certificate. OpenSSL 3 refuses TLS 1.0 and 1.1 on its own at
// its default security level, so those two offers lower it (`@SECLEVEL=0`), as the doctrine's
// OpenSSL recipe does: otherwise a refusal would be this machine's, not the server's. A plain
// http endpoint that answered is served without TLS (tls.enabled false); an https one shows TLS
// works at this URL, not that no plain listener serves it too, so tls.enabled stays open there.
import { checkServerIdentity, connect, type DetailedPeerCertificate, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { Check, CheckContext } from '../check.js';
import type { ProbeCertificate, ProbeTlsEvidence } from '../types.js';

const VERSIONS = [
  { label: '1.3', node: 'TLSv1.3' },
  { label: '1.2', node: 'TLSv1.2' },
  { label: '1.1', node: 'TLSv1.1' },
  { label: '1.0', node: 'TLSv1' },
] as const;

/** Errors that mean this machine could not offer the version at all. */
const NOT_OFFERABLE = new Set(['ERR_SSL_NO_PROTOCOLS_AVAILABLE', 'ERR_TLS_INVALID_PROTOCOL_VERSION', 'ERR_SSL_UNSUPPORTED_PROTOCOL']);
/** Errors that mean the server answered the offer with a refusal (an alert, or a close mid-handshake). */
const REFUSED =
  /^ERR_SSL_(TLSV1_ALERT_PROTOCOL_VERSION|SSLV3_ALERT_HANDSHAKE_FAILURE|WRONG_VERSION_NUMBER|TLSV1_ALERT_INSUFFICIENT_SECURITY|NO_CIPHERS_AVAILABLE)$|^ECONNRESET$/;

function name(entity: Record<string, unknown> | undefined): string {
  if (!entity) return '';
  return Object.entries(entity)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : String(v)}`)
    .join(', ');
}

function certificateOf(socket: TLSSocket, hostname: string): ProbeCertificate | null {
  const cert = socket.getPeerCertificate() as PeerCertificate | DetailedPeerCertificate;
  if (!cert || Object.keys(cert).length === 0) return null;
  // The chain was checked against the trusted CAs by the handshake; the name is checked here, as a verifying client would.
  const chainError = socket.authorized ? null : String(socket.authorizationError ?? 'not verified');
  const nameError = checkServerIdentity(hostname, cert);
  return {
    subject: name(cert.subject as unknown as Record<string, unknown>),
    issuer: name(cert.issuer as unknown as Record<string, unknown>),
    subject_alt_names: (cert.subjectaltname ?? '')
      .split(', ')
      .filter((s) => s !== '')
      .sort(),
    valid_from: cert.valid_from,
    valid_to: cert.valid_to,
    sha256_fingerprint: cert.fingerprint256,
    verified: chainError === null && nameError === undefined,
    verify_error: chainError ?? (nameError ? 'the certificate does not name this host' : null),
  };
}

function handshake(ctx: CheckContext, version: (typeof VERSIONS)[number]): Promise<ProbeTlsEvidence> {
  const { target, prober } = ctx;
  prober.reserve();
  const cas = prober.trustedCas;
  return new Promise((resolve) => {
    const base = {
      id: `tls.${version.label}`,
      kind: 'tls' as const,
      purpose: `a TLS handshake offering only TLS ${version.label}`,
      host: target.hostname,
      port: target.port,
      offered: version.label,
    };
    let settled = false;
    const socket = connect({
      host: target.hostname,
      port: target.port,
      servername: target.servername,
      minVersion: version.node,
      maxVersion: version.node,
      ca: cas,
      rejectUnauthorized: false,
      ...(version.label === '1.0' || version.label === '1.1' ? { ciphers: 'DEFAULT:@SECLEVEL=0' } : {}),
    });
    const finish = (e: ProbeTlsEvidence) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(e);
    };
    const timer = setTimeout(
      () =>
        finish({
          ...base,
          outcome: 'error',
          negotiated: null,
          cipher: null,
          error: `no answer within ${prober.settings.timeoutMs} ms`,
          peer_address: socket.remoteAddress ?? null,
          certificate: null,
        }),
      prober.settings.timeoutMs,
    );
    socket.once('secureConnect', () =>
      finish({
        ...base,
        outcome: 'accepted',
        negotiated: socket.getProtocol(),
        cipher: socket.getCipher()?.name ?? null,
        error: null,
        peer_address: socket.remoteAddress ?? null,
        certificate: certificateOf(socket, target.hostname),
      }),
    );
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? 'error';
      const outcome = NOT_OFFERABLE.has(code) ? 'not_offerable' : REFUSED.test(code) ? 'refused' : 'error';
      finish({
        ...base,
        outcome,
        negotiated: null,
        cipher: null,
        error: code,
        peer_address: socket.remoteAddress ?? null,
        certificate: null,
      });
    });
  });
}

export const tls: Check = {
  name: 'tls',
  facts: ['tls.enabled', 'tls.min_version'],
  async run(ctx) {
    const { target, findings, state, prober } = ctx;
    if (!target.https) {
      const anonymous = state.anonymous;
      if (anonymous?.status !== null && anonymous !== undefined) {
        findings.decide('tls.enabled', false, { probe: anonymous.id, why: `the endpoint answered over plain http (${anonymous.status})` });
      }
      findings.leave('tls.min_version', 'the endpoint is plain http');
      return;
    }
    const results: ProbeTlsEvidence[] = [];
    for (const v of VERSIONS) {
      const e = await handshake(ctx, v);
      prober.record(e);
      results.push(e);
    }
    const accepted = results.filter((r) => r.outcome === 'accepted');
    const first = accepted[0];
    if (!first) {
      findings.leave('tls.enabled', 'no TLS version was accepted');
      findings.leave('tls.min_version', 'no TLS version was accepted');
      state.credentialUsable = false;
      state.credentialWithheld = 'no TLS handshake succeeded';
      return;
    }
    // Doctrine 1.3: HTTPS *only*. A plain listener serving the same endpoint is another origin, which the probe never contacts.
    findings.leave(
      'tls.enabled',
      `served over HTTPS here (${first.id}); whether a plain http listener also serves the endpoint is on another origin, which the probe does not contact`,
    );
    // The lowest accepted version is the minimum only if every older one was offered and refused.
    const lowest = accepted[accepted.length - 1]!;
    const older = results.slice(results.indexOf(lowest) + 1);
    const unclear = older.find((r) => r.outcome !== 'refused');
    if (unclear) {
      findings.leave('tls.min_version', `TLS ${unclear.offered} was not decided: ${unclear.outcome} (${unclear.error})`);
    } else {
      findings.decide(
        'tls.min_version',
        lowest.offered,
        { probe: lowest.id, why: `TLS ${lowest.offered} was accepted` },
        ...older.map((r) => ({ probe: r.id, why: `TLS ${r.offered} was refused (${r.error})` })),
      );
    }
    const cert = first.certificate;
    if (!cert?.verified) {
      state.credentialUsable = false;
      state.credentialWithheld = `the certificate did not verify (${cert?.verify_error ?? 'no certificate'}): the credential was not sent (trust a private CA with --ca)`;
    }
  },
};
