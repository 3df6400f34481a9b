// HTTPS on Signet's own listener, for the hop from the proxy when it leaves the host (doctrine
// TLS-006: Kubernetes pods on other nodes). The proxy verifies the certificate; the proxy
// secret then travels encrypted. The pair is read at start (a bad pair refuses to start) and
// again when the files change: checked every minute, since a Kubernetes Secret or cert-manager
// renews them in place, and at once on SIGHUP, as nginx reloads. A renewed pair that does not
// load keeps the one in use and says why; no message ever holds the key.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import { SignetError } from '../errors.js';
import type { Logger } from '../log.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
  /** SHA-256 over both files: whether a re-read found anything new. */
  digest: string;
}

/** What the listener accepts: TLS 1.2 and 1.3 only, as the proxy offers (ssl_protocols). */
export const TLS_SERVER_OPTIONS = { minVersion: 'TLSv1.2' } as const satisfies SecureContextOptions;

/** Reads both files; the error names the variable, never the content. */
function readFiles(files: TlsFiles): TlsPair {
  const read = (path: string, variable: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new SignetError('config_invalid', `${variable} (${path}) cannot be read (${code})`, [{ where: variable, message: code }]);
    }
  };
  const cert = read(files.certFile, 'SIGNET_TLS_CERT_FILE');
  const key = read(files.keyFile, 'SIGNET_TLS_KEY_FILE');
  const digest = createHash('sha256').update(cert).update('\0').update(key).digest('hex');
  return { cert, key, digest };
}

/** Refuses a pair OpenSSL cannot use (the key must match the certificate). */
function checkPair(pair: TlsPair): TlsPair {
  try {
    createSecureContext({ ...TLS_SERVER_OPTIONS, cert: pair.cert, key: pair.key });
  } catch (err) {
    // OpenSSL's reason ("key values mismatch", "no start line"): about the files, never their bytes.
    const reason = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : 'invalid';
    throw new SignetError('config_invalid', `SIGNET_TLS_CERT_FILE and SIGNET_TLS_KEY_FILE do not make a usable pair: ${reason}`, [
      { where: 'SIGNET_TLS_CERT_FILE', message: reason },
    ]);
  }
  return pair;
}

/** Reads and checks the pair, at start: a bad pair refuses to start. */
export const readTlsPair = (files: TlsFiles): TlsPair => checkPair(readFiles(files));

/**
 * Keeps the listener's certificate current. Returns a stop function (the interval and the
 * SIGHUP handler removed), called when the server closes.
 */
export function keepTlsCurrent(server: TlsServer, files: TlsFiles, first: TlsPair, log: Logger, intervalMs = 60_000): () => void {
  let current = first.digest;
  const reload = (why: string) => {
    let pair: TlsPair;
    try {
      // Unchanged files (every minute, most of the time): nothing to check or set.
      pair = readFiles(files);
      if (pair.digest === current) return;
      checkPair(pair);
    } catch (err) {
      log.error(
        { reason: why, err: err instanceof Error ? err.message : String(err) },
        'tls certificate not reloaded; the one in use stays',
      );
      return;
    }
    server.setSecureContext({ ...TLS_SERVER_OPTIONS, cert: pair.cert, key: pair.key });
    current = pair.digest;
    log.info({ reason: why }, 'tls certificate reloaded');
  };
  const timer = setInterval(() => reload('files changed'), intervalMs);
  timer.unref();
  const onHup = () => reload('SIGHUP');
  process.on('SIGHUP', onHup);
  return () => {
    clearInterval(timer);
    process.off('SIGHUP', onHup);
  };
}
