// GET a small JSON document from the authorization server (metadata, JWKS): a deadline, no
// redirects (RFC 8414 §3: the document is where the issuer says), a size bound, and the
// provider's CA when it is private (SIGNET_OAUTH_CA_FILE), without trusting it for anything else.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import * as tls from 'node:tls';

export interface JsonFetchOptions {
  timeoutMs: number;
  /** PEM of the CA(s) that issued the provider's certificate, besides the system's. */
  ca?: string | undefined;
}

const MAX_BYTES = 1024 * 1024;

export function getJson(url: URL, options: JsonFetchOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        timeout: options.timeoutMs,
        ...(url.protocol === 'https:' && options.ca ? { ca: [...defaultCas(), options.ca] } : {}),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(
            new Error(
              `HTTP ${res.statusCode}${res.statusCode && res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed)' : ''}`,
            ),
          );
          return;
        }
        let size = 0;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BYTES) req.destroy(new Error('the document is over 1 MiB'));
          else chunks.push(c);
        });
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new Error('the answer is not JSON'));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** The CAs Node trusts by default (bundled, NODE_EXTRA_CA_CERTS), which an explicit `ca` would replace. */
function defaultCas(): readonly string[] {
  const get = (tls as { getCACertificates?: (kind: 'default') => string[] }).getCACertificates;
  return get ? get('default') : tls.rootCertificates;
}
